package webhook_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/internal/webhook"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver/columns"
)

// Benchmarks of the webhooks, against the in-process stack of setup (real
// PostgreSQL, Redis and HTTP). Run them alone, once:
//
//	go test -run '^$' -bench . -benchtime 1x ./internal/webhook/

// arrivals records when each batch's final event first arrived.
type arrivals struct {
	mu sync.Mutex
	at map[int64]time.Time
	b  map[int64]wire.Batch
}

func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	body, _ := io.ReadAll(r.Body)
	var ev wire.Event
	var b wire.Batch
	if json.Unmarshal(body, &ev) != nil || json.Unmarshal(ev.Data, &b) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	if _, seen := a.at[b.ID]; !seen {
		a.at[b.ID], a.b[b.ID] = now, b
	}
	a.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (a *arrivals) get(id int64) (time.Time, wire.Batch, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := a.at[id]
	return at, a.b[id], ok
}

// BenchmarkWebhookLatency: 100 batches of one fresh level each, one after
// another, each with a callback; the time from the batch's last result
// (its finished_at, PostgreSQL's clock on this machine) to the arrival of
// batch.finished at the receiver. Reports p50 and p95 in ms.
func BenchmarkWebhookLatency(b *testing.B) {
	f := setup(b, "127.0.0.1", webhook.Config{Allow: mustAllow(b, "127.0.0.1")})
	rc := &arrivals{at: map[int64]time.Time{}, b: map[int64]wire.Batch{}}
	srv := httptest.NewServer(rc)
	b.Cleanup(srv.Close)
	ctx := b.Context()
	const batches = 100
	var lat []time.Duration
	b.ResetTimer()
	for i := range batches {
		id, err := f.c.CreateBatch(ctx, []json.RawMessage{twoends(int64(i), 7, -3, int64(i%5), 11)},
			jobtype.Options{Callbacks: []wire.Callback{{URL: srv.URL}}})
		if err != nil {
			b.Fatal(err)
		}
		var at time.Time
		var got wire.Batch
		waittest.WaitFor(b, time.Minute, fmt.Sprintf("batch %d's event", id), func() bool {
			var ok bool
			at, got, ok = rc.get(id)
			return ok
		})
		if got.FinishedAt == nil {
			b.Fatalf("batch %d: no finished_at in %+v", id, got)
		}
		lat = append(lat, at.Sub(*got.FinishedAt))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*95/100]), "p95-ms")
	b.ReportMetric(ms(lat[0]), "min-ms")
	b.Logf("last result → webhook arrival over %d batches: p50 %s, p95 %s, min %s, max %s",
		len(lat), lat[len(lat)/2], lat[len(lat)*95/100], lat[0], lat[len(lat)-1])
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkSolvingUnderFailingCallbacks: a batch of fresh columns levels
// (about 100 ms of search each) is timed from its creation to its last
// result, alone, then while 1,000 callbacks fail over and over (100
// finished batches with 10 callbacks each); three rounds of both, in the
// same run. Between rounds the receiver answers 204 and the queue drains.
// Reports the median batch times and their ratio, and the failed attempts
// per second. Two ways to fail:
//
//   - hang: the receiver never answers; every attempt waits for the 1 s
//     timeout, so all delivery slots are always busy (retries after 0.5–2 s);
//   - flood: the receiver answers 500 at once and attempts are retried every
//     10–50 ms (a thousand times faster than the real schedule): thousands
//     of attempts a second, each written to the delivery log.
func BenchmarkSolvingUnderFailingCallbacks(b *testing.B) {
	b.Run("hang", func(b *testing.B) {
		solvingUnderFailingCallbacks(b, true, webhook.Backoff{First: 500 * time.Millisecond, Max: 2 * time.Second, Retries: 100_000})
	})
	b.Run("flood", func(b *testing.B) {
		solvingUnderFailingCallbacks(b, false, webhook.Backoff{First: 10 * time.Millisecond, Max: 50 * time.Millisecond, Retries: 100_000})
	})
}

