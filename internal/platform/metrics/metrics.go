// Package metrics is what `larder serve` exposes to Prometheus at /metrics:
// requests by operation and status with their latency, the requests refused
// with 429 or 503 and why, the rate-limit budget spent and reserved, the
// database pool, the webhook outbox's backlog and age, and delivery
// attempts by result. Each server has a registry of its own.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"larder.dev/larder/ent"
	"larder.dev/larder/ent/event"
	"larder.dev/larder/ent/webhookdelivery"
	"larder.dev/larder/internal/platform/store"
	"larder.dev/larder/policy"
)

// Path is where the metrics are served.
const Path = "/metrics"

// Metrics are a server's series.
type Metrics struct {
	Registry *prometheus.Registry

	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	answered  sync.Map // of requests' series, by answered
	spent     sync.Map // of budget's series, by spent
	refused   *prometheus.CounterVec
	budget    *prometheus.CounterVec
	keys      map[string]prometheus.Counter // by KeyCheck's how
	attempts  *prometheus.CounterVec
	abandoned prometheus.Counter
}

// New registers the series of a server over st: with the Go runtime, the
// process, st's connection pool and the outbox read at each scrape.
// reservations, when not nil, reports the rate-limit numbers this process
// reserved from the shared counters (batches and numbers).
func New(st *store.Store, reservations func() (batches, numbers int64)) *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "larder_http_requests_total",
			Help: "HTTP requests answered, by API operation (operationId; health, docs, metrics, other outside the API), method and status.",
		}, []string{"operation", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "larder_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by API operation.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 15},
		}, []string{"operation"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "larder_http_refused_total",
			Help: "Requests refused with 429 or 503, by status and reason (account_limit, auth_failures, overload, timeout, not_ready).",
		}, []string{"status", "reason"}),
		budget: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "larder_ratelimit_requests_total",
			Help: "Requests counted against a rate-limit budget, by bucket (account, auth_failures) and result (allowed, limited).",
		}, []string{"bucket", "result"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "larder_webhook_attempts_total",
			Help: "Webhook delivery attempts, by result (succeeded: a 2xx answer; failed: anything else).",
		}, []string{"result"}),
		abandoned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "larder_webhook_deliveries_abandoned_total",
			Help: "Webhook deliveries given up after their last scheduled attempt.",
		}),
	}
	keys := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "larder_api_key_checks_total",
		Help: "API keys checked for a request, by how: read (a statement of its own before the request's), rows (its print carried by the answer's first rows), print (its print read after an answer without rows), changed (taken on trust and not confirmed, changed or its check failed: the request was authenticated again).",
	}, []string{"how"})
	m.keys = map[string]prometheus.Counter{}
	for _, how := range []string{"read", "rows", "print", "changed"} {
		m.keys[how] = keys.WithLabelValues(how)
	}
	r.MustRegister(m.requests, m.latency, m.refused, m.budget, keys, m.attempts, m.abandoned,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(st.DB, "larder"),
		&outbox{st: st},
	)
	for _, s := range []string{"succeeded", "failed"} {
		m.attempts.WithLabelValues(s)
	}
	if reservations != nil {
		r.MustRegister(
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "larder_ratelimit_reservations_total",
				Help: "Batches of rate-limit numbers this process reserved from the shared counters (PostgreSQL).",
			}, func() float64 { b, _ := reservations(); return float64(b) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "larder_ratelimit_reserved_numbers_total",
				Help: "Rate-limit numbers (requests) those batches reserved.",
			}, func() float64 { _, n := reservations(); return float64(n) }),
		)
	}
	return m
}

// RequestLog registers the request log's counters: the entries written and
// those dropped (the writer's queue was full, or its batch failed).
func (m *Metrics) RequestLog(written, dropped func() int64) {
	m.Registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "larder_request_log_written_total",
			Help: "API requests stored in the request log.",
		}, func() float64 { return float64(written()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "larder_request_log_dropped_total",
			Help: "API requests the request log dropped: its queue was full (the database slow or down) or their batch could not be written.",
		}, func() float64 { return float64(dropped()) }),
	)
}

// Handler serves the registry in the Prometheus text format (compressed,
// on the API's address, by the server's own middleware, as every answer).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry, DisableCompression: true})
}

// answered are the labels of a request's series, and series their
// counter and histogram, kept by Request once made: finding them in the
// vectors hashes every label and formats the status on each request.
type (
	answered struct {
		operation, method string
		status            int
	}
	series struct {
		count   prometheus.Counter
		latency prometheus.Observer
	}
)

// Request records one answered request. The recording methods do nothing on
// nil Metrics. A method net/http accepts but HTTP does not define is
// labelled OTHER: the client must not pick the series.
func (m *Metrics) Request(operation, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if !known(method) {
		method = "OTHER"
	}
	k := answered{operation, method, status}
	s, ok := m.answered.Load(k)
	if !ok {
		s, _ = m.answered.LoadOrStore(k, &series{
			count:   m.requests.WithLabelValues(operation, method, strconv.Itoa(status)),
			latency: m.latency.WithLabelValues(operation),
		})
	}
	s.(*series).count.Inc()
	s.(*series).latency.Observe(d.Seconds())
}

