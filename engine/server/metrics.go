package server

import (
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
	turns        *prometheus.CounterVec
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
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "spark_engine_turns_total",
			Help: "Turns that ended, by status (finished or failed).",
		}, []string{"status"}),
	}
	reg.MustRegister(m.opsAppended, m.batches, m.batchRecords, m.fsync, m.requests, m.turns,
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

// ObserveTurn counts a turn that ended with status (finished or failed); its
// signature fits the engine's OnTurn callback.
func (m *Metrics) ObserveTurn(status string) {
	m.turns.WithLabelValues(status).Inc()
}

func (m *Metrics) observeRequest(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
}

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
