package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
)

// benchKey is the API key of the benchmarks' in-process clipperd.
const benchKey = "bench-key"

// tfBench is what a Terraform benchmark runs against: the provider built
// from this checkout, an in-process clipperd at its default limits, and a
// counting proxy between the two.
type tfBench struct {
	work  string
	srv   *server.Server
	proxy *countingProxy
	env   []string // for terraform: dev_overrides to the built provider, key and proxy address
	tfDir string
}

// newTFBench makes a work directory named after name, builds the provider
// into it and starts clipperd and the proxy; Close stops them and removes
// the directory.
func newTFBench(ctx context.Context, name string) (*tfBench, error) {
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "clipper-bench-"+name+"-")
	if err != nil {
		return nil, err
	}
	b := &tfBench{work: work, tfDir: filepath.Join(work, "tf")}
	if err := b.start(ctx, root); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func (b *tfBench) start(ctx context.Context, root string) error {
	work := b.work
	provider := filepath.Join(work, "bin", "terraform-provider-clipper")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", provider, root).CombinedOutput(); err != nil {
		return fmt.Errorf("build provider: %w\n%s", err, out)
	}
	var err error
	if b.srv, err = server.Start(ctx, server.Config{Listen: "127.0.0.1:0", DataDir: filepath.Join(work, "data"), APIKey: benchKey}); err != nil {
		return err
	}
	if b.proxy, err = newCountingProxy(b.srv.URL()); err != nil {
		return err
	}
	rc := filepath.Join(work, "terraformrc")
	rcText := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/clipperhq/clipper\" = %q\n  }\n  direct {}\n}\n", filepath.Dir(provider))
	if err := os.WriteFile(rc, []byte(rcText), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(b.tfDir, 0o755); err != nil {
		return err
	}
	b.env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1",
		"CLIPPER_API_KEY="+benchKey, "CLIPPER_BASE_URL="+b.proxy.URL())
	return nil
}

// writeConfig writes the Terraform configuration the benchmark applies.
func (b *tfBench) writeConfig(text string) error {
	return os.WriteFile(filepath.Join(b.tfDir, "main.tf"), []byte(text), 0o644)
}

// terraform runs terraform with args in the configuration's directory and
// returns its standard output.
func (b *tfBench) terraform(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "terraform", args...)
	var stderr bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stderr = b.tfDir, b.env, &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("terraform %s: %w\n%s%s", args[0], err, out, stderr.Bytes())
	}
	return out, nil
}

func (b *tfBench) Close() {
	if b.proxy != nil {
		b.proxy.Close()
	}
	if b.srv != nil {
		_ = b.srv.Close()
	}
	_ = os.RemoveAll(b.work)
}
