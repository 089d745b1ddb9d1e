package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the engine's Prometheus collectors, served by GET /metrics.
// They are made before the engine opens so that the op log's batch callback
// (ObserveBatch) can feed them from the first append.
type Metrics struct {
	reg          *prometheus.Registry
	opsAppended  prometheus.Counter
	batches      prometheus.Counter
	batchRecords prometheus.Histogram
	fsync        prometheus.Histogram
	requests     *prometheus.HistogramVec
}

// NewMetrics registers the engine's collectors, with the Go runtime's and the
// process's, on reg.
func NewMetrics(reg *prometheus.Registry) *Metrics {
	m := &Metrics{
		reg: reg,
		opsAppended: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "spark_engine_ops_appended_total",
			Help: "Ops appended to the log and fsync'ed.",
		}),
		batches: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "spark_engine_fsync_batches_total",
			Help: "Group-commit batches written to the log, one fsync each.",
		}),
		batchRecords: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "spark_engine_fsync_batch_records",
			Help:    "Ops per group-commit batch.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512},
		}),
		fsync: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "spark_engine_fsync_seconds",
			Help:    "Time to write and fsync one batch of the log.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
		}),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "spark_engine_http_request_duration_seconds",
			Help:    "HTTP request latency by route pattern and status.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
		}, []string{"route", "status"}),
	}
	reg.MustRegister(m.opsAppended, m.batches, m.batchRecords, m.fsync, m.requests,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveBatch records one group-commit batch of the op log; its signature
// fits the log's OnBatch callback.
func (m *Metrics) ObserveBatch(records int, fsync time.Duration) {
	m.opsAppended.Add(float64(records))
	m.batches.Inc()
	m.batchRecords.Observe(float64(records))
	m.fsync.Observe(fsync.Seconds())
}

// TurnCounter is what the turns-by-status gauge asks at each scrape.
type TurnCounter interface {
	TurnCounts(ctx context.Context) (map[string]int, error)
}

// WatchTurns registers a gauge of turns by status, read from tc at each scrape.
func (m *Metrics) WatchTurns(tc TurnCounter) {
	m.reg.MustRegister(&turnCollector{tc: tc, desc: prometheus.NewDesc(
		"spark_engine_turns", "Turns by status.", []string{"status"}, nil)})
}

func (m *Metrics) observeRequest(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
}

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

type turnCollector struct {
	tc   TurnCounter
	desc *prometheus.Desc
}

func (c *turnCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *turnCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	counts, err := c.tc.TurnCounts(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	for status, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), status)
	}
}
