package store

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Vacuuming when autovacuum is off (OpenOpts.VacuumIfNoAutovacuum).
//
// Every job is updated several times on its way (claimed, started,
// finished), a canceled batch updates all of its jobs at once, and the
// dispatcher's partial indexes are read many times a second. Autovacuum
// keeps that in shape. A PostgreSQL whose autovacuum is off (the CI
// machines' configuration has it off; a DBA may turn it off for a nightly
// VACUUM instead) lets dead rows pile up: measured with bench-fair on such
// a server, A's rate alone fell from 32.7 to 22.7 levels/s over ten rounds
// (jobs held 247,000 dead rows beside 204,000 live ones), and the rounds'
// figures scattered; with autovacuum on it stayed at 29.5–33.4. So a store
// opened with VacuumIfNoAutovacuum does what autovacuum would: once every
// vacuumEvery, if autovacuum is off, it vacuums (and analyzes) the tables
// of its schema that passed autovacuum's default thresholds, one at a
// time, skipping a table another session holds (SKIP_LOCKED), so that a
// DBA's own VACUUM or another puzzled process never waits on it.

// vacuumEvery is how often the store looks: autovacuum_naptime's default.
const vacuumEvery = time.Minute

// dueTablesSQL lists the tables of the store's schema that autovacuum
// would vacuum (dead rows, or rows inserted since the last vacuum, over its
// default thresholds: autovacuum_vacuum_threshold 50 and scale factor 0.2,
// the insert threshold 1000 and scale factor 0.2) or analyze (rows changed
// since the last analyze over 50 and a tenth), with what is due.
// n_ins_since_vacuum needs PostgreSQL 13 or later.
const dueTablesSQL = `
	SELECT t.relname,
		t.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
			OR t.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) AS vacuum
	FROM pg_stat_user_tables t JOIN pg_class c ON c.oid = t.relid
	WHERE t.schemaname = current_schema()
		AND (t.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
			OR t.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0)
			OR t.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0))
	ORDER BY t.n_dead_tup DESC, t.relname`

// vacuumWhileNoAutovacuum runs until Close: every vacuumEvery, while
// autovacuum is off, VacuumDue. Like autovacuum, it first looks one
// vacuumEvery after the start (a short-lived process never does).
func (s *Store) vacuumWhileNoAutovacuum() {
	defer s.background.Done()
	ctx := s.closing
	tick := time.NewTicker(vacuumEvery)
	defer tick.Stop()
	standingIn := s.standInForAutovacuum(ctx, false)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if standingIn = s.standInForAutovacuum(ctx, standingIn); standingIn {
			if _, err := s.VacuumDue(ctx); err != nil && ctx.Err() == nil {
				s.logger.Warn("store: vacuum in autovacuum's stead", "err", err)
			}
		}
	}
}

// standInForAutovacuum reads whether autovacuum is off (the setting may
// change on a reload) and says so when that changes from was. On an error
// it keeps was.
func (s *Store) standInForAutovacuum(ctx context.Context, was bool) bool {
	var on bool
	if err := s.pool.QueryRow(ctx, `SELECT current_setting('autovacuum')::bool`).Scan(&on); err != nil {
		if ctx.Err() == nil {
			s.logger.Warn("store: read the autovacuum setting", "err", err)
		}
		return was
	}
	switch {
	case !on && !was:
		s.logger.Warn("store: PostgreSQL's autovacuum is off: puzzled vacuums and analyzes its own tables when autovacuum would (docs/service.md, \"When autovacuum is off\")")
	case on && was:
		s.logger.Info("store: PostgreSQL's autovacuum is on again: puzzled leaves its tables to it")
	}
	return !on
}

// VacuumDue vacuums and analyzes (or only analyzes) each table of the
// store's schema that autovacuum, had it been on, would have by its
// default thresholds, and returns their names. A table another session
// holds is skipped (SKIP_LOCKED) until the next look.
func (s *Store) VacuumDue(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, dueTablesSQL)
	if err != nil {
		return nil, fmt.Errorf("store: tables due for vacuum: %w", err)
	}
	type due struct {
		Name   string
		Vacuum bool
	}
	tables, err := pgx.CollectRows(rows, pgx.RowToStructByPos[due])
	if err != nil {
		return nil, fmt.Errorf("store: tables due for vacuum: %w", err)
	}
	var done []string
	for _, t := range tables {
		stmt := "ANALYZE (SKIP_LOCKED) "
		if t.Vacuum {
			stmt = "VACUUM (ANALYZE, SKIP_LOCKED) "
		}
		start := time.Now()
		if _, err := s.pool.Exec(ctx, stmt+pgx.Identifier{t.Name}.Sanitize()); err != nil {
			return done, fmt.Errorf("store: %s%s: %w", stmt, t.Name, err)
		}
		s.logger.Debug("store: vacuumed in autovacuum's stead", slog.String("table", t.Name),
			slog.Bool("vacuum", t.Vacuum), slog.Duration("took", time.Since(start)))
		done = append(done, t.Name)
	}
	return done, nil
}
