package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"github.com/hashicorp/terraform-plugin-log/tfsdklog"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

// TestAPILogsNameTheClientCaller: the client's request logs go through the
// adapter, yet their @caller is the client code that sent the request, not
// provider_logger.go. The root logger writes where os.Stderr pointed when it
// was made, so the test points it at a file for that moment (the test is not
// parallel).
func TestAPILogsNameTheClientCaller(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "provider.log")
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stderr := os.Stderr
	os.Stderr = f
	ctx := tfsdklog.NewRootProviderLogger(context.Background())
	os.Stderr = stderr

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("[]"))
	}))
	defer srv.Close()
	const key = "sk-caller-test-key"
	c, err := client.New(client.Config{BaseURL: srv.URL, APIKey: key, RequestsPerMinute: 600, Logger: tflogAdapter{apiKey: key}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListBrandTemplates(ctx); err != nil {
		t.Fatal(err)
	}

	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := tflogtest.MultilineJSONDecode(strings.NewReader(string(b)))
	if err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	var seen int
	for _, e := range entries {
		msg, _ := e["@message"].(string)
		if !strings.HasPrefix(msg, "clipper API") {
			continue
		}
		seen++
		caller, _ := e["@caller"].(string)
		if !strings.Contains(caller, filepath.Join("internal", "client")+string(filepath.Separator)) {
			t.Errorf("%q logged with @caller %q, want the client's source", msg, caller)
		}
		if module, _ := e["@module"].(string); !strings.HasSuffix(module, "."+apiLogSubsystem) {
			t.Errorf("%q logged by module %v, want the %s subsystem", msg, e["@module"], apiLogSubsystem)
		}
	}
	if seen == 0 {
		t.Fatalf("no clipper API log lines in %s", b)
	}
	if strings.Contains(string(b), key) {
		t.Fatalf("the API key reached the log: %s", b)
	}
}
