package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/store"
)

// httpMetrics times every /v1 request by route pattern and status.
type httpMetrics struct {
	duration *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "puzzled_http_request_duration_seconds",
		Help:    "HTTP request durations by route and status.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
	}, []string{"route", "status"})}
	reg.MustRegister(m.duration)
	return m
}

func (m *httpMetrics) instrument(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			m.duration.WithLabelValues(route, strconv.Itoa(sw.status)).Observe(time.Since(start).Seconds())
		}()
		h.ServeHTTP(sw, r)
	})
}

// statusWriter remembers the status code of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Flush lets NDJSON streams reach the client through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the original writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// jobsCollector reports jobs by kind and state, read from PostgreSQL at
// scrape time.
type jobsCollector struct {
	store *store.Store
	desc  *prometheus.Desc
}

func newJobsCollector(st *store.Store) *jobsCollector {
	return &jobsCollector{store: st, desc: prometheus.NewDesc("puzzled_jobs",
		"Jobs by kind and state.", []string{"kind", "state"}, nil)}
}

func (c *jobsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *jobsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.store.JobCounts(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for _, jc := range counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(jc.Count), jc.Kind, string(jc.State))
	}
}
