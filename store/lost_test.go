package store_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/store"
)

// RecoverLost sends solo, under a new recovery, the jobs of lost tasks
// that no worker holds (a bundle never claimed, a job never started), and
// leaves the rest: a claimed bundle, a started job, a task whose job has
// recovered since. A task found lost twice recovers its jobs once.
func TestRecoverLostSendsOnlyUnheldJobsSolo(t *testing.T) {
	t.Parallel()
	st, ctx, url := setupURL(t)
	levels := make([]store.Level, 2*store.BundleSize)
	for i := range levels {
		levels[i] = twoends(strconv.Itoa(i + 1))
	}
	batch, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3,
		Versions: map[string]string{"twoends": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if claimed, err := st.ClaimBundle(ctx, batch, store.BundleSize, 2*store.BundleSize, testOwner); err != nil || len(claimed) != store.BundleSize {
		t.Fatalf("claim of the second bundle: %d jobs, %v", len(claimed), err)
	}
	lone := mustCreateJob(t, st, twoends("7,1,9"), "v")
	started := mustCreateJob(t, st, twoends("7,1,8"), "v")
	if _, err := startJob(ctx, st, started.ID); err != nil {
		t.Fatal(err)
	}
	jobs := []store.LostJob{{ID: lone.ID}, {ID: started.ID}}
	bundles := []store.BundleKey{{BatchID: batch, FirstSeq: 0}, {BatchID: batch, FirstSeq: store.BundleSize}}

	ids, err := st.RecoverLost(ctx, jobs, bundles)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var want []int64
	rows, err := conn.Query(ctx, `SELECT id FROM jobs WHERE batch_id = $1 AND seq < $2 UNION ALL SELECT $3::bigint`,
		batch, store.BundleSize, lone.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("recovered %d jobs %v…; want the first bundle's %d and the lone job", len(ids), ids[:min(len(ids), 5)], len(want)-1)
	}
	var sentSolo, untouched, bundlesLeft int
	if err := conn.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE solo AND recoveries = 1 AND enqueued_at IS NULL AND worker_id IS NULL AND state = 'queued'),
			count(*) FILTER (WHERE NOT solo AND recoveries = 0 OR id = $2 AND recoveries = 0 AND worker_id IS NOT NULL),
			(SELECT count(*) FROM bundles WHERE batch_id = $1)
		FROM jobs`, batch, started.ID).Scan(&sentSolo, &untouched, &bundlesLeft); err != nil {
		t.Fatal(err)
	}
	if sentSolo != len(want) || untouched != store.BundleSize+1 || bundlesLeft != 1 {
		t.Errorf("%d jobs sent solo (want %d), %d untouched (want the claimed bundle's %d and the started job), %d bundles left (want 1)",
			sentSolo, len(want), untouched, store.BundleSize, bundlesLeft)
	}
	// Found lost again (asynq has not taken the task back yet): nothing.
	if again, err := st.RecoverLost(ctx, jobs, bundles); err != nil || len(again) != 0 {
		t.Errorf("the same lost tasks again: recovered %v, %v; want none", again, err)
	}
	// The job's new task (job:<id>:r1) lost in its turn: recovered again.
	if again, err := st.RecoverLost(ctx, []store.LostJob{{ID: lone.ID, Recoveries: 1}}, nil); err != nil || !slices.Equal(again, []int64{lone.ID}) {
		t.Errorf("the recovered job's task lost: recovered %v, %v; want the job", again, err)
	}
}
