package main

import (
	"context"
	"errors"
)

func runDev(ctx context.Context, args []string) error {
	return errors.New("dev: not yet available; run `puzzled serve` and `puzzled work` against local services")
}
