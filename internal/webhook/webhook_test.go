package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/contracttest"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/internal/webhook"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/worker"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

// fastRetries retries twice, milliseconds apart: the schedule is injected,
// so that no test waits for real backoff.
var fastRetries = webhook.Backoff{First: 5 * time.Millisecond, Max: 20 * time.Millisecond, Retries: 2}

// fixture is an API, a worker and the webhooks of a worker process, all
// in-process on a database and Redis DB of the test's own, and a client
// whose token has a webhook secret.
type fixture struct {
	c      *client.Client
	store  *store.Store
	secret string
	logs   *syncBuffer
	insp   inspector
}

// syncBuffer collects log lines from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type inspector struct{ qc *queue.Client }

// queueSizes counts the webhook tasks asynq still holds in any state but
// archived (archived ones failed for good and are recorded as such).
func (i inspector) queueSizes() (int, error) {
	info, err := i.qc.Inspector().GetQueueInfo(queue.Webhooks)
	if err != nil {
		if strings.Contains(err.Error(), "does not exist") {
			return 0, nil
		}
		return 0, err
	}
	return info.Pending + info.Active + info.Scheduled + info.Retry, nil
}

// setup starts everything; apiAllow is the API's allow-list (which
// callback URLs it accepts), hooks the webhook settings of the worker
// process (its own allow-list among them).
func setup(t testing.TB, apiAllow string, hooks webhook.Config) *fixture {
	t.Helper()
	ctx := t.Context()
	dbURL := envtest.PostgresURL(t)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := store.Migrate(ctx, dbURL, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dbURL, store.OpenOpts{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	wst, err := store.Open(ctx, dbURL, store.OpenOpts{AsyncCommit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wst.Close)
	addr, db := envtest.RedisAddr(t)
	opt, _ := queue.RedisOpt(addr, db)
	qc := queue.NewClient(opt)
	t.Cleanup(func() { qc.Close() })

	allow, err := webhook.ParseAllowList(apiAllow)
	if err != nil {
		t.Fatal(err)
	}
	srv := api.New(api.Config{Store: st, Queue: qc, Registry: kinds.Registry(), Logger: logger, Limits: api.Limits{SubmitRate: 1000},
		Webhooks: webhook.Config{Allow: allow, Backoff: hooks.Backoff}})
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(contracttest.Handler(t, srv))
	t.Cleanup(hs.Close)

	wctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	w := worker.New(worker.Config{Store: wst, Registry: kinds.Registry(), Logger: logger})
	d := queue.NewDispatcher(queue.DispatcherConfig{Store: wst, Client: qc, Poll: 20 * time.Millisecond})
	wg.Go(func() { _ = worker.Serve(wctx, w, worker.ServeConfig{Redis: opt, Concurrency: 2, Dispatcher: d}) })
	hooks.Logger = logger
	wg.Go(func() {
		if err := webhook.Run(wctx, wst, qc, opt, hooks); err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(func() { stop(); wg.Wait() })

	c := client.New(hs.URL)
	c.HTTP = &http.Client{Transport: contracttest.Transport(t, nil)}
	sec, err := c.CreateWebhookSecret(ctx)
	if err != nil || !strings.HasPrefix(sec.Secret, "whsec_") {
		t.Fatalf("secret %+v, %v", sec, err)
	}
	return &fixture{c: c, store: st, secret: sec.Secret, logs: logs, insp: inspector{qc}}
}

// receiver is a webhook endpoint: it verifies every signature, counts the
// attempts of each event id, and takes each event once (the first attempt
// it answers 2xx), as a receiver that drops repeats by id would.
type receiver struct {
	t       testing.TB
	secret  string
	respond func(attempt int) int // the status of an event's n-th attempt (1-based)

	mu       sync.Mutex
	attempts map[string]int
	taken    map[string]wire.Event
	order    []string // ids taken, in order
}

func newReceiver(t testing.TB, secret string, respond func(int) int) (*receiver, string) {
	r := &receiver{t: t, secret: secret, respond: respond, attempts: map[string]int{}, taken: map[string]wire.Event{}}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if err := client.VerifyWebhook(rc.secret, r.Header.Get(client.SignatureHeader), body, time.Now(), 0); err != nil {
		rc.t.Errorf("receiver: bad signature %q: %v", r.Header.Get(client.SignatureHeader), err)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var ev wire.Event
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" || r.Header.Get(client.EventIDHeader) != ev.ID {
		rc.t.Errorf("receiver: bad event %s: %v", body, err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.attempts[ev.ID]++
	status := rc.respond(rc.attempts[ev.ID])
	if status < 300 {
		if _, seen := rc.taken[ev.ID]; !seen {
			rc.taken[ev.ID] = ev
			rc.order = append(rc.order, ev.ID)
		}
	}
	w.WriteHeader(status)
}

// events returns the events taken, in order.
func (rc *receiver) events() []wire.Event {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]wire.Event, len(rc.order))
	for i, id := range rc.order {
		out[i] = rc.taken[id]
	}
	return out
}

func (rc *receiver) attemptsOf(id string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.attempts[id]
}

// waitFor waits until an event of type typ was taken, and returns it.
func (rc *receiver) waitFor(typ string) wire.Event {
	rc.t.Helper()
	var got wire.Event
	waittest.WaitFor(rc.t, time.Minute, "a "+typ+" event", func() bool {
		for _, e := range rc.events() {
			if e.Type == typ {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

func twoends(v ...int64) json.RawMessage {
	data, _ := json.Marshal(map[string]any{"kind": "twoends", "values": v})
	return data
}

// jobsReported collects the jobs of the batch.jobs_finished events.
func jobsReported(t *testing.T, events []wire.Event) map[int64]wire.FinishedJob {
	t.Helper()
	out := map[int64]wire.FinishedJob{}
	for _, e := range events {
		if e.Type != wire.EventBatchJobsFinished {
			continue
		}
		var data wire.JobsFinished
		if err := json.Unmarshal(e.Data, &data); err != nil {
			t.Fatal(err)
		}
		for _, j := range data.Jobs {
			if _, dup := out[j.JobID]; dup {
				t.Fatalf("job %d reported twice", j.JobID)
			}
			out[j.JobID] = j
		}
	}
	return out
}

// TestEventsOnceDespiteErrors: a receiver that answers 500 twice before
// 200 gets every event three times, signed, under one id; it takes each
// once. Job events report each job once (cached ones too), then
// batch.finished; a job outside a batch gets job.finished; the delivery log
// shows the attempts; a redelivery sends the same event again.
func TestEventsOnceDespiteErrors(t *testing.T) {
	t.Parallel()
	f := setup(t, "127.0.0.1", webhook.Config{Allow: mustAllow(t, "127.0.0.1"), Backoff: fastRetries,
		JobEventsMin: 2, JobEventsWait: 20 * time.Millisecond, Poll: 200 * time.Millisecond})
	rc, url := newReceiver(t, f.secret, func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	ctx := t.Context()
	// A level solved before: its job in the batch is done from the cache
	// when the batch is stored, before any worker sees it.
	if _, err := f.c.CreateJob(ctx, twoends(9, 9, 9), jobtype.Options{}); err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "the first level to be solved", func() bool {
		j, err := f.c.CreateJob(ctx, twoends(9, 9, 9), jobtype.Options{})
		return err == nil && j.Cached
	})
	levels := []json.RawMessage{twoends(9, 9, 9)}
	for i := range 7 {
		levels = append(levels, twoends(int64(i), 5, -2, int64(3*i)))
	}
	id, err := f.c.CreateBatch(ctx, levels, jobtype.Options{Callbacks: []wire.Callback{{URL: url + "/hook", JobEvents: true}}})
	if err != nil {
		t.Fatal(err)
	}
	final := rc.waitFor(wire.EventBatchFinished)
	var b wire.Batch
	if err := json.Unmarshal(final.Data, &b); err != nil || b.ID != id || b.States["done"] != 8 || b.Cached < 1 || b.FinishedAt == nil {
		t.Fatalf("batch.finished data %s: %v", final.Data, err)
	}
	// Made last; with retries, events may arrive in another order: a job
	// event's third attempt can come after batch.finished's on a busy
	// machine, so the test waits for every job to be reported.
	var events []wire.Event
	waittest.WaitFor(t, time.Minute, "every job of the batch to be reported", func() bool {
		events = rc.events()
		return len(jobsReported(t, events)) >= len(levels)
	})
	for _, e := range events {
		if e.CreatedAt.After(final.CreatedAt) {
			t.Errorf("event %s (%s) was made after batch.finished", e.ID, e.Type)
		}
	}
	reported := jobsReported(t, events)
	var results []wire.BatchResult
	if err := f.c.BatchResults(ctx, id, func(r wire.BatchResult) error { results = append(results, r); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		j, ok := reported[r.JobID]
		if !ok || j.Seq != r.Seq || j.State != jobtype.Done || j.Verdict != "solved" || j.Cached != r.Cached {
			t.Fatalf("job %d (seq %d): reported %+v (%v)", r.JobID, r.Seq, j, ok)
		}
	}
	if len(reported) != len(results) {
		t.Fatalf("%d jobs reported, batch has %d", len(reported), len(results))
	}
	for _, e := range events {
		if n := rc.attemptsOf(e.ID); n != 3 {
			t.Errorf("event %s (%s) came %d times, want 3 (500, 500, 200)", e.ID, e.Type, n)
		}
	}

	// The delivery log: every event delivered at its third attempt.
	var log wire.Deliveries
	waittest.WaitFor(t, time.Minute, "the log to show every event delivered", func() bool {
		if log, err = f.c.BatchDeliveries(ctx, id); err != nil {
			t.Fatal(err)
		}
		for _, e := range log.Events {
			if e.State != "delivered" {
				return false
			}
		}
		return len(log.Events) == len(events)
	})
	statuses := map[string][]int32{}
	for _, d := range slices.Backward(log.Deliveries) {
		statuses[d.EventID] = append(statuses[d.EventID], *d.StatusCode)
		if (d.Error == nil) != (*d.StatusCode == 200) || d.URL != url+"/hook" {
			t.Fatalf("delivery %+v", d)
		}
	}
	for _, e := range log.Events {
		if e.Attempts != 3 || fmt.Sprint(statuses[e.ID]) != "[500 500 200]" || e.DeliveredAt == nil {
			t.Fatalf("event %+v: attempts %v", e, statuses[e.ID])
		}
	}
	waittest.WaitFor(t, time.Minute, "asynq to hold no webhook task", func() bool {
		n, err := f.insp.queueSizes()
		return err == nil && n == 0
	})

	t.Run("redeliver", func(t *testing.T) {
		e, err := f.c.Redeliver(ctx, final.ID)
		if err != nil || e.State != "pending" || e.Redeliveries != 1 {
			t.Fatalf("redeliver: %+v, %v", e, err)
		}
		waittest.WaitFor(t, time.Minute, "the redelivery", func() bool { return rc.attemptsOf(final.ID) == 4 })
		waittest.WaitFor(t, time.Minute, "the log to show it", func() bool {
			log, err := f.c.BatchDeliveries(ctx, id)
			return err == nil && log.Deliveries[0].EventID == final.ID && log.Deliveries[0].Redelivery == 1 &&
				log.Deliveries[0].Attempt == 4
		})
		if len(rc.events()) != len(events) {
			t.Fatal("the redelivered event was taken as a new one")
		}
		if _, err := f.c.Redeliver(ctx, "evt_nope"); client.StatusOf(err) != http.StatusNotFound {
			t.Fatalf("redeliver of an unknown event: %v", err)
		}
	})

	t.Run("a job outside a batch", func(t *testing.T) {
		j, err := f.c.CreateJob(ctx, twoends(4, 4, 1), jobtype.Options{Callbacks: []wire.Callback{{URL: url + "/job"}}})
		if err != nil {
			t.Fatal(err)
		}
		ev := rc.waitFor(wire.EventJobFinished)
		var got wire.Job
		if err := json.Unmarshal(ev.Data, &got); err != nil || got.ID != j.ID || got.State != jobtype.Done ||
			got.Result == nil || got.Result.Verdict != solver.Solved || got.Result.Plan != nil {
			t.Fatalf("job.finished data %s: %v", ev.Data, err)
		}
		log, err := f.c.JobDeliveries(ctx, j.ID)
		if err != nil || len(log.Events) != 1 || log.Events[0].ID != ev.ID {
			t.Fatalf("job log %+v, %v", log, err)
		}
	})
}

// slowColumns is a columns level whose search runs until its budget: a
// score out of reach.
func slowColumns(t *testing.T, seed uint64) json.RawMessage {
	t.Helper()
	lvl, err := columns.Generate(rand.New(rand.NewPCG(seed, 7)), columns.GenConfig{Width: 8, Height: 14,
		Rule: columns.RuleLines, Colors: 6, Fill: 0.4, Pieces: 200, Goal: columns.GoalScore, Score: 5000})
	if err != nil {
		t.Fatal(err)
	}
	return lvl.Canonical()
}

// TestCanceledBatch: the jobs a cancel ends are never reported; the jobs
// that finished before it are, and batch.canceled comes once.
func TestCanceledBatch(t *testing.T) {
	t.Parallel()
	f := setup(t, "127.0.0.1", webhook.Config{Allow: mustAllow(t, "127.0.0.1"), Backoff: fastRetries,
		JobEventsMin: 1, JobEventsWait: 20 * time.Millisecond, Poll: 200 * time.Millisecond})
	rc, url := newReceiver(t, f.secret, func(int) int { return http.StatusNoContent })
	ctx := t.Context()
	// The first level is done from the cache when the batch is stored (a
	// bundle stores its jobs' results together, so a fast level next to
	// slow ones would wait for them); the others search until canceled.
	if _, err := f.c.CreateJob(ctx, twoends(1, 2, 3), jobtype.Options{}); err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "the first level to be solved", func() bool {
		j, err := f.c.CreateJob(ctx, twoends(1, 2, 3), jobtype.Options{})
		return err == nil && j.Cached
	})
	levels := []json.RawMessage{twoends(1, 2, 3)}
	for i := range 5 {
		levels = append(levels, slowColumns(t, uint64(i+1)))
	}
	id, err := f.c.CreateBatch(ctx, levels, jobtype.Options{Budget: solver.Budget{MaxMS: 120_000},
		Callbacks: []wire.Callback{{URL: url, JobEvents: true}}})
	if err != nil {
		t.Fatal(err)
	}
	ev := rc.waitFor(wire.EventBatchJobsFinished)
	var first wire.JobsFinished
	if err := json.Unmarshal(ev.Data, &first); err != nil || len(first.Jobs) != 1 || first.Jobs[0].Seq != 0 {
		t.Fatalf("first job event %s: %v", ev.Data, err)
	}
	if n, err := f.c.CancelBatch(ctx, id); err != nil || n != 5 {
		t.Fatalf("cancel: %d, %v", n, err)
	}
	final := rc.waitFor(wire.EventBatchCanceled)
	var b wire.Batch
	if err := json.Unmarshal(final.Data, &b); err != nil || b.States["canceled"] != 5 || b.States["done"] != 1 || b.CanceledAt == nil {
		t.Fatalf("batch.canceled data %s: %v", final.Data, err)
	}
	// Nothing comes after the final event: the callback is finished, and
	// its log holds exactly these two events.
	log, err := f.c.BatchDeliveries(ctx, id)
	if err != nil || len(log.Events) != 2 {
		t.Fatalf("log %+v, %v", log, err)
	}
	reported := jobsReported(t, rc.events())
	if len(reported) != 1 || reported[first.Jobs[0].JobID].State != jobtype.Done {
		t.Fatalf("reported %+v", reported)
	}
	for _, e := range rc.events() {
		if e.Type == wire.EventBatchFinished {
			t.Fatal("a canceled batch sent batch.finished")
		}
	}
}

// TestDeliveryRefusals: a callback whose host the worker's allow-list no
// longer has, one that redirects to another host, one that answers too
// slowly and one whose answer is too large: each is refused, and the
// delivery log and the worker's log say why. The API refuses callbacks
// outside its allow-list, and callbacks of a token without a secret.
func TestDeliveryRefusals(t *testing.T) {
	t.Parallel()
	f := setup(t, "127.0.0.1,localhost", webhook.Config{Allow: mustAllow(t, "127.0.0.1"), Backoff: fastRetries,
		Timeout: 300 * time.Millisecond, MaxResponse: 1024, Poll: 200 * time.Millisecond})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "http://localhost:9/elsewhere", http.StatusTemporaryRedirect)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case "/huge":
			_, _ = w.Write(bytes.Repeat([]byte("x"), 1<<20))
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	ctx := t.Context()

	for i, c := range []struct {
		name, url, want string
		attempts        int32
	}{
		{"a host the worker does not allow", "http://localhost" + port + "/ok", "refused: host localhost is not in the allow-list", 1},
		{"a redirect to another host", srv.URL + "/redirect", "refused: redirect to another host (localhost:9) not followed", 1},
		{"a slow answer", srv.URL + "/slow", "timeout", 3},
		{"a huge answer", srv.URL + "/huge", "answer over 1024 bytes", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, err := f.c.CreateBatch(ctx, []json.RawMessage{twoends(int64(i), 1)}, jobtype.Options{Callbacks: []wire.Callback{{URL: c.url}}})
			if err != nil {
				t.Fatal(err)
			}
			var log wire.Deliveries
			waittest.WaitFor(t, time.Minute, "the event to fail", func() bool {
				log, err = f.c.BatchDeliveries(ctx, id)
				return err == nil && len(log.Events) == 1 && log.Events[0].State == "failed"
			})
			e := log.Events[0]
			if e.Attempts != c.attempts || len(log.Deliveries) != int(c.attempts) || e.LastError == nil || !strings.Contains(*e.LastError, c.want) {
				t.Fatalf("event %+v (last error %v), %d deliveries; want %d attempts failing with %q", e, deref(e.LastError), len(log.Deliveries), c.attempts, c.want)
			}
			for _, d := range log.Deliveries {
				if d.Error == nil || !strings.Contains(*d.Error, c.want) {
					t.Fatalf("delivery %+v", d)
				}
			}
			// The worker records the attempt, then logs it: the log line may
			// follow the recorded failure by a moment.
			waittest.WaitFor(t, time.Minute, "the worker's log to say that "+e.ID+" failed", func() bool {
				return strings.Contains(f.logs.String(), `"msg":"webhook failed for good","event_id":"`+e.ID+`"`)
			})
		})
	}

	t.Run("the API refuses", func(t *testing.T) {
		for _, c := range []struct {
			url, field string
		}{
			{"http://10.9.8.7/hook", "callbacks[0].url"},
			{"https://example.com/hook", "callbacks[0].url"},
			{"file:///etc/passwd", "callbacks[0].url"},
		} {
			_, err := f.c.CreateBatch(ctx, []json.RawMessage{twoends(1)}, jobtype.Options{Callbacks: []wire.Callback{{URL: c.url}}})
			var apiErr *client.Error
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Field != c.field {
				t.Errorf("%s: %v", c.url, err)
			}
		}
		_, err := f.c.CreateJob(ctx, twoends(1), jobtype.Options{Callbacks: []wire.Callback{{URL: srv.URL, JobEvents: true}}})
		if client.StatusOf(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "only a batch has job events") {
			t.Errorf("job events of a job: %v", err)
		}
		// Revoke the only secret: callbacks are refused, nothing to sign with.
		secrets, err := f.c.WebhookSecrets(ctx)
		if err != nil || len(secrets) != 1 || secrets[0].Secret != "" || !strings.HasSuffix(f.secret, strings.TrimPrefix(secrets[0].Hint, secrets[0].Hint[:len(secrets[0].Hint)-4])) {
			t.Fatalf("secrets %+v, %v", secrets, err)
		}
		if _, err := f.c.RevokeWebhookSecret(ctx, secrets[0].ID); err != nil {
			t.Fatal(err)
		}
		_, err = f.c.CreateBatch(ctx, []json.RawMessage{twoends(1)}, jobtype.Options{Callbacks: []wire.Callback{{URL: srv.URL}}})
		if client.StatusOf(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "no webhook secret") {
			t.Errorf("without a secret: %v", err)
		}
	})
}

func mustAllow(t testing.TB, s string) webhook.AllowList {
	t.Helper()
	a, err := webhook.ParseAllowList(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
