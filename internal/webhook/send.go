package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"github.com/puzzled/puzzled/api/client"
)

// maxRedirects is how many redirects to the same host an attempt follows.
const maxRedirects = 3

// maxResponseLog is how much of an answer the delivery log keeps.
const maxResponseLog = 512

// sender makes the HTTP requests of deliveries, within the policy: the
// allow-list checked on the URL, on every redirect (which must stay on the
// same host) and on every address connected to; no proxy from the
// environment; a timeout on the whole exchange; at most maxResponse bytes
// of an answer read.
type sender struct {
	allow       AllowList
	client      *http.Client
	maxResponse int64
}

func newSender(cfg Config) *sender {
	dialer := &net.Dialer{
		Timeout: cfg.Timeout,
		// Control runs for every address a name resolved to, just before
		// connecting: the check cannot be dodged by a name that resolves
		// to one address when checked and another when used.
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return refused("cannot check address %q", address)
			}
			return cfg.Allow.CheckAddr(ap.Addr())
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
	}
	s := &sender{allow: cfg.Allow, maxResponse: cfg.MaxResponse}
	s.client = &http.Client{Transport: transport, Timeout: cfg.Timeout, CheckRedirect: s.checkRedirect}
	return s
}

func (s *sender) checkRedirect(req *http.Request, via []*http.Request) error {
	if req.URL.Host != via[0].URL.Host {
		return refused("redirect to another host (%s) not followed", req.URL.Host)
	}
	if len(via) > maxRedirects {
		return refused("more than %d redirects", maxRedirects)
	}
	if _, err := s.allow.CheckURL(req.URL.String()); err != nil {
		return err
	}
	return nil
}

// answer is how an attempt went.
type answer struct {
	status int    // 0: no answer
	head   string // the first bytes of the answer
	err    error  // nil: delivered (a 2xx answer within the limits)
}

// send POSTs one event to url, signed with secrets at now.
func (s *sender) send(ctx context.Context, url string, ev eventHeaders, body []byte, secrets []string, now time.Time) answer {
	if _, err := s.allow.CheckURL(url); err != nil {
		return answer{err: err}
	}
	if len(secrets) == 0 {
		return answer{err: refused("the callback's owner has no webhook secret (POST /v1/webhook-secrets)")}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return answer{err: refused("bad URL: %v", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "puzzled-webhooks/1")
	req.Header.Set(client.EventIDHeader, ev.id)
	req.Header.Set(client.EventTypeHeader, ev.typ)
	req.Header.Set(client.SignatureHeader, client.SignWebhook(secrets, now, body))
	resp, err := s.client.Do(req)
	if err != nil {
		return answer{err: describeSendError(err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.maxResponse+1))
	out := answer{status: resp.StatusCode, head: string(data[:min(len(data), maxResponseLog)])}
	switch {
	case err != nil:
		out.err = describeSendError(err)
	case int64(len(data)) > s.maxResponse:
		out.err = fmt.Errorf("answer over %d bytes: not read further", s.maxResponse)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		out.err = errors.New("HTTP " + strconv.Itoa(resp.StatusCode))
	}
	return out
}

// describeSendError keeps refusals as they are and names timeouts plainly.
func describeSendError(err error) error {
	var r *RefusedError
	if errors.As(err, &r) {
		return r
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timeout: no complete answer in time: %w", err)
	}
	return err
}

type eventHeaders struct{ id, typ string }
