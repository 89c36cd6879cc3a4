package metering_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/ops/metering"
)

func rec(action, transport, code, account, application string, d time.Duration, cp int) tzctx.Record {
	return tzctx.Record{Time: time.Now(), Action: action, Transport: transport, Code: code,
		Account: account, Application: application, Duration: d, CodePoints: cp,
		Subject: "docs:cloud:page:subjectcanary", Version: "versioncanary", Credential: "0123456789ab"}
}

// family returns the gathered family of the given name, or nil.
func family(t *testing.T, m *metering.Meter, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := m.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

func labels(mt *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range mt.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func TestMeterCountsCalls(t *testing.T) {
	m := metering.New(metering.Options{})
	ctx := context.Background()
	m.Record(ctx, rec("read_documentation", tzctx.TransportHTTP, tzctx.OK, "acme", "bot", 80*time.Microsecond, 1200))
	m.Record(ctx, rec("read_documentation", tzctx.TransportHTTP, tzctx.OK, "acme", "bot", 3*time.Millisecond, 800))
	m.Record(ctx, rec("read_documentation", tzctx.TransportMCPHTTP, "invalid_request", "", "", 20*time.Microsecond, 0))
	m.Record(ctx, rec("list_context", tzctx.TransportMCPStdio, tzctx.OK, "", "", 2*time.Second, 0))
	m.Record(ctx, rec("(unknown action)", tzctx.TransportHTTP, "context_not_found", "", "", 0, 0))

	want := `
# HELP tzctx_calls_total Calls of the dispatcher's actions, refusals included, by account, application, action, transport and outcome (ok or the contract's refusal code).
# TYPE tzctx_calls_total counter
tzctx_calls_total{account="acme",action="read_documentation",application="bot",outcome="ok",transport="http"} 2
tzctx_calls_total{account="anonymous",action="read_documentation",application="",outcome="invalid_request",transport="mcp-http"} 1
tzctx_calls_total{account="anonymous",action="list_context",application="",outcome="ok",transport="mcp-stdio"} 1
tzctx_calls_total{account="anonymous",action="(unknown action)",application="",outcome="context_not_found",transport="http"} 1
# HELP tzctx_code_points_served_total Unicode code points of text served by calls that succeeded, by action.
# TYPE tzctx_code_points_served_total counter
tzctx_code_points_served_total{action="read_documentation"} 2000
`
	if err := testutil.GatherAndCompare(m.Gatherer(), strings.NewReader(want), "tzctx_calls_total", "tzctx_code_points_served_total"); err != nil {
		t.Error(err)
	}

	h := family(t, m, "tzctx_call_duration_seconds")
	if h == nil {
		t.Fatal("no tzctx_call_duration_seconds")
	}
	counts := map[string]uint64{}
	for _, mt := range h.GetMetric() {
		hist := mt.GetHistogram()
		counts[labels(mt)["action"]] = hist.GetSampleCount()
		if got := len(hist.GetBucket()); got != len(metering.DurationBuckets) {
			t.Errorf("histogram has %d buckets, want %d", got, len(metering.DurationBuckets))
		}
		if labels(mt)["action"] == "read_documentation" {
			// 80 µs falls in the 100 µs bucket, 3 ms in the 5 ms one, 20 µs in the first.
			for _, b := range hist.GetBucket() {
				var want uint64
				switch ub := b.GetUpperBound(); {
				case ub >= 0.005:
					want = 3
				case ub >= 0.0001:
					want = 2
				case ub >= 0.00005:
					want = 1
				}
				if b.GetCumulativeCount() != want {
					t.Errorf("read_documentation bucket le=%g holds %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
				}
			}
		}
	}
	wantCounts := map[string]uint64{"read_documentation": 3, "list_context": 1, "(unknown action)": 1}
	if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
		t.Errorf("histogram counts %v, want %v", counts, wantCounts)
	}
	if lo, hi := metering.DurationBuckets[0], metering.DurationBuckets[len(metering.DurationBuckets)-1]; lo != 50e-6 || hi != 10 {
		t.Errorf("buckets run from %g to %g, want 50µs to 10s", lo, hi)
	}
}

func TestMeterNeverLabelsSubjectOrVersion(t *testing.T) {
	m := metering.New(metering.Options{Version: func() string { return "v1" }})
	m.Record(context.Background(), rec("read_documentation", tzctx.TransportHTTP, tzctx.OK, "acme", "bot", time.Millisecond, 10))
	out := scrape(t, m)
	for _, w := range []string{"subjectcanary", "versioncanary", "0123456789ab"} {
		if strings.Contains(out, w) {
			t.Errorf("the metrics hold the record's %q:\n%s", w, out)
		}
	}
}

func TestMeterBoundsLabels(t *testing.T) {
	m := metering.New(metering.Options{MaxCallers: 3})
	ctx := context.Background()
	long := strings.Repeat("é", 40) // 80 bytes
	m.Record(ctx, rec("read_context", tzctx.TransportHTTP, tzctx.OK, long, "app\xff", 0, 0))
	for i := range 6 {
		m.Record(ctx, rec("read_context", tzctx.TransportHTTP, tzctx.OK, fmt.Sprintf("acct-%d", i), "", 0, 0))
	}
	m.Record(ctx, rec("read_context", tzctx.TransportHTTP, tzctx.OK, "acct-0", "", 0, 0)) // counted already: by name
	m.Record(ctx, rec("read_context", "carrier-pigeon", "a_code_of_its_own", "acct-1", "", 0, 0))

	got := map[string]float64{}
	for _, mt := range family(t, m, "tzctx_calls_total").GetMetric() {
		l := labels(mt)
		got[l["account"]+"|"+l["application"]+"|"+l["transport"]+"|"+l["outcome"]] = mt.GetCounter().GetValue()
		for k, v := range l {
			if len(v) > metering.MaxLabelBytes {
				t.Errorf("label %s is %d bytes: %q", k, len(v), v)
			}
		}
	}
	want := map[string]float64{
		strings.Repeat("é", 32) + "|app\uFFFD|http|ok": 1,
		"acct-0||http|ok":     2,
		"acct-1||http|ok":     1,
		"acct-1||other|other": 1,
		"other|other|http|ok": 4,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("series:\n%v\nwant:\n%v", got, want)
	}
	if n, err := testutil.GatherAndCount(m.Gatherer(), "tzctx_calls_total"); err != nil || n != len(want) {
		t.Errorf("%d series of tzctx_calls_total (%v), want %d", n, err, len(want))
	}
}

func TestMeterVersionFollowsTheFunc(t *testing.T) {
	var mu sync.Mutex
	served := ""
	m := metering.New(metering.Options{Version: func() string { mu.Lock(); defer mu.Unlock(); return served }})
	set := func(v string) { mu.Lock(); served = v; mu.Unlock() }
	if n, err := testutil.GatherAndCount(m.Gatherer(), "tzctx_served_version_info"); err != nil || n != 0 {
		t.Errorf("with no version served: %d series (%v), want none", n, err)
	}
	set("v1")
	want := "# HELP tzctx_served_version_info The site version this process serves, as its version label; absent while none is served.\n" +
		"# TYPE tzctx_served_version_info gauge\n"
	if err := testutil.GatherAndCompare(m.Gatherer(), strings.NewReader(want+"tzctx_served_version_info{version=\"v1\"} 1\n"), "tzctx_served_version_info"); err != nil {
		t.Error(err)
	}
	set("2026-01-02-abcdef")
	if err := testutil.GatherAndCompare(m.Gatherer(), strings.NewReader(want+"tzctx_served_version_info{version=\"2026-01-02-abcdef\"} 1\n"), "tzctx_served_version_info"); err != nil {
		t.Error(err)
	}
	set("")
	if n, _ := testutil.GatherAndCount(m.Gatherer(), "tzctx_served_version_info"); n != 0 {
		t.Errorf("after the version went: %d series, want none", n)
	}
}

func TestHandlerServesRuntimeMetrics(t *testing.T) {
	m := metering.New(metering.Options{Version: func() string { return "v1" }})
	m.Record(context.Background(), rec("list_context", tzctx.TransportHTTP, tzctx.OK, "", "", time.Millisecond, 0))
	out := scrape(t, m)
	for _, w := range []string{"\ngo_goroutines ", "\nprocess_cpu_seconds_total ", "\ntzctx_served_version_info{version=\"v1\"} 1\n", "\ntzctx_calls_total{"} {
		if !strings.Contains(out, w) {
			t.Errorf("the scrape lacks %q", w)
		}
	}
}

func TestNilMeterRecordsNothing(t *testing.T) {
	var m *metering.Meter
	tzctx.Recorders{m}.Record(context.Background(), rec("list_context", tzctx.TransportHTTP, tzctx.OK, "", "", 0, 0))
}

func scrape(t *testing.T, m *metering.Meter) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %v", resp.StatusCode, err)
	}
	return string(b)
}

