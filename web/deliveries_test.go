package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
)

// TestBatchPageShowsDeliveries: a batch with a callback whose receiver
// answers 500 once, then 200. Its page lists the event delivered and both
// attempts, newest first; Redeliver sends the event again and the page
// shows the third attempt as a redelivery.
func TestBatchPageShowsDeliveries(t *testing.T) {
	base, c := startDev(t, "PUZZLED_WEBHOOK_ALLOW_HOSTS=127.0.0.1", "PUZZLED_WEBHOOK_RETRY=10ms,20ms,2")
	var mu sync.Mutex
	attempts := 0
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		attempts++
		if attempts == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(recv.Close)
	ctx := t.Context()
	if _, err := c.CreateWebhookSecret(ctx); err != nil {
		t.Fatal(err)
	}
	id, err := c.CreateBatch(ctx, []json.RawMessage{json.RawMessage(`{"kind":"twoends","values":[3,1,2,7]}`)},
		jobtype.Options{Callbacks: []wire.Callback{{URL: recv.URL + "/hook"}}})
	if err != nil {
		t.Fatal(err)
	}
	// On failure, what the API and the receiver saw, beside the page's
	// screenshot (a loaded CI run once showed no second attempt).
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		mu.Lock()
		got := attempts
		mu.Unlock()
		d, err := c.BatchDeliveries(context.Background(), id)
		t.Logf("the receiver got %d request(s); GET /v1/batches/%d/deliveries: %+v (%v)", got, id, d, err)
	})
	b := newBrowser(t, base)
	tb := b.open(t, "deliveries", "/ui/batches/"+strconv.FormatInt(id, 10))
	tb.run(t, shown(`#deliveries tr[data-state="delivered"]`))
	if n := tb.count(t, `#delivery-attempts tbody tr`); n != 2 {
		t.Fatalf("%d attempts shown, want 2:\n%s", n, tb.text(t, "#deliveries"))
	}
	text := tb.text(t, "#deliveries")
	for _, want := range []string{"batch.finished", recv.URL + "/hook", "HTTP 500", "200"} {
		if !strings.Contains(text, want) {
			t.Errorf("the deliveries lack %q:\n%s", want, text)
		}
	}
	tb.run(t, clickNow(`#deliveries tr[data-state="delivered"] button`),
		shown(`#delivery-attempts tr[data-redelivery="1"][data-ok="true"]`))
	if got := tb.text(t, `#delivery-attempts tr[data-redelivery="1"]`); !strings.Contains(got, "3 (redelivery 1)") {
		t.Errorf("the redelivery's row: %q", got)
	}
	tb.noErrors(t)
}
