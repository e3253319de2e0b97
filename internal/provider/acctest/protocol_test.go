package acctest

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// protocolDelete destroys a resource of type typ whose state holds attrs
// (every other attribute null) by calling the provider, configured for env,
// as Terraform does: ConfigureProvider, then ApplyResourceChange with a
// null planned state. It tests a Delete that a Terraform run cannot reach,
// as the refresh before a destroy would see first what Delete meets, and
// returns the diagnostics.
func protocolDelete(t *testing.T, env accEnv, typ string, attrs map[string]tftypes.Value) []*tfprotov6.Diagnostic {
	t.Helper()
	ctx := t.Context()
	srv, err := testAccProviders()["clipper"]()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	resourceSchema, ok := schemas.ResourceSchemas[typ]
	if !ok {
		t.Fatalf("the provider has no resource %s", typ)
	}
	config := objectValue(t, schemas.Provider, map[string]tftypes.Value{
		"base_url":            tftypes.NewValue(tftypes.String, env.URL),
		"api_key":             tftypes.NewValue(tftypes.String, accAPIKey),
		"requests_per_minute": tftypes.NewValue(tftypes.Number, big.NewFloat(600)),
	})
	configured, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &config})
	if err != nil {
		t.Fatal(err)
	}
	failOnErrors(t, "configuring the provider", configured.Diagnostics)
	prior := objectValue(t, resourceSchema, attrs)
	null, err := tfprotov6.NewDynamicValue(resourceSchema.ValueType(), tftypes.NewValue(resourceSchema.ValueType(), nil))
	if err != nil {
		t.Fatal(err)
	}
	applied, err := srv.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: typ, PriorState: &prior, PlannedState: &null, Config: &null,
	})
	if err != nil {
		t.Fatal(err)
	}
	return applied.Diagnostics
}

// objectValue is a value of schema s with the attributes of set and every
// other attribute null.
func objectValue(t *testing.T, s *tfprotov6.Schema, set map[string]tftypes.Value) tfprotov6.DynamicValue {
	t.Helper()
	typ, ok := s.ValueType().(tftypes.Object)
	if !ok {
		t.Fatalf("a schema of type %s, want an object", s.ValueType())
	}
	values := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range set {
		if _, ok := typ.AttributeTypes[name]; !ok {
			t.Fatalf("the schema has no attribute %s", name)
		}
		values[name] = v
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		t.Fatal(err)
	}
	return dv
}

// failOnErrors fails the test when diags hold an error.
func failOnErrors(t *testing.T, what string, diags []*tfprotov6.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("%s: %s: %s", what, d.Summary, d.Detail)
		}
	}
}

// diagnosticsText is diags as a reader wants them in a failure.
func diagnosticsText(diags []*tfprotov6.Diagnostic) string {
	parts := make([]string, 0, len(diags))
	for _, d := range diags {
		parts = append(parts, fmt.Sprintf("%s %q: %q", d.Severity, d.Summary, d.Detail))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}