func TestMeterCountsShedAndRateLimited(t *testing.T) {
	m := metering.New(metering.Options{})
	m.Shed(tzctx.TransportHTTP)
	m.Shed(tzctx.TransportHTTP)
	m.Shed(tzctx.TransportMCPHTTP)
	m.RateLimited(tzctx.TransportMCPHTTP)
	m.RateLimited("/api/v1/actions/secret words") // never a label
	n, max := 3, 8
	m.InFlight(func() int { return n }, func() int { return max })
	want := `
# HELP tzctx_rate_limited_total Requests refused rate_limited (429, with Retry-After) because their caller's token bucket was spent, by surface (http or mcp-http).
# TYPE tzctx_rate_limited_total counter
tzctx_rate_limited_total{surface="mcp-http"} 1
tzctx_rate_limited_total{surface="other"} 1
# HELP tzctx_shed_total Requests shed (503 context_unavailable, with Retry-After) because the server was at its bound of calls in flight, by surface (http or mcp-http).
# TYPE tzctx_shed_total counter
tzctx_shed_total{surface="http"} 2
tzctx_shed_total{surface="mcp-http"} 1
# HELP tzctx_calls_in_flight Requests of /api/v1/actions and /mcp holding a slot of the bound of calls in flight.
# TYPE tzctx_calls_in_flight gauge
tzctx_calls_in_flight 3
# HELP tzctx_calls_in_flight_limit The bound of calls in flight (max_in_flight), beyond which requests are shed.
# TYPE tzctx_calls_in_flight_limit gauge
tzctx_calls_in_flight_limit 8
`
	if err := testutil.GatherAndCompare(m.Gatherer(), strings.NewReader(want),
		"tzctx_shed_total", "tzctx_rate_limited_total", "tzctx_calls_in_flight", "tzctx_calls_in_flight_limit"); err != nil {
		t.Fatal(err)
	}
	n = 5
	if got := family(t, m, "tzctx_calls_in_flight").GetMetric()[0].GetGauge().GetValue(); got != 5 {
		t.Fatalf("in flight after a change = %v, want 5: the gauge is read at each scrape", got)
	}
	m.Record(context.Background(), rec("read_documentation", tzctx.TransportHTTP, "rate_limited", "", "", 0, 0))
	for _, mt := range family(t, m, "tzctx_calls_total").GetMetric() {
		if o := labels(mt)["outcome"]; o != "rate_limited" {
			t.Fatalf("a rate_limited record is counted under outcome %q", o)
		}
	}
	var nilMeter *metering.Meter
	nilMeter.Shed(tzctx.TransportHTTP)
	nilMeter.RateLimited(tzctx.TransportHTTP)
	nilMeter.InFlight(func() int { return 0 }, func() int { return 0 })
}
