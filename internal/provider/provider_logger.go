package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// apiLogSubsystem names the provider log subsystem of the API client's
// request logs (@module ends in .api).
const apiLogSubsystem = "api"

// apiLogCallerOffset skips the two frames between the client code that logs
// and tflog: tflogAdapter's method and the client's own debug/trace helper,
// so @caller names the client line that made the request, not this file.
const apiLogCallerOffset = 2

// tflogAdapter sends the API client's request logs to Terraform's provider log.
// The client already masks the Authorization header; the adapter also masks the
// key anywhere else it could appear. Each call carries the context of the
// operation in progress, so the subsystem and its masks are set up per call.
type tflogAdapter struct {
	apiKey string
}

func (a tflogAdapter) logger(ctx context.Context) context.Context {
	ctx = tflog.NewSubsystem(ctx, apiLogSubsystem, tflog.WithAdditionalLocationOffset(apiLogCallerOffset))
	if a.apiKey == "" {
		return ctx
	}
	ctx = tflog.SubsystemMaskAllFieldValuesStrings(ctx, apiLogSubsystem, a.apiKey)
	return tflog.SubsystemMaskMessageStrings(ctx, apiLogSubsystem, a.apiKey)
}

// Warn logs at WARN level: outages ridden out show at TF_LOG=INFO.
func (a tflogAdapter) Warn(ctx context.Context, msg string, fields map[string]any) {
	tflog.SubsystemWarn(a.logger(ctx), apiLogSubsystem, msg, fields)
}

// Debug logs at DEBUG level.
func (a tflogAdapter) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.SubsystemDebug(a.logger(ctx), apiLogSubsystem, msg, fields)
}

// Trace logs at TRACE level.
func (a tflogAdapter) Trace(ctx context.Context, msg string, fields map[string]any) {
	tflog.SubsystemTrace(a.logger(ctx), apiLogSubsystem, msg, fields)
}
