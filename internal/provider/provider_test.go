package provider

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
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

// configure runs a new provider's Configure with the given arguments set.
func configure(t *testing.T, args map[string]tftypes.Value) *provider.ConfigureResponse {
	t.Helper()
	return configureProvider(t, New("test")(), args)
}

// configureProvider runs p's Configure with the given arguments set.
func configureProvider(t *testing.T, p provider.Provider, args map[string]tftypes.Value) *provider.ConfigureResponse {
	t.Helper()
	ctx := context.Background()
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

// Configure called again on one provider value (each provider configuration
// of a reattached server, each step of an acceptance test) builds clients
// that share the organization's slots, so a lower cap reaches the earlier
// client; another provider value shares nothing with them.
func TestConfigureCallsOfOneProviderShareTheClientState(t *testing.T) {
	t.Setenv(envAPIKey, "env-key-"+t.Name())
	t.Setenv(envBaseURL, "http://127.0.0.1:1")
	capOf := func(resp *provider.ConfigureResponse) int {
		t.Helper()
		checkDiags(t, resp.Diagnostics, "")
		rd, ok := resp.ResourceData.(*providerData)
		if !ok {
			t.Fatalf("ResourceData = %T", resp.ResourceData)
		}
		return rd.Client.MaxConcurrentProjects()
	}
	slots := func(n int) map[string]tftypes.Value {
		return map[string]tftypes.Value{"max_concurrent_projects": tftypes.NewValue(tftypes.Number, n)}
	}
	p := New("test")()
	first := configureProvider(t, p, slots(8))
	if got := capOf(first); got != 8 {
		t.Fatalf("first client cap %d, want 8", got)
	}
	other := configureProvider(t, New("test")(), slots(8))
	configureProvider(t, p, slots(3))
	if got := capOf(first); got != 3 {
		t.Fatalf("first client cap %d after a second Configure asked for 3: the slots are not shared", got)
	}
	if got := capOf(other); got != 8 {
		t.Fatalf("another provider's client cap %d, want its own 8", got)
	}
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

// max_concurrent_projects reaches the client, whose creates wait under it;
// unset, the client's default (4) applies; below 1 is rejected at validate time.
func TestConfigurePassesMaxConcurrentProjects(t *testing.T) {
	t.Setenv(envAPIKey, "env-key-"+t.Name())
	t.Setenv(envBaseURL, "http://127.0.0.1:1")
	resp := configure(t, map[string]tftypes.Value{"max_concurrent_projects": tftypes.NewValue(tftypes.Number, 50)})
	checkDiags(t, resp.Diagnostics, "")
	rd, ok := resp.ResourceData.(*providerData)
	if !ok || rd.Client.MaxConcurrentProjects() != 50 {
		t.Fatalf("client cap = %d, want 50", rd.Client.MaxConcurrentProjects())
	}

	t.Setenv(envAPIKey, "env-key-default-"+t.Name())
	resp = configure(t, nil)
	checkDiags(t, resp.Diagnostics, "")
	if rd, _ := resp.ResourceData.(*providerData); rd.Client.MaxConcurrentProjects() != client.DefaultMaxConcurrentProjects {
		t.Fatalf("default client cap = %d", rd.Client.MaxConcurrentProjects())
	}

	var ps provider.SchemaResponse
	New("test")().Schema(context.Background(), provider.SchemaRequest{}, &ps)
	attr, ok := ps.Schema.Attributes["max_concurrent_projects"].(schema.Int64Attribute)
	if !ok || len(attr.Validators) == 0 {
		t.Fatal("max_concurrent_projects has no validator")
	}
	var vr validator.Int64Response
	attr.Validators[0].ValidateInt64(context.Background(), validator.Int64Request{
		Path: path.Root("max_concurrent_projects"), ConfigValue: types.Int64Value(0)}, &vr)
	checkDiags(t, vr.Diagnostics, "at least 1")
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
