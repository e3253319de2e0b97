package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
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
// of every resource) per route against clipperd as it is and against
// clipperd listing the account's collections --page to a page (a service
// with small pages; with --strict also saying its rate window only in its
// 429s). With --baseline each plan is made by the provider built at that
// git revision too, side by side. A provider that read each resource on its
// own would make N + 2N + 2P calls.
func runRefresh(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("refresh", flag.ContinueOnError)
	collections := fs.Int("collections", 20, "clipper_collection resources, each holding two clips (clipper_collection_content)")
	projects := fs.Int("projects", 4, "clipper_clip_project resources whose clips the collections hold")
	page := fs.Int("page", 2, "collections per page of the small-page server")
	dataSources := fs.Bool("data-sources", false, "take the clip ids from clipper_exportable_clips data sources, one per project")
	settle := fs.Duration("settle", 61*time.Second, "wait before each plan, so earlier requests have left the server's one-minute rate window")
	strict := fs.Bool("strict", false, "the small-page server sends the rate-limit headers (X-RateLimit-*, Retry-After) only with its 429s")
	fill := fs.Bool("fill", false, "after the wait, fill the server's rate window as an apply just before the plan would: "+
		"one project read, half a minute later as many as the window has room for")
	baseline := fs.String("baseline", "", "also plan with the provider built at this git revision (e.g. main), beside this checkout's")
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
	providers := []benchProvider{{name: "this checkout", env: b.env}}
	if *baseline != "" {
		env, err := b.providerAt(ctx, *baseline)
		if err != nil {
			return err
		}
		providers = append([]benchProvider{{name: *baseline, env: env}}, providers...)
	}

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
	upstream := b.srv.URL()
	if *strict {
		quiet := newQuietProxy(upstream)
		defer quiet.Close()
		upstream = quiet.URL
	}
	small, err := newCountingProxy(upstream)
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
	smallName := fmt.Sprintf("small pages (collections %d to a page)", *page)
	if *strict {
		smallName = fmt.Sprintf("strict (collections %d to a page, rate-limit headers only on 429)", *page)
	}
	servers := []benchServer{{"clipperd (collections 20 to a page)", b.proxy}, {smallName, small}}
	columns, results, err := b.planEach(ctx, servers, providers, *settle, *fill, vars)
	if err != nil {
		return err
	}
	printPlanCalls(columns, results)
	pages := []int{20, *page}
	perServer := func(name string, calls func(page int) int) {
		cells := make([]string, 0, len(columns))
		for _, pg := range pages {
			for range providers {
				cells = append(cells, fmt.Sprint(calls(pg)))
			}
		}
		fmt.Printf("| %s | %s |\n", name, strings.Join(cells, " | "))
	}
	collectionCalls := func(pg int) int { return (*collections+pg-1)/pg + *collections }
	perServer("collection pages + a clip listing per collection", collectionCalls)
	perServer("minimum, with a read and a clip listing per project", func(pg int) int { return collectionCalls(pg) + 2**projects })
	perServer("target: collection calls + 1.2 per project", func(pg int) int { return collectionCalls(pg) + (*projects*12+9)/10 })
	perServer("minimum, with a read per project", func(pg int) int { return collectionCalls(pg) + *projects })
	fmt.Printf("\nA provider reading each resource on its own: %d calls. Every plan was empty (`-detailed-exitcode` 0).\n",
		*collections+2**collections+2**projects)
	return nil
}

// benchProvider is a provider build the plans run with: the environment
// whose TF_CLI_CONFIG_FILE points Terraform at it.
// benchServer is a server the plans of runRefresh are counted on, through
// its proxy.
type benchServer struct {
	name  string
	proxy *countingProxy
}

