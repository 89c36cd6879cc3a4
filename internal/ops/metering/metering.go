// Package metering counts the dispatcher's calls as Prometheus metrics and
// serves them, with the served version and the process and Go runtime
// metrics, from a registry of its own.
//
// Labels never carry a caller's words, routes or IDs. A record's action
// is a registered action's name or "(unknown action)", its transport one
// of the dispatcher's three and its code one of the contract's; account
// and application come from the configuration or a verified token, and
// are bounded still: an empty account is "anonymous", a label value is
// cut to MaxLabelBytes bytes, and once MaxCallers distinct account and
// application pairs are counted, calls of further pairs are counted under
// account and application "other". A record's subject and version are
// never labels of the call metrics.
package metering

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/turnzerocloud/tzctx"
)

// Defaults of Options.
const (
	// MaxLabelBytes is the default length bound of a label value.
	MaxLabelBytes = 64
	// MaxCallers is the default number of distinct account and
	// application pairs counted by name.
	MaxCallers = 1000
)

// Label values the meter gives in place of ones it does not count by
// name.
const (
	// Anonymous is the account label of a call without an account.
	Anonymous = "anonymous"
	// Other is the account and application label of the pairs beyond
	// the bound, and the transport or outcome label of a value the
	// dispatcher does not define.
	Other = "other"
)

// DurationBuckets are the upper bounds, in seconds, of the call duration
// histogram: 50 µs to 10 s.
var DurationBuckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// Options configure a Meter.
type Options struct {
	// Version returns the name of the served version, "" where none is
	// served. It is called at every scrape; nil serves no version metric.
	Version func() string
	// MaxLabelBytes bounds the length of a label value; 0 is the
	// package's MaxLabelBytes.
	MaxLabelBytes int
	// MaxCallers bounds the distinct account and application pairs
	// counted by name; 0 is the package's MaxCallers.
	MaxCallers int
}

// Meter is a tzctx.Recorder that counts calls in its own registry. A
// nil *Meter records nothing.
type Meter struct {
	reg        *prometheus.Registry
	calls      *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	codePoints *prometheus.CounterVec
	shed       *prometheus.CounterVec
	limited    *prometheus.CounterVec

	maxLabel   int
	maxCallers int
	mu         sync.Mutex
	callers    map[caller]struct{}
}

var _ tzctx.Recorder = (*Meter)(nil)

// caller is one account and application pair, as its labels read.
type caller struct{ account, application string }

// New returns a meter whose registry holds the call metrics, the served
// version's info metric, and the process and Go collectors.
func New(opts Options) *Meter {
	m := &Meter{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tzctx_calls_total",
			Help: "Calls of the dispatcher's actions, refusals included, by account, application, action, transport and outcome (ok or the contract's refusal code).",
		}, []string{"account", "application", "action", "transport", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tzctx_call_duration_seconds",
			Help:    "How long calls took, by action, refusals included.",
			Buckets: DurationBuckets,
		}, []string{"action"}),
		codePoints: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tzctx_code_points_served_total",
			Help: "Unicode code points of text served by calls that succeeded, by action.",
		}, []string{"action"}),
		shed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tzctx_shed_total",
			Help: "Requests shed (503 context_unavailable, with Retry-After) because the server was at its bound of calls in flight, by surface (http or mcp-http).",
		}, []string{"surface"}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tzctx_rate_limited_total",
			Help: "Requests refused rate_limited (429, with Retry-After) because their caller's token bucket was spent, by surface (http or mcp-http).",
		}, []string{"surface"}),
		maxLabel:   opts.MaxLabelBytes,
		maxCallers: opts.MaxCallers,
		callers:    map[caller]struct{}{},
	}
	if m.maxLabel <= 0 {
		m.maxLabel = MaxLabelBytes
	}
	if m.maxCallers <= 0 {
		m.maxCallers = MaxCallers
	}
	m.reg.MustRegister(m.calls, m.duration, m.codePoints, m.shed, m.limited,
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector())
	if opts.Version != nil {
		m.reg.MustRegister(&versionCollector{version: opts.Version, bound: m.bound})
	}
	return m
}

// Record implements tzctx.Recorder.
func (m *Meter) Record(_ context.Context, rec tzctx.Record) {
	if m == nil {
		return
	}
	c := m.caller(rec.Account, rec.Application)
	action := m.bound(rec.Action)
	m.calls.WithLabelValues(c.account, c.application, action, transport(rec.Transport), outcome(rec.Code)).Inc()
	m.duration.WithLabelValues(action).Observe(rec.Duration.Seconds())
	if rec.CodePoints > 0 {
		m.codePoints.WithLabelValues(action).Add(float64(rec.CodePoints))
	}
}

// Handler serves the registry's metrics in the Prometheus exposition
// formats.
func (m *Meter) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, ErrorHandling: promhttp.ContinueOnError})
}

// Gatherer is the meter's registry, for reading its metrics in process.
func (m *Meter) Gatherer() prometheus.Gatherer { return m.reg }

