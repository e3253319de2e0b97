package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

const refreshConfig = `
terraform {
  required_providers {
    clipper = { source = "clipperhq/clipper" }
  }
}

variable "contents" { type = list(string) }

resource "clipper_collection" "bench" {
  count = %[1]d
  name  = "bench ${count.index}"
}

# Each collection holds every clip of var.contents.
resource "clipper_collection_content" "bench" {
  count         = %[1]d * length(var.contents)
  collection_id = clipper_collection.bench[count.index %% %[1]d].id
  content_id    = var.contents[floor(count.index / %[1]d)]
}
`

// runRefresh applies N collections holding M clips each, then measures the
// API calls of one `terraform plan` (a refresh of every resource) per route.
// A provider that read each resource on its own would make N + N*M calls.
func runRefresh(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("refresh", flag.ContinueOnError)
	collections := fs.Int("collections", 20, "clipper_collection resources")
	perCollection := fs.Int("contents", 2, "clips in each collection (clipper_collection_content resources per collection)")
	settle := fs.Duration("settle", 61*time.Second, "wait between apply and plan, so the apply's requests have left the server's one-minute rate window")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := newTFBench(ctx, "refresh")
	if err != nil {
		return err
	}
	defer b.Close()

	contents, err := benchClips(ctx, b, *perCollection)
	if err != nil {
		return err
	}
	if err := b.writeConfig(fmt.Sprintf(refreshConfig, *collections)); err != nil {
		return err
	}
	vars := `-var=contents=["` + strings.Join(contents, `","`) + `"]`
	if _, err := b.terraform(ctx, "apply", "-auto-approve", "-input=false", "-no-color", vars); err != nil {
		return err
	}
	// The plan runs in a new provider process whose limiter knows nothing of
	// the apply's requests; a refresh right after the apply would meet the
	// server's window still full of them and wait out a 429.
	select {
	case <-time.After(*settle):
	case <-ctx.Done():
		return ctx.Err()
	}
	b.proxy.reset()
	start := time.Now()
	if _, err := b.terraform(ctx, "plan", "-input=false", "-no-color", "-detailed-exitcode", vars); err != nil {
		return fmt.Errorf("the plan after apply is not empty, or failed: %w", err)
	}
	wall := time.Since(start)

	b.proxy.mu.Lock()
	defer b.proxy.mu.Unlock()
	var rows []string
	for r, n := range b.proxy.byRoute {
		rows = append(rows, fmt.Sprintf("| `%s` | %d |", r, n))
	}
	sort.Strings(rows)
	resources := *collections + *collections**perCollection
	fmt.Printf("### terraform plan (refresh) of %d collections and %d collection contents\n\n", *collections, *collections**perCollection)
	fmt.Printf("| route | calls |\n|---|---|\n%s\n", strings.Join(rows, "\n"))
	fmt.Printf("| **all routes** | **%d** (a provider reading each resource on its own: %d) |\n\n", b.proxy.total, resources)
	fmt.Printf("429s among them (each a request sent again): %d. Wall time of the plan: %.1f s; the plan was empty (`-detailed-exitcode` 0).\n",
		b.proxy.status429, wall.Seconds())
	fmt.Fprintln(os.Stderr, "request timeline of the plan (seconds since it started):")
	fmt.Fprintln(os.Stderr, strings.Join(b.proxy.Timeline, "\n"))
	return nil
}

// benchClips makes one COMPLETE project with at least n clips (clipperd
// makes about one per 90 s of source without a transcript) through the
// API and returns the composite ids of n of its clips.
func benchClips(ctx context.Context, b *tfBench, n int) ([]string, error) {
	src := filepath.Join(b.work, "source.mp4")
	if err := testvideo.Generate(ctx, src, testvideo.Options{Duration: time.Duration(n) * 100 * time.Second}); err != nil {
		return nil, err
	}
	c, err := client.New(client.Config{BaseURL: b.srv.URL(), APIKey: benchKey})
	if err != nil {
		return nil, err
	}
	uploadID, err := c.UploadFile(ctx, src)
	if err != nil {
		return nil, err
	}
	p, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{VideoURL: uploadID,
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{8, 20}}}})
	if err != nil {
		return nil, err
	}
	if p, err = c.WaitForProject(ctx, p.ID, client.WaitOptions{PollInterval: time.Second, Known: p}); err != nil {
		return nil, err
	}
	clips, err := c.ListExportableClips(ctx, client.ClipFilter{ProjectID: p.ID})
	if err != nil {
		return nil, err
	}
	if len(clips) < n {
		return nil, fmt.Errorf("the project made %d clips, want at least %d", len(clips), n)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = clips[i].ID
	}
	return ids, nil
}
