package webhook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/client"
)

func TestAllowList(t *testing.T) {
	t.Parallel()
	a, err := ParseAllowList(" hooks.example.com, *.studio.test ,203.0.113.7, 10.1.0.0/16, [::1] ")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url, refusal string // "" when allowed
	}{
		{"https://hooks.example.com/puzzled", ""},
		{"http://HOOKS.example.com.:8080/x?y=1", ""},
		{"https://ci.studio.test/hook", ""},
		{"https://a.b.studio.test/hook", ""},
		{"https://studio.test/hook", "host studio.test is not in the allow-list"},
		{"https://example.com/", "host example.com is not in the allow-list"},
		{"http://203.0.113.7:9000/", ""},
		{"http://10.1.2.3/", ""},
		{"http://10.2.0.1/", "address 10.2.0.1 is not in the allow-list"},
		{"http://127.0.0.1/", "address 127.0.0.1 is not in the allow-list"},
		{"http://[::1]:8080/", ""},
		{"http://[::ffff:10.1.0.9]/", ""},
		{"ftp://hooks.example.com/", `scheme "ftp"`},
		{"https://user:pw@hooks.example.com/", "credentials in the URL"},
		{"/relative", "not an absolute"},
		{"https://hooks.example.com/" + strings.Repeat("x", 2100), "over 2048 bytes"},
	} {
		_, err := a.CheckURL(c.url)
		switch {
		case c.refusal == "" && err != nil:
			t.Errorf("%s: %v", c.url, err)
		case c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.refusal) || !IsRefused(err)):
			t.Errorf("%s: %v, want a refusal with %q", c.url, err, c.refusal)
		}
	}
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34", true}, // public
		{"10.1.200.1", true},    // listed network
		{"10.3.0.1", false},     // private
		{"127.0.0.1", false},
		{"::1", true}, // listed address
		{"169.254.169.254", false},
		{"100.64.1.1", false},
		{"::ffff:127.0.0.1", false},
		{"fd00::1", false},
		{"0.0.0.0", false},
		{"2002:7f00:1::", false},
	} {
		if err := a.CheckAddr(netip.MustParseAddr(c.addr)); (err == nil) != c.ok {
			t.Errorf("CheckAddr(%s) = %v, want ok %v", c.addr, err, c.ok)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "*.", "exa mple.com", "a..b"} {
		if _, err := ParseAllowList(bad); err == nil {
			t.Errorf("ParseAllowList(%q) accepted", bad)
		}
	}
	if off, _ := ParseAllowList(""); !off.Empty() {
		t.Error("an empty list allows something")
	} else if _, err := off.CheckURL("http://127.0.0.1/"); err == nil || !strings.Contains(err.Error(), "webhooks are off") {
		t.Errorf("empty list: %v", err)
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	b := DefaultBackoff
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second}
	for n, w := range want {
		if got := b.Delay(n); got != w {
			t.Errorf("Delay(%d) = %s, want %s", n, got, w)
		}
	}
	if got := b.Delay(13); got != 8*time.Hour {
		t.Errorf("Delay(13) = %s", got)
	}
	if span := b.Span(); span < 24*time.Hour || span > 30*time.Hour {
		t.Errorf("the default schedule spans %s; want at least 24 h", span)
	}
	if p, err := ParseBackoff(b.String()); err != nil || p != b {
		t.Errorf("ParseBackoff(%q) = %v, %v", b.String(), p, err)
	}
	for _, bad := range []string{"", "1s,2s", "0s,1s,3", "2s,1s,3", "1s,2s,-1", "x,2s,3"} {
		if _, err := ParseBackoff(bad); err == nil {
			t.Errorf("ParseBackoff(%q) accepted", bad)
		}
	}
}

func TestSignature(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"evt_1","type":"batch.finished"}`)
	now := time.Unix(1_700_000_000, 0)
	header := client.SignWebhook([]string{"new-secret", "old-secret"}, now, body)
	if !strings.HasPrefix(header, "t=1700000000,v1=") || strings.Count(header, "v1=") != 2 {
		t.Fatalf("header %q", header)
	}
	for _, c := range []struct {
		name, secret string
		body         []byte
		at           time.Time
		ok           bool
	}{
		{"new secret", "new-secret", body, now, true},
		{"old secret during rotation", "old-secret", body, now.Add(4 * time.Minute), true},
		{"wrong secret", "other", body, now, false},
		{"body changed", "new-secret", append([]byte(" "), body...), now, false},
		{"replayed later", "new-secret", body, now.Add(6 * time.Minute), false},
	} {
		if err := client.VerifyWebhook(c.secret, header, c.body, c.at, 0); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if err := client.VerifyWebhook("s", "v1=00", body, now, 0); err == nil {
		t.Error("a header without t verifies")
	}
}

// TestSenderRefusals drives the sender against real HTTP servers on
// loopback: a name allowed by the list that resolves to a loopback address,
// a redirect to another host, a slow answer and a huge one.
func TestSenderRefusals(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 4096)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server notices a client gone only after the body
		switch r.URL.Path {
		case "/ok":
			w.WriteHeader(http.StatusNoContent)
		case "/redirect-away":
			http.Redirect(w, r, "http://localhost:1/elsewhere", http.StatusTemporaryRedirect)
		case "/redirect-here":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case "/huge":
			_, _ = w.Write([]byte(huge))
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handlers
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	send := func(allow, url string) answer {
		list, err := ParseAllowList(allow)
		if err != nil {
			t.Fatal(err)
		}
		s := newSender(Config{Allow: list, Timeout: 300 * time.Millisecond, MaxResponse: 1024}.WithDefaults())
		return s.send(context.Background(), url, eventHeaders{"evt_x", "batch.finished"}, []byte("{}"), []string{"k"}, time.Now())
	}
	if a := send("127.0.0.1", srv.URL+"/ok"); a.err != nil || a.status != http.StatusNoContent {
		t.Fatalf("allowed: %+v", a)
	}
	if a := send("127.0.0.1", srv.URL+"/redirect-here"); a.err != nil {
		t.Fatalf("a redirect on the same host: %+v", a)
	}
	for _, c := range []struct {
		name, allow, url, want string
		refused                bool
	}{
		{"a listed name resolving to loopback", "localhost", "http://localhost" + port + "/ok", "127.0.0.1 is a loopback address", true},
		{"a redirect to another host", "127.0.0.1,localhost", srv.URL + "/redirect-away", "redirect to another host", true},
		{"a slow answer", "127.0.0.1", srv.URL + "/slow", "timeout", false},
		{"a huge answer", "127.0.0.1", srv.URL + "/huge", "answer over 1024 bytes", false},
		{"a host not listed", "example.com", srv.URL + "/ok", "not in the allow-list", true},
	} {
		a := send(c.allow, c.url)
		if a.err == nil || !strings.Contains(a.err.Error(), c.want) || IsRefused(a.err) != c.refused {
			t.Errorf("%s: %+v, want an error with %q (refused %v)", c.name, a, c.want, c.refused)
		}
	}
}
