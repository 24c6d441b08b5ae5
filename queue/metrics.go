package queue

import (
	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
)

// Collector reports each queue's depth by task state and its latency (age
// of the oldest pending task), read through asynq's Inspector at scrape time.
type Collector struct {
	inspector *asynq.Inspector
	size      *prometheus.Desc
	latency   *prometheus.Desc
}

// NewCollector returns a collector over the puzzled queues.
func NewCollector(i *asynq.Inspector) *Collector {
	return &Collector{
		inspector: i,
		size:      prometheus.NewDesc("puzzled_queue_tasks", "asynq tasks by queue and state.", []string{"queue", "state"}, nil),
		latency:   prometheus.NewDesc("puzzled_queue_latency_seconds", "Age of the oldest pending task.", []string{"queue"}, nil),
	}
}

func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.size
	ch <- c.latency
}

func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, q := range []string{Resumed, Interactive, Bulk} {
		info, err := c.inspector.GetQueueInfo(q)
		if err != nil { // a queue that never had a task does not exist yet
			continue
		}
		for state, n := range map[string]int{"pending": info.Pending, "active": info.Active,
			"scheduled": info.Scheduled, "retry": info.Retry, "archived": info.Archived} {
			ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(n), q, state)
		}
		ch <- prometheus.MustNewConstMetric(c.latency, prometheus.GaugeValue, info.Latency.Seconds(), q)
	}
}
