package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/store"
)

// runToken manages API tokens: `puzzled token create --name N [--read-only]`
// prints a new operator's token once; only its hash is stored. With
// --project P (repeatable) and --role R the token has role R on those
// projects only.
func runToken(ctx context.Context, args []string) error {
	const tokenUsage = "usage: puzzled token create --name NAME [--read-only | --project P ... --role R] [flags]"
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
	readOnly := fs.Bool("read-only", false, "the token cannot submit or cancel (an operator's token: reads every project)")
	var projects projectList
	fs.Var(&projects, "project", "a project the token has --role on (repeatable); none: an operator's token, on every project")
	role := fs.String("role", "", "the token's role on its projects: read, submit or admin (with --project)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *name == "" {
		return errors.New("token create: --name is required")
	}
	if err := checkTokenFlags(projects, *role, *readOnly); err != nil {
		return err
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
	roles := map[int64]string{}
	for _, p := range projects {
		pr, err := st.ProjectByName(ctx, p)
		if err != nil {
			return fmt.Errorf("token create: --project: %w", err)
		}
		roles[pr.ID] = *role
	}
	token := api.NewTokenSecret()
	if _, err := st.CreateToken(ctx, store.TokenParams{Name: *name, Hash: api.HashToken(token), ReadOnly: *readOnly,
		Roles: roles, CreatedBy: "cli"}); err != nil {
		return err
	}
	fmt.Println(token)
	return nil
}

// checkTokenFlags checks that --project and --role go together and not
// with --read-only.
func checkTokenFlags(projects []string, role string, readOnly bool) error {
	switch {
	case len(projects) == 0 && role != "":
		return errors.New("token create: --role needs --project")
	case len(projects) > 0 && !slices.Contains([]string{"read", "submit", "admin"}, role):
		return errors.New("token create: --project needs --role read, submit or admin")
	case len(projects) > 0 && readOnly:
		return errors.New("token create: --read-only is for an operator's token; give a project token --role read")
	}
	return nil
}

// projectList is the repeatable --project flag.
type projectList []string

func (p *projectList) String() string { return strings.Join(*p, ",") }

func (p *projectList) Set(v string) error {
	if v == "" {
		return errors.New("empty project name")
	}
	*p = append(*p, v)
	return nil
}
