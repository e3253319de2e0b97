// Package diagline moves the attribute path of a provider's diagnostics to the
// deepest step Terraform can find in the configuration, so that Terraform shows
// the argument at fault instead of the resource block's first line.
//
// Terraform places a diagnostic by walking its attribute path through nested
// blocks only. A path that goes on into the object of a nested attribute
// (`render = { font = { numerical_size = 0 } }`) is not found, and Terraform
// cites the whole resource block (hashicorp/terraform#33491, open). Cut after
// the first attribute, and after the index of a list or map element that
// follows it, the path is found: Terraform shows that argument's lines (or the
// element's). The detail keeps the whole path, so the message still names the
// value.
package diagline

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Wrap returns a server that answers as inner does, with the attribute paths of
// the diagnostics of validation, plan, apply and read cut where Terraform finds
// them.
func Wrap(inner tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	return &server{ProviderServer: inner}
}

type server struct {
	tfprotov6.ProviderServer

	once    sync.Once
	schemas *tfprotov6.GetProviderSchemaResponse
}

// schema returns the block of the provider (kind "provider"), a resource or a
// data source; nil when unknown, and then paths are cut as though it had no
// nested blocks.
func (s *server) schema(ctx context.Context, kind, typeName string) *tfprotov6.SchemaBlock {
	s.once.Do(func() {
		resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err == nil {
			s.schemas = resp
		}
	})
	if s.schemas == nil {
		return nil
	}
	var sc *tfprotov6.Schema
	switch kind {
	case "provider":
		sc = s.schemas.Provider
	case "resource":
		sc = s.schemas.ResourceSchemas[typeName]
	case "data":
		sc = s.schemas.DataSourceSchemas[typeName]
	}
	if sc == nil {
		return nil
	}
	return sc.Block
}

func (s *server) fix(ctx context.Context, kind, typeName string, diags []*tfprotov6.Diagnostic) {
	if len(diags) == 0 {
		return
	}
	block := s.schema(ctx, kind, typeName)
	for _, d := range diags {
		Fix(d, block)
	}
}

func (s *server) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, req)
	if resp != nil {
		s.fix(ctx, "provider", "", resp.Diagnostics)
	}
	return resp, err
}

func (s *server) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := s.ProviderServer.ConfigureProvider(ctx, req)
	if resp != nil {
		s.fix(ctx, "provider", "", resp.Diagnostics)
	}
	return resp, err
}

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		s.fix(ctx, "resource", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.fix(ctx, "resource", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		s.fix(ctx, "resource", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.ProviderServer.ReadResource(ctx, req)
	if resp != nil {
		s.fix(ctx, "resource", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s *server) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		s.fix(ctx, "data", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

func (s *server) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		s.fix(ctx, "data", req.TypeName, resp.Diagnostics)
	}
	return resp, err
}

// Fix cuts d's attribute path where Terraform finds it in a configuration of
// block (nil: a block without nested blocks). When it cuts, the detail is made
// to name the whole path if it did not.
func Fix(d *tfprotov6.Diagnostic, block *tfprotov6.SchemaBlock) {
	if d == nil || d.Attribute == nil {
		return
	}
	steps := d.Attribute.Steps()
	n := Findable(steps, block)
	if n == len(steps) {
		return
	}
	full := Format(steps)
	d.Attribute = tftypes.NewAttributePathWithSteps(steps[:n])
	if !strings.Contains(d.Summary+" "+d.Detail, full) {
		d.Detail = strings.TrimSpace(full + ": " + d.Detail)
	}
}

// Findable returns how many leading steps of a path Terraform finds in a
// configuration of block: through nested blocks (and the index of a list or map
// block's element), then one attribute, then the index of its element.
func Findable(steps []tftypes.AttributePathStep, block *tfprotov6.SchemaBlock) int {
	for i := 0; i < len(steps); i++ {
		name, ok := steps[i].(tftypes.AttributeName)
		if !ok {
			return i
		}
		nested := nestedBlock(block, string(name))
		if nested == nil {
			// An attribute: its expression, and an element of it when indexed.
			if i+1 < len(steps) && isIndex(steps[i+1]) {
				return i + 2
			}
			return i + 1
		}
		switch nested.Nesting {
		case tfprotov6.SchemaNestedBlockNestingModeSingle, tfprotov6.SchemaNestedBlockNestingModeGroup:
		case tfprotov6.SchemaNestedBlockNestingModeList, tfprotov6.SchemaNestedBlockNestingModeMap:
			if i+1 >= len(steps) || !isIndex(steps[i+1]) {
				return i + 1
			}
			i++
		default: // a set's elements have no address in the configuration
			return i + 1
		}
		block = nested.Block
	}
	return len(steps)
}

func nestedBlock(block *tfprotov6.SchemaBlock, name string) *tfprotov6.SchemaNestedBlock {
	if block == nil {
		return nil
	}
	for _, b := range block.BlockTypes {
		if b != nil && b.TypeName == name {
			return b
		}
	}
	return nil
}

func isIndex(step tftypes.AttributePathStep) bool {
	switch step.(type) {
	case tftypes.ElementKeyInt, tftypes.ElementKeyString:
		return true
	}
	return false
}

// Format writes a path as the framework's messages do: render.font.style[0],
// tags["env"].
func Format(steps []tftypes.AttributePathStep) string {
	var b strings.Builder
	for _, st := range steps {
		switch s := st.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		case tftypes.ElementKeyValue:
			fmt.Fprintf(&b, "[Value(%s)]", tftypes.Value(s).String())
		}
	}
	return b.String()
}