// known reports whether method is one of HTTP's (RFC 9110 and PATCH).
func known(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// Refused records a 429 or 503 and its reason.
func (m *Metrics) Refused(status int, reason string) {
	if m == nil {
		return
	}
	m.refused.WithLabelValues(strconv.Itoa(status), reason).Inc()
}

// spent are the labels of a budget's series.
type spent struct {
	bucket  string
	allowed bool
}

// Budget records a request counted against a rate-limit bucket.
func (m *Metrics) Budget(bucket string, allowed bool) {
	if m == nil {
		return
	}
	k := spent{bucket, allowed}
	c, ok := m.spent.Load(k)
	if !ok {
		result := "allowed"
		if !allowed {
			result = "limited"
		}
		c, _ = m.spent.LoadOrStore(k, m.budget.WithLabelValues(bucket, result))
	}
	c.(prometheus.Counter).Inc()
}

// KeyCheck records how a request's key was checked: read, rows, print or
// changed (larder_api_key_checks_total).
func (m *Metrics) KeyCheck(how string) {
	if m == nil {
		return
	}
	m.keys[how].Inc()
}

// Attempt records a webhook delivery attempt, and whether it ended its
// delivery by giving up.
func (m *Metrics) Attempt(ok, abandoned bool) {
	if m == nil {
		return
	}
	if ok {
		m.attempts.WithLabelValues("succeeded").Inc()
	} else {
		m.attempts.WithLabelValues("failed").Inc()
	}
	if abandoned {
		m.abandoned.Inc()
	}
}

// outbox reads the webhook backlog at each scrape.
type outbox struct{ st *store.Store }

var (
	undispatched = prometheus.NewDesc("larder_outbox_events_pending",
		"Events committed but not yet fanned out to their endpoints' deliveries.", nil, nil)
	pending = prometheus.NewDesc("larder_webhook_deliveries_pending",
		"Deliveries not yet succeeded nor abandoned (including those held for a disabled endpoint).", nil, nil)
	oldest = prometheus.NewDesc("larder_outbox_oldest_undelivered_age_seconds",
		"Age of the oldest event not yet fanned out or with a pending delivery; 0 when there is none.", nil, nil)
	scrapeErrors = prometheus.NewDesc("larder_outbox_scrape_error",
		"1 when the outbox could not be read for this scrape.", nil, nil)
)

func (o *outbox) Describe(ch chan<- *prometheus.Desc) {
	ch <- undispatched
	ch <- pending
	ch <- oldest
	ch <- scrapeErrors
}

// Collect reads the backlog across every account.
func (o *outbox) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// System viewer: the outbox backlog is counted across every account (events and deliveries are system-only); only counts and one timestamp leave.
	sys := policy.System(ctx)
	failed := 0.0
	events, deliveries, age, err := backlog(sys, o.st.Client)
	if err != nil {
		failed = 1
	}
	ch <- prometheus.MustNewConstMetric(undispatched, prometheus.GaugeValue, float64(events))
	ch <- prometheus.MustNewConstMetric(pending, prometheus.GaugeValue, float64(deliveries))
	ch <- prometheus.MustNewConstMetric(oldest, prometheus.GaugeValue, age.Seconds())
	ch <- prometheus.MustNewConstMetric(scrapeErrors, prometheus.GaugeValue, failed)
}

// pendingDelivery holds for an event with a pending delivery. The delivery
// is matched by the event's account as well as its id (event.HasDeliveriesWith
// joins by id alone): on a Citus cluster, where events and deliveries are
// distributed by account, a subquery must join them by account for Citus to
// run it on each shard.
func pendingDelivery(s *sql.Selector) {
	d := sql.Dialect(s.Dialect()).Table(webhookdelivery.Table)
	s.Where(sql.Exists(sql.Dialect(s.Dialect()).Select(d.C(webhookdelivery.FieldID)).From(d).Where(sql.And(
		sql.ColumnsEQ(d.C(webhookdelivery.FieldAccountID), s.C(event.FieldAccountID)),
		sql.ColumnsEQ(d.C(webhookdelivery.FieldEventID), s.C(event.FieldID)),
		sql.EQ(d.C(webhookdelivery.FieldStatus), webhookdelivery.StatusPending),
	))))
}

// backlog counts events not fanned out and pending deliveries, and the age
// of the oldest event either holds.
func backlog(ctx context.Context, c *ent.Client) (events, deliveries int, age time.Duration, err error) {
	if events, err = c.Event.Query().Where(event.DispatchedAtIsNil()).Count(ctx); err != nil {
		return
	}
	if deliveries, err = c.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).Count(ctx); err != nil {
		return
	}
	first, err := c.Event.Query().
		Where(event.Or(event.DispatchedAtIsNil(), pendingDelivery)).
		Order(event.ByCreatedAt(), event.ByID()).
		First(ctx)
	if ent.IsNotFound(err) {
		return events, deliveries, 0, nil
	}
	if err != nil {
		return
	}
	return events, deliveries, max(time.Since(first.CreatedAt), 0), nil
}
