package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

// TestReadFailureBlamesTheTimeoutOnlyWhenItEnded: a read whose call gave up
// after its attempts (each timed out on its own deadline) reports that
// cause, not timeouts.read, which had not run out.
func TestReadFailureBlamesTheTimeoutOnlyWhenItEnded(t *testing.T) {
	gaveUp := &client.TransportError{Method: "GET", Path: "/api/brand-templates", Attempts: 5,
		AttemptTimeout: 30 * time.Second, Err: fmt.Errorf("Get \"http://svc/api/brand-templates\": %w", context.DeadlineExceeded)}

	d := readFailure(t.Context(), "Unable to list brand templates", 5*time.Minute, gaveUp)
	if strings.Contains(d.Detail(), "timeouts.read") || !strings.Contains(d.Detail(), "after 5 attempt(s)") ||
		!strings.Contains(d.Detail(), "no answer within the 30s each attempt waits") {
		t.Errorf("attempts used up within the timeout: %q", d.Detail())
	}

	ended, cancel := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancel()
	<-ended.Done()
	d = readFailure(ended, "Unable to list brand templates", 5*time.Minute, fmt.Errorf("stopped retrying: %w", ended.Err()))
	if !strings.Contains(d.Detail(), "did not answer within 5m0s") || !strings.Contains(d.Detail(), "Raise timeouts.read") {
		t.Errorf("the timeout ended: %q", d.Detail())
	}
}

// TestTimeoutsOneErrorPerBadValue: every duration of every timeouts argument
// gets one error for a value that is not a duration, and none for a good one
// (the library's own check would add a second).
func TestTimeoutsOneErrorPerBadValue(t *testing.T) {
	ctx := context.Background()
	p := &ClipperProvider{}
	checked := 0
	check := func(owner string, attrs map[string]validatorsOf) {
		for name, vs := range attrs {
			for value, want := range map[string]int{"forever": 1, "-5m": 1, "90s": 0} {
				var diags diag.Diagnostics
				for _, v := range vs {
					resp := &validator.StringResponse{}
					v.ValidateString(ctx, validator.StringRequest{Path: path.Root("timeouts").AtName(name), ConfigValue: types.StringValue(value)}, resp)
					diags.Append(resp.Diagnostics...)
				}
				if diags.ErrorsCount() != want {
					t.Errorf("%s timeouts.%s = %q: %d errors (%v), want %d", owner, name, value, diags.ErrorsCount(), diags, want)
				}
			}
			checked++
		}
	}
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta fwresource.MetadataResponse
		r.Metadata(ctx, fwresource.MetadataRequest{ProviderTypeName: "clipper"}, &meta)
		var s fwresource.SchemaResponse
		r.Schema(ctx, fwresource.SchemaRequest{}, &s)
		if nested, ok := s.Schema.Attributes["timeouts"].(rschema.SingleNestedAttribute); ok {
			check(meta.TypeName, stringValidatorsOf(t, meta.TypeName, nested.Attributes))
		}
	}
	for _, newDataSource := range p.DataSources(ctx) {
		d := newDataSource()
		var meta datasource.MetadataResponse
		d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "clipper"}, &meta)
		var s datasource.SchemaResponse
		d.Schema(ctx, datasource.SchemaRequest{}, &s)
		if nested, ok := s.Schema.Attributes["timeouts"].(dsschema.SingleNestedAttribute); ok {
			check(meta.TypeName, stringValidatorsOf(t, meta.TypeName, nested.Attributes))
		}
	}
	if checked == 0 {
		t.Fatal("no timeouts argument found")
	}
}

type validatorsOf = []validator.String

// stringValidatorsOf are the validators of each of owner's timeouts
// durations (string attributes of a resource or a data source schema).
func stringValidatorsOf[A any](t *testing.T, owner string, attrs map[string]A) map[string]validatorsOf {
	t.Helper()
	out := make(map[string]validatorsOf, len(attrs))
	for name, a := range attrs {
		s, ok := any(a).(interface{ StringValidators() []validator.String })
		if !ok {
			t.Fatalf("%s timeouts.%s is %T, not a string", owner, name, a)
		}
		out[name] = s.StringValidators()
	}
	return out
}
