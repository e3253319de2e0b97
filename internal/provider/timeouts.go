package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
)

// withTimeout bounds ctx by the timeout the configuration's timeouts block
// gives for one operation (timeout is e.g. plan.Timeouts.Create), or def.
// ok is false when reading the timeout failed; diags then holds why.
func withTimeout(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics),
	def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, time.Duration, bool) {
	d, ds := timeout(ctx, def)
	diags.Append(ds...)
	if diags.HasError() {
		return ctx, func() {}, 0, false
	}
	bounded, cancel := context.WithTimeout(ctx, d)
	return bounded, cancel, d, true
}

// defaultDataSourceReadTimeout bounds a data source's read when its timeouts
// block does not: every request the read makes, retries and waits for the
// rate limit included.
const defaultDataSourceReadTimeout = 5 * time.Minute

// dataSourceTimeoutsAttribute is the timeouts argument of the data sources
// that read once.
func dataSourceTimeoutsAttribute(ctx context.Context) dsschema.Attribute {
	return describedReadTimeouts(ctx, fmt.Sprintf("`read` bounds the whole read, retries included, as a duration string "+
		"such as `30s` or `2m`; default `%dm`.", int(defaultDataSourceReadTimeout.Minutes())))
}

// describedReadTimeouts is a data source's timeouts argument (read only) with
// a description for the docs.
func describedReadTimeouts(ctx context.Context, desc string) dsschema.Attribute {
	a := dstimeouts.Attributes(ctx)
	nested, ok := a.(dsschema.SingleNestedAttribute)
	if !ok {
		return a
	}
	nested.MarkdownDescription = desc
	for name, a := range nested.Attributes {
		if s, ok := a.(dsschema.StringAttribute); ok {
			s.Validators = []validator.String{validators.Timeout()} // see checkedTimeouts
			nested.Attributes[name] = s
		}
	}
	return nested
}

// checkedTimeouts is a resource's timeouts argument with every duration held
// to rules.Timeout: the library only checks that they parse, and a zero or
// negative one would end the operation before its first request. The rule
// replaces the library's check, which it includes, so that a value such as
// "forever" gets one error, not two.
func checkedTimeouts(nested schema.SingleNestedAttribute) schema.SingleNestedAttribute {
	for name, a := range nested.Attributes {
		if s, ok := a.(schema.StringAttribute); ok {
			s.Validators = []validator.String{validators.Timeout()}
			nested.Attributes[name] = s
		}
	}
	return nested
}

// readFailure is the error of a data source read bounded by ctx; one cut
// short by its timeout says which argument bounds it. Only ctx ending is that
// timeout: a call that gave up after its attempts (each attempt has a
// deadline of its own) failed for the cause err names.
func readFailure(ctx context.Context, summary string, timeout time.Duration, err error) diag.Diagnostic {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return diag.NewAttributeErrorDiagnostic(path.Root("timeouts").AtName("read"), summary,
			fmt.Sprintf("timeouts.read: the service did not answer within %s (%s). Raise timeouts.read to wait longer.", timeout, err))
	}
	return diag.NewErrorDiagnostic(summary, err.Error())
}