// caller returns the labels of an account and application pair: bounded
// in length, and "other" for a pair beyond the bound of distinct pairs.
func (m *Meter) caller(account, application string) caller {
	if account == "" {
		account = Anonymous
	}
	c := caller{m.bound(account), m.bound(application)}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.callers[c]; ok {
		return c
	}
	if len(m.callers) >= m.maxCallers {
		return caller{Other, Other}
	}
	m.callers[c] = struct{}{}
	return c
}

// bound makes s a label value: valid UTF-8, cut on a character boundary
// to at most the meter's length bound.
func (m *Meter) bound(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= m.maxLabel {
		return s
	}
	n := m.maxLabel
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// transport returns the transport label: one of the dispatcher's
// transports, or "other".
func transport(t string) string {
	switch t {
	case tzctx.TransportHTTP, tzctx.TransportMCPStdio, tzctx.TransportMCPHTTP:
		return t
	}
	return Other
}

// outcome returns the outcome label: "ok", one of the contract's codes,
// or "other".
func outcome(code string) string {
	switch tzctx.Code(code) {
	case tzctx.OK, tzctx.InvalidRequest, tzctx.ContextNotFound, tzctx.ContextChanged,
		tzctx.ContextUnavailable, tzctx.Internal, tzctx.Unauthenticated, tzctx.RateLimited:
		return code
	}
	return Other
}

// Shed counts a request shed on surface, a transport of the
// dispatcher's (tzctx_shed_total).
func (m *Meter) Shed(surface string) {
	if m == nil {
		return
	}
	m.shed.WithLabelValues(transport(surface)).Inc()
}

// RateLimited counts a request refused rate_limited on surface
// (tzctx_rate_limited_total).
func (m *Meter) RateLimited(surface string) {
	if m == nil {
		return
	}
	m.limited.WithLabelValues(transport(surface)).Inc()
}

// InFlight registers the gauges of the calls in flight and their bound,
// read from inFlight and max at each scrape: tzctx_calls_in_flight and
// tzctx_calls_in_flight_limit.
func (m *Meter) InFlight(inFlight, max func() int) {
	if m == nil {
		return
	}
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tzctx_calls_in_flight",
			Help: "Requests of /api/v1/actions and /mcp holding a slot of the bound of calls in flight.",
		}, func() float64 { return float64(inFlight()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tzctx_calls_in_flight_limit",
			Help: "The bound of calls in flight (max_in_flight), beyond which requests are shed.",
		}, func() float64 { return float64(max()) }))
}

// versionCollector is the info metric of the served version, read when
// the registry is scraped.
type versionCollector struct {
	version func() string
	bound   func(string) string
}

var versionDesc = prometheus.NewDesc("tzctx_served_version_info",
	"The site version this process serves, as its version label; absent while none is served.",
	[]string{"version"}, nil)

// Describe implements prometheus.Collector.
func (c *versionCollector) Describe(ch chan<- *prometheus.Desc) { ch <- versionDesc }

// Collect implements prometheus.Collector.
func (c *versionCollector) Collect(ch chan<- prometheus.Metric) {
	v := c.version()
	if v == "" {
		return
	}
	ch <- prometheus.MustNewConstMetric(versionDesc, prometheus.GaugeValue, 1, c.bound(v))
}

// FollowStatus is what a following server reports of its follower.
type FollowStatus struct {
	// Up is whether the last poll of the object store succeeded.
	Up          bool
	LastSuccess time.Time
	Failures    int64
	Taken       int64
}

// Follow registers the follower's metrics, read from status at each
// scrape: tzctx_follow_up, tzctx_follow_last_success_timestamp_seconds,
// tzctx_follow_poll_failures_total and tzctx_follow_versions_taken_total.
func (m *Meter) Follow(status func() FollowStatus) {
	if m == nil {
		return
	}
	m.reg.MustRegister(&followCollector{status: status})
}

type followCollector struct{ status func() FollowStatus }

var (
	followUp       = prometheus.NewDesc("tzctx_follow_up", "Whether the last poll of the followed object store succeeded (1) or failed (0).", nil, nil)
	followLast     = prometheus.NewDesc("tzctx_follow_last_success_timestamp_seconds", "When a poll of the followed object store last succeeded, in Unix seconds; 0 before the first.", nil, nil)
	followFailures = prometheus.NewDesc("tzctx_follow_poll_failures_total", "Polls of the followed object store that failed.", nil, nil)
	followTaken    = prometheus.NewDesc("tzctx_follow_versions_taken_total", "Versions downloaded from the followed object store and imported.", nil, nil)
)

func (c *followCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- followUp
	ch <- followLast
	ch <- followFailures
	ch <- followTaken
}

func (c *followCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.status()
	up, last := 0.0, 0.0
	if s.Up {
		up = 1
	}
	if !s.LastSuccess.IsZero() {
		last = float64(s.LastSuccess.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(followUp, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(followLast, prometheus.GaugeValue, last)
	ch <- prometheus.MustNewConstMetric(followFailures, prometheus.CounterValue, float64(s.Failures))
	ch <- prometheus.MustNewConstMetric(followTaken, prometheus.CounterValue, float64(s.Taken))
}
