package testkit

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var scrapeClient = &http.Client{Timeout: 15 * time.Second}

// Scrape GETs a /metrics URL and parses the text exposition. It fails the
// test unless the answer is 200.
func Scrape(t testing.TB, u string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	resp, err := scrapeClient.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d (%v): %.300s", u, resp.StatusCode, err, raw)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("GET %s: the answer is not the text exposition format: %v\n%.500s", u, err, raw)
	}
	return fams, string(raw)
}
