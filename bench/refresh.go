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

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// refreshConfig is %[1]d collections, %[2]d clip projects and two contents
// in each collection, their ids taken from the clips of %[3]s (the projects,
// or data sources %[4]s declares): collection j holds the first clip of
// project j*P/N and of the next project.
const refreshConfig = `
terraform {
  required_providers {
    clipper = { source = "clipperhq/clipper" }
  }
}

variable "source_file" { type = string }

resource "clipper_clip_project" "bench" {
  count       = %[2]d
  source_file = var.source_file
  title       = "bench ${count.index}"
  curation = {
    skip_curate = true
  }
}

resource "clipper_collection" "bench" {
  count = %[1]d
  name  = "bench ${count.index}"
}

%[4]s
resource "clipper_collection_content" "first" {
  count         = %[1]d
  collection_id = clipper_collection.bench[count.index].id
  content_id    = %[3]s[floor(count.index * %[2]d / %[1]d)].clips[0].id
}

resource "clipper_collection_content" "second" {
  count         = %[1]d
  collection_id = clipper_collection.bench[count.index].id
  content_id    = %[3]s[(floor(count.index * %[2]d / %[1]d) + 1) %% %[2]d].clips[0].id
}
`

// refreshDataSources reads each project's clips with a data source, for
// --data-sources (configurations written before projects had clips).
const refreshDataSources = `
data "clipper_exportable_clips" "bench" {
  count      = %d
  project_id = clipper_clip_project.bench[count.index].id
}
`

// runRefresh applies N collections holding two clips each of P clip
// projects, then measures the API calls of one `terraform plan` (a refresh
// of every resource) per route, twice: against clipperd as it is, and
// against clipperd listing the account's collections --page to a page (a
// service with small pages). A provider that read each resource on its own
// would make N + 2N + 2P calls.
func runRefresh(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("refresh", flag.ContinueOnError)
	collections := fs.Int("collections", 20, "clipper_collection resources, each holding two clips (clipper_collection_content)")
	projects := fs.Int("projects", 4, "clipper_clip_project resources whose clips the collections hold")
	page := fs.Int("page", 2, "collections per page of the small-page server")
	dataSources := fs.Bool("data-sources", false, "take the clip ids from clipper_exportable_clips data sources, one per project")
	settle := fs.Duration("settle", 61*time.Second, "wait before each plan, so earlier requests have left the server's one-minute rate window")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *projects < 2 {
		return fmt.Errorf("--projects must be at least 2: a collection holds the clips of two projects")
	}
	b, err := newTFBench(ctx, "refresh")
	if err != nil {
		return err
	}
	defer b.Close()

	src := filepath.Join(b.work, "source.mp4")
	if err := testvideo.Generate(ctx, src, testvideo.Options{Duration: 20 * time.Second}); err != nil {
		return err
	}
	clips, extra := "clipper_clip_project.bench", ""
	if *dataSources {
		clips, extra = "data.clipper_exportable_clips.bench", fmt.Sprintf(refreshDataSources, *projects)
	}
	if err := b.writeConfig(fmt.Sprintf(refreshConfig, *collections, *projects, clips, extra)); err != nil {
		return err
	}
	vars := "-var=source_file=" + src
	if _, err := b.terraform(ctx, "apply", "-auto-approve", "-input=false", "-no-color", vars); err != nil {
		return err
	}
	small, err := newCountingProxy(b.srv.URL())
	if err != nil {
		return err
	}
	defer small.Close()
	small.collectionLimit = *page

	fmt.Printf("### terraform plan (refresh) of %d collections, %d collection contents and %d clip projects\n\n",
		*collections, 2**collections, *projects)
	if *dataSources {
		fmt.Printf("The contents take their clip ids from a `clipper_exportable_clips` data source per project.\n\n")
	}
	servers := []struct {
		name  string
		proxy *countingProxy
	}{{"clipperd (collections 20 to a page)", b.proxy}, {fmt.Sprintf("small pages (collections %d to a page)", *page), small}}
	results := make([]planCalls, len(servers))
	for i, s := range servers {
		// Each plan runs in a new provider process whose limiter knows
		// nothing of the earlier requests; right after them it would meet
		// the server's window still full and wait out a 429.
		select {
		case <-time.After(*settle):
		case <-ctx.Done():
			return ctx.Err()
		}
		if results[i], err = b.countPlan(ctx, s.proxy, vars); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	routes := map[string]bool{}
	for _, r := range results {
		for route := range r.byRoute {
			routes[route] = true
		}
	}
	keys := make([]string, 0, len(routes))
	for r := range routes {
		keys = append(keys, r)
	}
	sort.Strings(keys)
	fmt.Printf("| route | %s | %s |\n|---|---|---|\n", servers[0].name, servers[1].name)
	for _, r := range keys {
		fmt.Printf("| `%s` | %d | %d |\n", r, results[0].byRoute[r], results[1].byRoute[r])
	}
	fmt.Printf("| **all routes** | **%d** | **%d** |\n", results[0].total, results[1].total)
	fmt.Printf("| minimum (collection pages + a listing per collection + a read and a listing per project) | %d | %d |\n",
		minimumRefresh(*collections, *projects, 20), minimumRefresh(*collections, *projects, *page))
	fmt.Printf("| 429s | %d | %d |\n| wall time of the plan | %.1f s | %.1f s |\n\n",
		results[0].status429, results[1].status429, results[0].wall.Seconds(), results[1].wall.Seconds())
	fmt.Printf("A provider reading each resource on its own: %d calls. Both plans were empty (`-detailed-exitcode` 0).\n",
		*collections+2**collections+2**projects)
	return nil
}

// minimumRefresh is the fewest calls a refresh needs: every page of the
// account's collections, each collection's clip listing, and each project's
// read and clip listing.
func minimumRefresh(collections, projects, page int) int {
	return (collections+page-1)/page + collections + 2*projects
}

// planCalls is what one plan sent through a proxy.
type planCalls struct {
	byRoute   map[string]int
	total     int
	status429 int
	wall      time.Duration
}

// countPlan runs `terraform plan` through proxy and returns its calls.
func (b *tfBench) countPlan(ctx context.Context, proxy *countingProxy, vars string) (planCalls, error) {
	proxy.reset()
	env := b.env
	b.env = append(append([]string(nil), env...), "CLIPPER_BASE_URL="+proxy.URL())
	defer func() { b.env = env }()
	start := time.Now()
	if _, err := b.terraform(ctx, "plan", "-input=false", "-no-color", "-detailed-exitcode", vars); err != nil {
		return planCalls{}, fmt.Errorf("the plan after apply is not empty, or failed: %w", err)
	}
	wall := time.Since(start)
	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	out := planCalls{byRoute: map[string]int{}, total: proxy.total, status429: proxy.status429, wall: wall}
	for r, n := range proxy.byRoute {
		out.byRoute[r] = n
	}
	fmt.Fprintln(os.Stderr, "request timeline of the plan (seconds since it started):")
	fmt.Fprintln(os.Stderr, strings.Join(proxy.Timeline, "\n"))
	return out, nil
}
