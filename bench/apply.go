package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

const applyConfig = `
terraform {
  required_providers {
    clipper = { source = "clipperhq/clipper" }
  }
}

variable "source_file" { type = string }

resource "clipper_clip_project" "bench" {
  count       = %d
  source_file = var.source_file
  title       = "bench ${count.index}"
  curation = {
    clip_durations = [[8, 20]]
  }
  render = {
    layout_aspect_ratio = "portrait"
  }
}

%s
output "ids" { value = clipper_clip_project.bench[*].id }
`

// readClipsConfig reads each project's clips with a data source, as a
// configuration that uses the clips would.
const readClipsConfig = `
data "clipper_exportable_clips" "bench" {
  count      = length(clipper_clip_project.bench)
  project_id = clipper_clip_project.bench[count.index].id
}
`

// runApply applies N clip projects with -parallelism against an in-process
// clipperd at its default limits, each read by clipper_exportable_clips, and
// reports the wall time against the lower bound both limits allow, the API
// calls per project and route, the refused creates and the 429s.
func runApply(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	projects := fs.Int("projects", 8, "clip projects to apply")
	parallelism := fs.Int("parallelism", 0, "terraform -parallelism (default: max(10, projects))")
	readClips := fs.Bool("read-clips", true, "read each project with a clipper_exportable_clips data source")
	srcLen := fs.Duration("source", 40*time.Second, "length of the generated source video")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *parallelism == 0 {
		*parallelism = max(10, *projects)
	}
	b, err := newTFBench(ctx, "apply")
	if err != nil {
		return err
	}
	defer b.Close()
	src := filepath.Join(b.work, "source.mp4")
	if err := testvideo.Generate(ctx, src, testvideo.Options{Duration: *srcLen, Width: 640, Height: 360}); err != nil {
		return err
	}
	extra := ""
	if *readClips {
		extra = readClipsConfig
	}
	if err := b.writeConfig(fmt.Sprintf(applyConfig, *projects, extra)); err != nil {
		return err
	}
	b.proxy.reset()
	start := time.Now()
	if _, err := b.terraform(ctx, "apply", "-auto-approve", "-input=false", "-no-color",
		fmt.Sprintf("-parallelism=%d", *parallelism), "-var", "source_file="+src); err != nil {
		return err
	}
	wall := time.Since(start)
	ids, err := b.outputIDs(ctx)
	if err != nil {
		return err
	}
	times, err := processingTimes(ctx, b.srv.URL(), ids)
	if err != nil {
		return err
	}
	bd := newApplyBound(times)
	b.proxy.mu.Lock()
	defer b.proxy.mu.Unlock()
	fmt.Fprintln(os.Stderr, "request timeline (seconds since the apply started):")
	fmt.Fprintln(os.Stderr, strings.Join(b.proxy.Timeline, "\n"))
	fmt.Fprintln(os.Stderr, "processing times (created to COMPLETE):", roundSeconds(times))
	printApply(b.proxy, bd, wall, *parallelism, *readClips, *srcLen)
	return nil
}

// outputIDs reads the applied projects' ids.
func (b *tfBench) outputIDs(ctx context.Context) ([]string, error) {
	idsJSON, err := b.terraform(ctx, "output", "-json", "ids")
	if err != nil {
		return nil, err
	}
	var ids []string
	return ids, json.Unmarshal(idsJSON, &ids)
}

// processingTimes are each project's time from created to COMPLETE, as
// clipperd recorded it.
func processingTimes(ctx context.Context, base string, ids []string) ([]time.Duration, error) {
	c, err := client.New(client.Config{BaseURL: base, APIKey: benchKey, RequestsPerMinute: 600})
	if err != nil {
		return nil, err
	}
	var times []time.Duration
	for _, id := range ids {
		p, err := c.GetProject(ctx, id)
		if err != nil {
			return nil, err
		}
		created, _ := time.Parse(time.RFC3339Nano, p.CreatedAt)
		updated, _ := time.Parse(time.RFC3339Nano, p.UpdatedAt)
		times = append(times, updated.Sub(created))
	}
	return times, nil
}

// minCallsPerProject are the rate-limited calls a project needs at least: its
// create, the poll that finds it COMPLETE and the listing of its clips.
const minCallsPerProject = 3

// applyBound is the lower bound of an apply under both of the service's
// limits.
type applyBound struct {
	projects     int
	times        []time.Duration
	sum, longest time.Duration
}

func newApplyBound(times []time.Duration) applyBound {
	b := applyBound{projects: len(times), times: times}
	for _, d := range times {
		b.sum += d
		b.longest = max(b.longest, d)
	}
	return b
}

