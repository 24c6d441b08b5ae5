package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"
)

// runHealth GETs a URL (default the local /readyz) and fails unless it
// answers 200: the container health check, where no curl exists.
func runHealth(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("health", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: puzzled health [URL]\n\nExits 0 if URL (default http://127.0.0.1:8080/readyz) answers 200.")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	url := "http://127.0.0.1:8080/readyz"
	if fs.NArg() > 1 {
		return errors.New("usage: puzzled health [URL]")
	}
	if fs.NArg() == 1 {
		url = fs.Arg(0)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("health: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s answered %s", url, resp.Status)
	}
	return nil
}