// planEach counts a plan of every provider on every server, each after
// settle (and, with fill, a full rate window), as the columns of a table.
func (b *tfBench) planEach(ctx context.Context, servers []benchServer, providers []benchProvider, settle time.Duration, fill bool,
	vars string) (columns []string, results []planCalls, err error) {
	for _, s := range servers {
		for _, p := range providers {
			// Each plan runs in a new provider process whose limiter knows
			// nothing of the earlier requests; right after them it would meet
			// the server's window still full.
			select {
			case <-time.After(settle):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			if fill {
				if err := b.fillWindow(ctx); err != nil {
					return nil, nil, err
				}
			}
			r, err := b.countPlan(ctx, s.proxy, p.env, vars)
			if err != nil {
				return nil, nil, fmt.Errorf("%s, provider %s: %w", s.name, p.name, err)
			}
			columns, results = append(columns, s.name+", "+p.name), append(results, r)
		}
	}
	return columns, results, nil
}

type benchProvider struct {
	name string
	env  []string
}

// printPlanCalls prints the calls of each plan per route, a column each.
func printPlanCalls(columns []string, results []planCalls) {
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
	row := func(name string, cell func(planCalls) string) {
		cells := make([]string, len(results))
		for i, r := range results {
			cells[i] = cell(r)
		}
		fmt.Printf("| %s | %s |\n", name, strings.Join(cells, " | "))
	}
	fmt.Printf("| route | %s |\n|---|%s\n", strings.Join(columns, " | "), strings.Repeat("---|", len(columns)))
	for _, route := range keys {
		row("`"+route+"`", func(r planCalls) string { return fmt.Sprint(r.byRoute[route]) })
	}
	row("**all routes**", func(r planCalls) string { return fmt.Sprintf("**%d**", r.total) })
	row("429s", func(r planCalls) string { return fmt.Sprint(r.status429) })
	row("wall time of the plan", func(r planCalls) string { return fmt.Sprintf("%.1f s", r.wall.Seconds()) })
}

// providerAt builds the provider at git revision rev of this checkout and
// returns the Terraform environment that uses it.
func (b *tfBench) providerAt(ctx context.Context, rev string) ([]string, error) {
	src := filepath.Join(b.work, "src-"+strings.NewReplacer("/", "-", ".", "-").Replace(rev))
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	archive := exec.CommandContext(ctx, "sh", "-c", `git archive "$1" | tar -x -C "$2"`, "sh", rev, src)
	if out, err := archive.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git archive %s: %w\n%s", rev, err, out)
	}
	bin := filepath.Join(src, "bin")
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "terraform-provider-clipper"), ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the provider at %s: %w\n%s", rev, err, out)
	}
	rc := filepath.Join(src, "terraformrc")
	rcText := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/clipperhq/clipper\" = %q\n  }\n  direct {}\n}\n", bin)
	if err := os.WriteFile(rc, []byte(rcText), 0o644); err != nil {
		return nil, err
	}
	return append(append([]string(nil), b.env...), "TF_CLI_CONFIG_FILE="+rc), nil
}

// fillWindow fills the rate window of the bench's key on clipperd as an
// apply just before a plan leaves it: one project read, then, half a window
// later, as many as the window still has room for (it answers how many).
// So the plan's first 429 says Retry-After of about half a minute, when one
// slot frees and not the window.
func (b *tfBench) fillWindow(ctx context.Context) error {
	// Any request to a rate-limited endpoint counts: a read of a project
	// that does not exist (404) changes nothing.
	read := func() (remaining int, err error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.srv.URL()+"/api/clip-projects/fill-window", nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+benchKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
	}
	if _, err := read(); err != nil {
		return fmt.Errorf("fill the rate window: %w", err)
	}
	select {
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
		return ctx.Err()
	}
	for {
		left, err := read()
		if err != nil {
			return fmt.Errorf("fill the rate window: %w", err)
		}
		if left <= 0 {
			return nil
		}
	}
}

// newQuietProxy stands in front of upstream (clipperd, which keeps the rate
// window) for a service that says its window only in its 429s: it drops
// Retry-After and X-RateLimit-* from every other answer.
func newQuietProxy(upstream string) *httptest.Server {
	u, err := url.Parse(upstream)
	if err != nil {
		panic(err) // clipperd's own address
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode != http.StatusTooManyRequests {
			for _, h := range []string{"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				resp.Header.Del(h)
			}
		}
		return nil
	}
	return httptest.NewServer(rp)
}

// planCalls is what one plan sent through a proxy.
type planCalls struct {
	byRoute   map[string]int
	total     int
	status429 int
	wall      time.Duration
}

// countPlan runs `terraform plan` with the environment env (the provider
// build) through proxy and returns its calls.
func (b *tfBench) countPlan(ctx context.Context, proxy *countingProxy, env []string, vars string) (planCalls, error) {
	proxy.reset()
	saved := b.env
	b.env = append(append([]string(nil), env...), "CLIPPER_BASE_URL="+proxy.URL())
	defer func() { b.env = saved }()
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