func solvingUnderFailingCallbacks(b *testing.B, hang bool, backoff webhook.Backoff) {
	f := setup(b, "127.0.0.1", webhook.Config{Allow: mustAllow(b, "127.0.0.1"), Backoff: backoff,
		Timeout: time.Second, Poll: time.Second})
	release := make(chan struct{})
	var mu sync.Mutex
	fail := false
	attempts := 0
	failedIDs := map[string]bool{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		defer mu.Unlock()
		if !fail {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		attempts++
		failedIDs[r.Header.Get(client.EventIDHeader)] = true
		if hang {
			mu.Unlock()
			select { // until the sender gives up (or the run ends)
			case <-r.Context().Done():
			case <-release:
			}
			mu.Lock()
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	b.Cleanup(receiver.Close)
	b.Cleanup(func() { close(release) })
	ctx := b.Context()
	rng := rand.New(rand.NewPCG(35, 1))
	batch := func() []json.RawMessage {
		var out []json.RawMessage
		for range 30 {
			lvl, err := columns.Generate(rng, columns.GenConfig{Width: 6, Height: 12, Rule: columns.RuleLines, Colors: 5,
				Fill: 0.3, Pieces: 14, Goal: columns.GoalScore, Score: 40})
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, lvl.Canonical())
		}
		return out
	}
	timeBatch := func() time.Duration {
		id, err := f.c.CreateBatch(ctx, batch(), jobtype.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var got wire.Batch
		waittest.WaitFor(b, 5*time.Minute, fmt.Sprintf("batch %d", id), func() bool {
			got, err = f.c.GetBatch(ctx, id)
			return err == nil && got.FinishedAt != nil
		})
		if got.States["done"] != got.Total {
			b.Fatalf("batch %+v", got)
		}
		return got.FinishedAt.Sub(got.CreatedAt)
	}
	setFailing := func(on bool) {
		mu.Lock()
		fail, attempts, failedIDs = on, 0, map[string]bool{}
		mu.Unlock()
	}
	startFailing := func() {
		setFailing(true)
		hooks := make([]wire.Callback, 10)
		for i := range hooks {
			hooks[i] = wire.Callback{URL: fmt.Sprintf("%s/fail/%d", receiver.URL, i)}
		}
		for range 100 {
			if _, err := f.c.CreateBatch(ctx, []json.RawMessage{twoends(1, 2, 3)}, jobtype.Options{Callbacks: hooks}); err != nil {
				b.Fatal(err)
			}
		}
		want := 1000
		if hang {
			want = 16 // the slots are full: the rest wait their turn
		}
		waittest.WaitFor(b, 5*time.Minute, "the callbacks to fail", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(failedIDs) >= want
		})
		// Every event made and handed to asynq: the emitter's burst of work
		// is over, and what is measured is the failing alone.
		waittest.WaitFor(b, 5*time.Minute, "1,000 deliveries in asynq", func() bool {
			n, err := f.insp.queueSizes()
			return err == nil && n >= 1000
		})
	}
	drain := func() {
		setFailing(false)
		waittest.WaitFor(b, 5*time.Minute, "the webhook queue to drain", func() bool {
			n, err := f.insp.queueSizes()
			return err == nil && n == 0
		})
	}
	timeBatch() // warm up; twoends(1, 2, 3) gets solved and cached for the failing batches
	if _, err := f.c.CreateJob(ctx, twoends(1, 2, 3), jobtype.Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var alone, loaded []time.Duration
	for round := range 3 {
		alone = append(alone, timeBatch())
		startFailing()
		start := time.Now()
		loaded = append(loaded, timeBatch())
		mu.Lock()
		rate := float64(attempts) / time.Since(start).Seconds()
		mu.Unlock()
		b.Logf("round %d: alone %s; with 1,000 callbacks failing %s (%.0f failed attempts/s meanwhile)",
			round, alone[round], loaded[round], rate)
		drain()
	}
	b.StopTimer()
	slices.Sort(alone)
	slices.Sort(loaded)
	b.ReportMetric(ms(alone[1]), "alone-ms")
	b.ReportMetric(ms(loaded[1]), "failing-ms")
	b.ReportMetric(float64(loaded[1])/float64(alone[1]), "ratio")
}
