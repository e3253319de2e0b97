// Package metricstest scrapes a metrics endpoint in tests and reads its
// series, through the Prometheus text parser.
package metricstest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape is one parsed scrape.
type Scrape struct {
	Families map[string]*dto.MetricFamily
	Raw      string // the text as served
}

// Get scrapes url and parses its text; it fails the test unless the answer
// is a 200 in the Prometheus text format.
func Get(t testing.TB, url string) Scrape {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("scrape %s: %d %s, want a 200 in the text format:\n%s", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return Parse(t, string(body))
}

// Parse parses a scrape's text.
func Parse(t testing.TB, text string) Scrape {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parsing the scrape: %v\n%s", err, text)
	}
	return Scrape{Families: fams, Raw: text}
}

// Value is the value of the series of metric name whose labels include
// labels (name, value pairs): a counter's or gauge's value, a histogram's
// count of observations. ok is false when there is no such series.
func (s Scrape) Value(name string, labels ...string) (v float64, ok bool) {
	fam := s.Families[name]
	if fam == nil {
		return 0, false
	}
	for _, m := range fam.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue(), true
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue(), true
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		case m.GetUntyped() != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// LabelValues is every value label takes in the series of metric name.
func (s Scrape) LabelValues(name, label string) []string {
	var out []string
	for _, m := range s.Families[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}

func hasLabels(m *dto.Metric, labels []string) bool {
	for i := 0; i+1 < len(labels); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
