package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	dstimeouts "github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
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

// defaultWriteTimeout bounds a create or delete that makes one write (a
// collection, a clip added to one, a post, a schedule) when the
// configuration's timeouts block does not: the time an outage of the service
// is ridden out before the write fails.
const defaultWriteTimeout = 5 * time.Minute

// writeTimeoutsAttribute is the timeouts argument of a resource whose create
// (and delete, when opts has it) makes one write to the service.
func writeTimeoutsAttribute(ctx context.Context, opts timeouts.Opts) schema.Attribute {
	a := timeouts.Attributes(ctx, opts)
	nested, ok := a.(schema.SingleNestedAttribute)
	if !ok {
		return a
	}
	ops := "`create`"
	if opts.Delete {
		ops = "`create` and `delete`"
	}
	nested.MarkdownDescription = fmt.Sprintf("Operation timeouts as duration strings such as `30s` or `10m`. %s (default "+
		"`%dm`) bound the write to the service, an outage ridden out included: until then, a request that is safe to send "+
		"again (a read or a delete, or a create whose connection was refused, so the service never saw it) is sent again "+
		"after network errors and 5xx answers, with a WARN log line for each (`TF_LOG=INFO` shows them). A create the "+
		"service may have acted on is never sent again.",
		ops, int(defaultWriteTimeout.Minutes()))
	return checkedTimeouts(nested)
}

// writeContext bounds ctx by timeout (a timeouts block's create or delete,
// defaultWriteTimeout when unset) and rides out outages until then.
func writeContext(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics),
	diags *diag.Diagnostics) (context.Context, context.CancelFunc, bool) {
	ctx, cancel, _, ok := withTimeout(ctx, timeout, defaultWriteTimeout, diags)
	return client.RideOutOutages(ctx), cancel, ok
}
