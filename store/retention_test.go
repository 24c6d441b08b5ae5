package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// TestCollectGarbage: a collection as of eight days later deletes what a
// seven-day retention lets go, and only that. Project "week" keeps each
// level's newest definitive result (the job holding it stays, with its
// batch's labels as its own), "purge" keeps nothing, "forever" sets no
// retention. Levels go with their last job of any project; live jobs and
// their batch stay; a second collection finds nothing more.
func TestCollectGarbage(t *testing.T) {
	t.Parallel()
	st, ctx, conn := setupConn(t)
	project := func(name string, r store.Retention) int64 { return retainingProject(t, st, name, r) }
	week := project("week", store.Retention{Keep: 7 * 24 * time.Hour})
	purge := project("purge", store.Retention{Keep: 7 * 24 * time.Hour, DropResults: true})
	forever := project("forever", store.Retention{})
	if err := st.SetRetention(ctx, forever, store.Retention{Keep: time.Minute}); err == nil {
		t.Fatal("SetRetention(1 minute) accepted; want an error (shorter than an hour)")
	}

	unknown := solver.Result{Verdict: solver.Unknown, Stats: solver.Stats{Nodes: 9}}
	unsolvable := solver.Result{Verdict: solver.Unsolvable, Optimal: true, Proof: "exhausted"}
	finish := func(id int64, res solver.Result) {
		t.Helper()
		run(t, st, id, "v1", res)
	}
	batch := func(p int64, labels string, levels ...store.Level) []int64 {
		t.Helper()
		id, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3, Project: p,
			Labels: []byte(labels)})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		rows, _ := conn.Query(ctx, `SELECT id FROM jobs WHERE batch_id = $1 ORDER BY seq`, id)
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	single := func(p int64, lvl store.Level, labels string) int64 {
		t.Helper()
		j, err := st.CreateJob(ctx, store.JobParams{Level: lvl, Priority: "interactive", MaxAttempts: 3, Project: p,
			Labels: []byte(labels)})
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	// Levels: a b c d e only in week; shared in week and forever; p only
	// in purge; live in week, never finished.
	a, b, c, d, e := twoends("1,2"), twoends("1,3"), twoends("1,4"), twoends("1,5"), twoends("1,6")
	shared, p, live := twoends("2,2"), twoends("2,3"), twoends("2,4")

	// week, batch 1 (labelled): a solved (superseded later), b unknown
	// only, c unsolvable (its newest definitive), d solved (a newer job
	// is unknown: still its newest definitive), shared unknown.
	b1 := batch(week, `{"game":"g1"}`, a, b, c, d, shared)
	finish(b1[0], solved(1))
	finish(b1[1], unknown)
	finish(b1[2], unsolvable)
	finish(b1[3], solved(2))
	finish(b1[4], unknown)
	// week, jobs one by one: a solved again (newer: kept instead), d
	// unknown, e unknown.
	aNew := single(week, a, `{"by":"ann"}`)
	finish(aNew, solved(1))
	finish(single(week, d, ""), unknown)
	finish(single(week, e, `{"by":"ann"}`), unknown)
	finish(single(week, c, `{"by":"cy"}`), unknown) // its label row of c goes with it
	// week, batch 2: one job done, one still queued: the batch stays.
	b2 := batch(week, `{"game":"g2"}`, b, live)
	finish(b2[0], unknown)
	// forever: shared solved.
	fv := batch(forever, `{"game":"g1"}`, shared)
	finish(fv[0], solved(3))
	// purge: p solved, alone and in a batch.
	finish(single(purge, p, `{"by":"bob"}`), solved(4))
	pb := batch(purge, `{"game":"g9"}`, p)
	finish(pb[0], solved(4))

	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	jobsBefore := count(`SELECT count(*) FROM jobs`)

	// A collection as of now deletes nothing: every job ended a moment ago.
	stats, err := st.CollectGarbage(ctx, time.Now(), store.GCOptions{Chunk: 2})
	if err != nil || stats != (store.GCStats{}) {
		t.Fatalf("CollectGarbage(now) = %+v, %v; want nothing", stats, err)
	}

	later := time.Now().Add(8 * 24 * time.Hour)
	stats, err = st.CollectGarbage(ctx, later, store.GCOptions{Chunk: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Deleted: week's b1 a (superseded), b and shared, its single c, d
	// and e, and purge's two jobs; b2 keeps all its jobs while one is live.
	// Kept: b1 c and d, single a. Levels gone: e and p.
	want := store.GCStats{Jobs: 8, Kept: 3, Batches: 2, Levels: 2}
	if stats != want {
		t.Errorf("CollectGarbage(+8 days) = %+v; want %+v", stats, want)
	}
	if got := count(`SELECT count(*) FROM jobs`); got != jobsBefore-want.Jobs {
		t.Errorf("%d jobs left; want %d", got, jobsBefore-want.Jobs)
	}
	gone := func(what string, q string, args ...any) {
		t.Helper()
		if n := count(q, args...); n != 0 {
			t.Errorf("%s: %d rows left; want none", what, n)
		}
	}
	kept := func(what string, q string, args ...any) {
		t.Helper()
		if n := count(q, args...); n == 0 {
			t.Errorf("%s: gone; want kept", what)
		}
	}
	// Levels e and p have no job any more: gone with their rows.
	for _, l := range []store.Level{e, p} {
		gone("level "+l.Hash[:8], `SELECT count(*) FROM levels WHERE hash = $1`, l.Hash)
		gone("level_labels of "+l.Hash[:8], `SELECT count(*) FROM level_labels WHERE level_hash = $1`, l.Hash)
		gone("level_verdicts of "+l.Hash[:8], `SELECT count(*) FROM level_verdicts WHERE hash = $1`, l.Hash)
	}
	// b still has b2's job; a, c, d their kept job; shared forever's.
	for _, l := range []store.Level{a, b, c, d, shared, live} {
		kept("level "+l.Hash[:8], `SELECT count(*) FROM levels WHERE hash = $1`, l.Hash)
	}
	gone("batch 1", `SELECT count(*) FROM batches WHERE id = (SELECT batch_id FROM jobs WHERE id = $1)`, b1[2])
	gone("batch 1's label rows", `SELECT count(*) FROM batch_labels WHERE value = 'g1' AND batch_id <> (SELECT batch_id FROM jobs WHERE id = $1)`, fv[0])
	kept("batch 2", `SELECT count(*) FROM batches b JOIN jobs j ON j.batch_id = b.id WHERE j.id = $1`, b2[1])
	gone("purge's jobs", `SELECT count(*) FROM jobs WHERE project_id = $1`, purge)
	gone("results of deleted jobs", `SELECT count(*) FROM results r WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE id = r.job_id)`)
	gone("label rows of deleted jobs", `SELECT count(*) FROM job_labels l WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE id = l.job_id)`)
	gone("verdict rows naming deleted jobs", `SELECT count(*) FROM level_verdicts v WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE id = v.result_job_id)`)
	kept("forever's job", `SELECT count(*) FROM jobs WHERE id = $1`, fv[0])
	// Level c stays (its kept job), without the label only a deleted job
	// carried; a's label row of its kept job's own label stays.
	gone("c's label by:cy", `SELECT count(*) FROM level_labels WHERE level_hash = $1 AND key = 'by'`, c.Hash)
	kept("a's label by:ann", `SELECT count(*) FROM level_labels WHERE level_hash = $1 AND key = 'by' AND value = 'ann'`, a.Hash)

	// Each level of week keeps its newest definitive result, read as a
	// user reads it; the kept batch job lists under its batch's label.
	for _, tc := range []struct {
		level   store.Level
		verdict solver.Verdict
	}{{a, solver.Solved}, {c, solver.Unsolvable}, {d, solver.Solved}} {
		lr, err := st.GetLevel(ctx, tc.level.Hash, []int64{week})
		if err != nil {
			t.Fatalf("GetLevel(%s): %v", tc.level.Hash[:8], err)
		}
		if lr.Result == nil || lr.Result.Verdict != tc.verdict {
			t.Errorf("level %s after gc: result %+v; want %s", tc.level.Hash[:8], lr.Result, tc.verdict)
		}
	}
	if _, err := st.GetLevel(ctx, b.Hash, []int64{week}); err != nil {
		t.Errorf("level b (b2 still has it): %v", err)
	}
	var listed []int64
	if err := st.ListJobs(ctx, store.JobFilter{Projects: []int64{week}, Labels: []store.Label{{Key: "game", Value: "g1"}}, Limit: 10},
		func(it store.JobListItem) error { listed = append(listed, it.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(listed) != fmt.Sprint([]int64{b1[3], b1[2]}) {
		t.Errorf("week's jobs labelled game:g1 after gc: %v; want the kept %v", listed, []int64{b1[3], b1[2]})
	}

	// Nothing more to do, even much later: the kept jobs stay.
	stats, err = st.CollectGarbage(ctx, later.Add(30*24*time.Hour), store.GCOptions{})
	if err != nil || stats.Jobs != 0 || stats.Batches != 0 || stats.Levels != 0 {
		t.Errorf("second CollectGarbage = %+v, %v; want nothing deleted", stats, err)
	}
}

// TestCollectGarbageOneAtATime: a collection while another holds the
// collector's lock returns ErrGCBusy and deletes nothing.
func TestCollectGarbageOneAtATime(t *testing.T) {
	t.Parallel()
	st, ctx, conn := setupConn(t)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(0x70757a7a6c656467)); err != nil {
		t.Fatal(err)
	}
	if err := st.SetRetention(ctx, store.DefaultProject, store.Retention{Keep: time.Hour}); err != nil {
		t.Fatal(err)
	}
	j := mustCreateJob(t, st, twoends("3,1"), "v1")
	run(t, st, j.ID, "v1", solver.Result{Verdict: solver.Unknown})
	if _, err := st.CollectGarbage(ctx, time.Now().Add(2*time.Hour), store.GCOptions{}); !errors.Is(err, store.ErrGCBusy) {
		t.Fatalf("CollectGarbage beside another = %v; want ErrGCBusy", err)
	}
	if _, err := st.GetJob(ctx, j.ID); err != nil {
		t.Fatalf("job after a busy collection: %v; want it kept", err)
	}
}

// setupConn is setupURL with a connection of the test's own to the same
// database, for what the store does not expose.
func setupConn(t *testing.T) (*store.Store, context.Context, *pgx.Conn) {
	t.Helper()
	st, ctx, url := setupURL(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return st, ctx, conn
}

// retainingProject creates project name with retention r.
func retainingProject(t *testing.T, st *store.Store, name string, r store.Retention) int64 {
	t.Helper()
	p, err := st.CreateProject(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetRetention(t.Context(), p.ID, r); err != nil {
		t.Fatal(err)
	}
	return p.ID
}
