package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// tflogAdapter sends the API client's request logs to Terraform's provider log.
// The client already masks the Authorization header; the adapter also masks the
// key anywhere else it could appear, because each call carries the context of
// the operation in progress, not the one Configure masked.
type tflogAdapter struct {
	apiKey string
}

func (a tflogAdapter) mask(ctx context.Context) context.Context {
	if a.apiKey == "" {
		return ctx
	}
	ctx = tflog.MaskAllFieldValuesStrings(ctx, a.apiKey)
	return tflog.MaskMessageStrings(ctx, a.apiKey)
}

// Debug logs at DEBUG level.
func (a tflogAdapter) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(a.mask(ctx), msg, fields)
}

// Trace logs at TRACE level.
func (a tflogAdapter) Trace(ctx context.Context, msg string, fields map[string]any) {
	tflog.Trace(a.mask(ctx), msg, fields)
}
