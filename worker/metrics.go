package worker

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/solver"
)

// Metrics is an Observer that exports solve figures to Prometheus.
type Metrics struct {
	duration    *prometheus.HistogramVec
	nodes       *prometheus.CounterVec
	checkpoints *prometheus.CounterVec
}

// NewMetrics registers the worker's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "puzzled_solve_duration_seconds",
			Help:    "Solve durations (all attempts) by kind and verdict.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"kind", "verdict"}),
		nodes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "puzzled_nodes_explored_total", Help: "Search nodes explored by finished solves, by kind.",
		}, []string{"kind"}),
		checkpoints: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "puzzled_checkpoints_written_total", Help: "Checkpoints stored, by kind.",
		}, []string{"kind"}),
	}
	reg.MustRegister(m.duration, m.nodes, m.checkpoints)
	return m
}

// Solved records a finished solve.
func (m *Metrics) Solved(kind string, verdict solver.Verdict, elapsed time.Duration, nodes int64) {
	m.duration.WithLabelValues(kind, string(verdict)).Observe(elapsed.Seconds())
	m.nodes.WithLabelValues(kind).Add(float64(nodes))
}

// Checkpointed records a stored checkpoint.
func (m *Metrics) Checkpointed(kind string) { m.checkpoints.WithLabelValues(kind).Inc() }

// RegisterReachMetrics exports how many tasks w gave back because it could
// not reach PostgreSQL (reach.go).
func RegisterReachMetrics(reg prometheus.Registerer, w *Worker) {
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "puzzled_tasks_given_back_total", Help: "Tasks given back to the queue because PostgreSQL was out of reach.",
	}, func() float64 { return float64(w.GivenBack()) }))
}

// RegisterYieldMetrics exports how often and how long w's bulk searches
// yielded to interactive work (Config.YieldToInteractive).
func RegisterYieldMetrics(reg prometheus.Registerer, w *Worker) {
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "puzzled_bulk_yields_total", Help: "Times the bulk solve processes were stopped for interactive work.",
		}, func() float64 { n, _ := w.Yielded(); return float64(n) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "puzzled_bulk_yield_seconds_total", Help: "Time the bulk solve processes spent stopped for interactive work.",
		}, func() float64 { _, d := w.Yielded(); return d.Seconds() }),
	)
}
