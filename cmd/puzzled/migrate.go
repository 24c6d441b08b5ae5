package main

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/store"
)

func runMigrate(ctx context.Context, args []string) error {
	var cfg config
	fs := flagSet("migrate", &cfg, flagGroups{Database: true})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "up" {
		return fmt.Errorf(`usage: puzzled migrate [flags] up`)
	}
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	if _, err := cfg.storeOpts(store.OpenOpts{}); err != nil {
		return err // a transaction pooler without a direct URL
	}
	return store.Migrate(ctx, cfg.migrateURL(), logger)
}
