package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
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