// concurrent is the bound of the concurrent cap: the processing times
// spread over the slots, and never less than the longest project.
func (b applyBound) concurrent() time.Duration {
	return max(b.longest, b.sum/quota.DefaultMaxConcurrent)
}

// rate is the bound of the rate window: the last of the minimum calls cannot
// go before as many whole windows have passed as its rank says.
func (b applyBound) rate() time.Duration {
	calls := b.projects * minCallsPerProject
	return time.Duration((calls-1)/quota.DefaultRateLimit) * time.Minute
}

// lower is the bound: the larger of the two limits' bounds, each
// taken alone.
func (b applyBound) lower() time.Duration { return max(b.concurrent(), b.rate()) }

// joint is the bound of both limits together (jointBound), never below the
// issue's.
func (b applyBound) joint() time.Duration {
	return b.jointAt(0)
}

// jointAt is the joint bound of an apply making extra calls to the
// rate-limited routes beyond the least, never below the bound.
func (b applyBound) jointAt(extra int) time.Duration {
	return max(b.lower(), jointBound(b.times, quota.DefaultMaxConcurrent, quota.DefaultRateLimit, minCallsPerProject, max(extra, 0), time.Minute))
}

func roundSeconds(times []time.Duration) []float64 {
	out := make([]float64, len(times))
	for i, d := range times {
		out[i] = math.Round(d.Seconds()*10) / 10
	}
	return out
}

func printApply(p *countingProxy, bd applyBound, wall time.Duration, parallelism int, readClips bool, srcLen time.Duration) {
	n := float64(bd.projects)
	var routes []string
	limited := 0
	for r, calls := range p.byRoute {
		routes = append(routes, fmt.Sprintf("| `%s` | %d | %.2f |", r, calls, float64(calls)/n))
		if strings.Contains(r, "/api/clip-projects") || strings.Contains(r, "/api/exportable-clips") {
			limited += calls
		}
	}
	sort.Strings(routes)
	reads := ""
	if readClips {
		reads = ", each read by `clipper_exportable_clips`"
	}
	fmt.Printf("### terraform apply of %d clip projects%s, -parallelism=%d, clipperd defaults (%d req/min, %d concurrent)\n\n",
		bd.projects, reads, parallelism, quota.DefaultRateLimit, quota.DefaultMaxConcurrent)
	fmt.Printf("Source: generated %s 640x360 video with speech; portrait clips of 8-20 s.\n\n", srcLen)
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| processing time per project (created to COMPLETE), sum / longest | %.1f s / %.1f s |\n", bd.sum.Seconds(), bd.longest.Seconds())
	fmt.Printf("| bound of the concurrent cap, max(longest, sum/%d) | %.1f s |\n", quota.DefaultMaxConcurrent, bd.concurrent().Seconds())
	fmt.Printf("| bound of the rate window, %d calls (create, final poll, clip listing per project) at %d a minute | %.1f s |\n",
		bd.projects*minCallsPerProject, quota.DefaultRateLimit, bd.rate().Seconds())
	fmt.Printf("| **lower bound**, the larger | **%.1f s** |\n", bd.lower().Seconds())
	fmt.Printf("| **joint lower bound**, both limits together (the 3N-th call under the window and the finishes the cap allows) | **%.1f s** |\n", bd.joint().Seconds())
	fmt.Printf("| wall time of `terraform apply` | %.1f s |\n", wall.Seconds())
	fmt.Printf("| **wall time / lower bound** | **%.2f** |\n", wall.Seconds()/bd.lower().Seconds())
	fmt.Printf("| **wall time / joint lower bound** | **%.2f** |\n", wall.Seconds()/bd.joint().Seconds())
	atCalls := bd.jointAt(limited - bd.projects*minCallsPerProject)
	fmt.Printf("| joint bound at this run's %d rate-limited calls (the extra ones free to go at any time) | %.1f s |\n", limited, atCalls.Seconds())
	fmt.Printf("| wall time / that bound | %.2f |\n", wall.Seconds()/atCalls.Seconds())
	fmt.Printf("| API calls in all / per project | %d / %.2f |\n", p.total, float64(p.total)/n)
	fmt.Printf("| **calls to the rate-limited routes per project** | **%.2f** (%d) |\n", float64(limited)/n, limited)
	fmt.Printf("| refused creates (429 `X-Cap-Reason: concurrent`) / per slot | %d / %.2f |\n", p.concurrent, float64(p.concurrent)/quota.DefaultMaxConcurrent)
	fmt.Printf("| 429s received in all | %d |\n", p.status429)
	fmt.Println()
	fmt.Printf("| route | calls | per project |\n|---|---|---|\n%s\n", strings.Join(routes, "\n"))
}
