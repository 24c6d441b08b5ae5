package store_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/store"
)

// A batch writes its new levels on a second connection when the pool has
// one (batch_levels.go), and in its own transaction when not: either way
// the levels it creates carry its time, a batch that fails leaves no
// level behind, and batches that share levels and compete for a small
// pool all get through.
func TestBatchLevelsOnASecondConnection(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxConns int32
	}{
		{"one connection: the levels in the batch's transaction", 1},
		{"a second connection for the levels", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			url := envtest.PostgresURL(t)
			if err := store.Migrate(ctx, url, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			st, err := store.Open(ctx, url, store.OpenOpts{MaxConns: tc.maxConns})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.Close)
			db, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close(context.Background()) })
			count := func(q string, args ...any) int {
				t.Helper()
				var n int
				if err := db.QueryRow(ctx, q, args...).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}

			old := mustCreateJob(t, st, twoends("9, 9"), "twoends/1")
			id, err := st.CreateBatch(ctx, store.BatchParams{
				Levels:   []store.Level{twoends("1, 2"), twoends("9, 9"), twoends("3, 4"), twoends("1, 2"), twoends("5, 6")},
				Priority: "bulk", MaxAttempts: 3, Labels: []byte(`{"chapter":"1"}`),
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := count(`SELECT count(*) FROM jobs WHERE batch_id = $1`, id); n != 5 {
				t.Errorf("jobs of the batch = %d, want 5", n)
			}
			// The three levels the batch created carry its time (the level
			// lists find them through it); the one it found keeps its own.
			if n := count(`SELECT count(*) FROM levels l JOIN batches b ON b.created_at = l.created_at WHERE b.id = $1`, id); n != 3 {
				t.Errorf("levels with the batch's time = %d, want 3", n)
			}
			if n := count(`SELECT count(*) FROM levels l JOIN jobs j ON j.level_hash = l.hash AND j.created_at = l.created_at WHERE j.id = $1`, old.ID); n != 1 {
				t.Errorf("the level that existed before the batch lost its time")
			}

			// A labelled batch of levels stored before it created none
			// (batch_labels.creates_levels); the label lists the levels of
			// both batches, those the first created and those it found.
			again, err := st.CreateBatch(ctx, store.BatchParams{
				Levels: []store.Level{twoends("3, 4"), twoends("9, 9")}, Priority: "bulk", MaxAttempts: 3,
				Labels: []byte(`{"chapter":"1"}`),
			})
			if err != nil {
				t.Fatal(err)
			}
			for batch, want := range map[int64]bool{id: true, again: false} {
				var creates bool
				if err := db.QueryRow(ctx, `SELECT creates_levels FROM batch_labels WHERE batch_id = $1`, batch).Scan(&creates); err != nil || creates != want {
					t.Errorf("batch %d creates_levels = %v (%v), want %v", batch, creates, err, want)
				}
			}
			listed := 0
			if err := st.ListLevels(ctx, store.LevelFilter{Labels: []store.Label{{Key: "chapter", Value: "1"}}, Limit: 100},
				func(store.LevelListItem) error { listed++; return nil }); err != nil || listed != 4 {
				t.Errorf("levels labelled chapter 1: %d (%v), want 4", listed, err)
			}

			levels := count(`SELECT count(*) FROM levels`)
			tooMany := 1_000_000
			for _, fail := range []struct {
				name string
				p    store.BatchParams
			}{
				{"the options after the levels refused", store.BatchParams{
					Levels:   []store.Level{twoends("7, 8"), twoends("1, 2")},
					Finish:   func(*store.BatchParams) error { return errors.New("refused") },
					Priority: "bulk", MaxAttempts: 3,
				}},
				{"the jobs refused after the levels went in", store.BatchParams{
					Levels:   []store.Level{twoends("7, 11"), twoends("7, 12")},
					Playouts: &tooMany, // jobs' CHECK
					Priority: "bulk", MaxAttempts: 3,
				}},
				{"the upload cut after a level", store.BatchParams{
					Stream:   &cutStream{levels: []store.Level{twoends("7, 9"), twoends("7, 10")}, after: 1},
					Priority: "bulk", MaxAttempts: 3,
				}},
			} {
				if _, err := st.CreateBatch(ctx, fail.p); err == nil {
					t.Fatalf("%s: the batch was stored", fail.name)
				}
				if n := count(`SELECT count(*) FROM levels`); n != levels {
					t.Errorf("%s: %d levels after the failed batch, want %d", fail.name, n, levels)
				}
			}

			// Batches that share levels, more at once than the pool has
			// connections: none waits for ever on a second connection.
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := range 8 {
				wg.Go(func() {
					var ls []store.Level
					for k := range 50 {
						ls = append(ls, twoends(fmt.Sprintf("%d, %d", 100+k, 200+(i+k)%10)))
					}
					_, err := st.CreateBatch(ctx, store.BatchParams{Levels: ls, Priority: "bulk", MaxAttempts: 3})
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			if n := count(`SELECT count(*) FROM jobs j LEFT JOIN levels l ON l.hash = j.level_hash WHERE l.hash IS NULL`); n != 0 {
				t.Errorf("%d jobs without their level", n)
			}
		})
	}
}

// cutStream yields its first after levels, then fails as an upload cut
// short does.
type cutStream struct {
	levels []store.Level
	after  int
	i      int
}

func (c *cutStream) Next() (store.Level, error) {
	if c.i == c.after {
		return store.Level{}, errors.New("upload cut")
	}
	c.i++
	return c.levels[c.i-1], nil
}
