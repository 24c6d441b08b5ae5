package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/store"
)

// runToken manages API tokens: `puzzled token create --name N [--read-only]`
// prints a new token once; only its hash is stored.
func runToken(ctx context.Context, args []string) error {
	const tokenUsage = "usage: puzzled token create --name NAME [--read-only] [flags]"
	if len(args) > 0 && isHelpFlag(args[0]) {
		fmt.Println(tokenUsage + "\n\nRun \"puzzled token create -h\" for the flags.")
		return flag.ErrHelp
	}
	if len(args) == 0 || args[0] != "create" {
		return errors.New(tokenUsage)
	}
	var cfg config
	fs := flagSet("token create", &cfg, flagGroups{Database: true})
	name := fs.String("name", "", "what the token is for (required)")
	readOnly := fs.Bool("read-only", false, "the token cannot submit or cancel")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *name == "" {
		return errors.New("token create: --name is required")
	}
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	opts, err := cfg.storeOpts(store.OpenOpts{AppName: "puzzled-token"})
	if err != nil {
		return err
	}
	if err := store.Migrate(ctx, cfg.migrateURL(), logger); err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.databaseURL, opts)
	if err != nil {
		return err
	}
	defer st.Close()
	secret := make([]byte, 24)
	_, _ = rand.Read(secret)
	token := "pzd_" + base64.RawURLEncoding.EncodeToString(secret)
	if _, err := st.CreateToken(ctx, *name, api.HashToken(token), *readOnly); err != nil {
		return err
	}
	fmt.Println(token)
	return nil
}
