package provider

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

// TestSchemasAreValid runs the framework's own checks on every schema
// (attribute names, defaults only on computed attributes, ...).
func TestSchemasAreValid(t *testing.T) {
	ctx := context.Background()
	p := New("test")()

	var ps provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &ps)
	if d := ps.Schema.ValidateImplementation(ctx); d.HasError() {
		t.Errorf("provider schema: %s", diagText(d))
	}
	for _, newR := range p.Resources(ctx) {
		var rs resource.SchemaResponse
		newR().Schema(ctx, resource.SchemaRequest{}, &rs)
		if d := rs.Schema.ValidateImplementation(ctx); d.HasError() {
			t.Errorf("resource schema: %s", diagText(d))
		}
	}
	for _, newD := range p.DataSources(ctx) {
		var ds datasource.SchemaResponse
		newD().Schema(ctx, datasource.SchemaRequest{}, &ds)
		if d := ds.Schema.ValidateImplementation(ctx); d.HasError() {
			t.Errorf("data source schema: %s", diagText(d))
		}
	}
}

// configure runs the provider's Configure with the given arguments set.
func configure(t *testing.T, args map[string]tftypes.Value) *provider.ConfigureResponse {
	t.Helper()
	ctx := context.Background()
	p := New("test")()
	var ps provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &ps)
	typ := ps.Schema.Type().TerraformType(ctx)
	objType, ok := typ.(tftypes.Object)
	if !ok {
		t.Fatalf("provider schema type is %T", typ)
	}
	vals := map[string]tftypes.Value{}
	for name, at := range objType.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range args {
		vals[name] = v
	}
	resp := &provider.ConfigureResponse{}
	p.Configure(ctx, provider.ConfigureRequest{Config: tfsdk.Config{Schema: ps.Schema, Raw: tftypes.NewValue(typ, vals)}}, resp)
	return resp
}

func TestConfigureRequiresAnAPIKey(t *testing.T) {
	t.Setenv(envAPIKey, "")
	resp := configure(t, nil)
	checkDiags(t, resp.Diagnostics, `api_key.*`+envAPIKey)
}

func TestConfigureReadsTheEnvironment(t *testing.T) {
	t.Setenv(envAPIKey, "env-key")
	t.Setenv(envBaseURL, "http://127.0.0.1:1")
	resp := configure(t, map[string]tftypes.Value{"requests_per_minute": tftypes.NewValue(tftypes.Number, 120)})
	checkDiags(t, resp.Diagnostics, "")
	rd, ok := resp.ResourceData.(*providerData)
	if !ok || rd.Client == nil || rd.Collections == nil {
		t.Fatalf("ResourceData = %T, want *providerData with a client and the collection listings", resp.ResourceData)
	}
	if resp.DataSourceData != resp.ResourceData {
		t.Fatal("resources and data sources should share one client")
	}
}

func TestConfigureRejectsUnknownValues(t *testing.T) {
	t.Setenv(envAPIKey, "env-key")
	resp := configure(t, map[string]tftypes.Value{"base_url": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)})
	checkDiags(t, resp.Diagnostics, `base_url is not known until apply`)
}

func TestLoggerMasksTheAPIKey(t *testing.T) {
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	a := tflogAdapter{apiKey: "sk-secret-123"}
	a.Debug(ctx, "request with sk-secret-123", map[string]any{"url": "http://x/?key=sk-secret-123"})
	a.Trace(ctx, "trace", map[string]any{"authorization": "Bearer sk-secret-123"})
	out := buf.String()
	if strings.Contains(out, "sk-secret-123") {
		t.Fatalf("the API key reached the log: %s", out)
	}
	if !strings.Contains(out, "request with") || !strings.Contains(out, "trace") {
		t.Fatalf("log lines missing: %s", out)
	}
}
