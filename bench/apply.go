package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
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

output "ids" { value = clipper_clip_project.bench[*].id }
`

// runApply applies N clip projects with -parallelism against an in-process
// clipperd at its default limits, and reports the wall time against the lower
// bound the concurrent cap allows, the API calls per project and the 429s.
func runApply(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	projects := fs.Int("projects", 8, "clip projects to apply")
	parallelism := fs.Int("parallelism", 10, "terraform -parallelism")
	srcLen := fs.Duration("source", 40*time.Second, "length of the generated source video")
	if err := fs.Parse(args); err != nil {
		return err
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
	srv, proxy := b.srv, b.proxy
	if err := b.writeConfig(fmt.Sprintf(applyConfig, *projects)); err != nil {
		return err
	}
	start := time.Now()
	if _, err := b.terraform(ctx, "apply", "-auto-approve", "-input=false", "-no-color",
		fmt.Sprintf("-parallelism=%d", *parallelism), "-var", "source_file="+src); err != nil {
		return err
	}
	wall := time.Since(start)
	idsJSON, err := b.terraform(ctx, "output", "-json", "ids")
	if err != nil {
		return err
	}
	var ids []string
	if err := json.Unmarshal(idsJSON, &ids); err != nil {
		return err
	}

	// Processing time of each project, as clipperd recorded it (created to COMPLETE).
	c, err := client.New(client.Config{BaseURL: srv.URL(), APIKey: benchKey, RequestsPerMinute: 600})
	if err != nil {
		return err
	}
	var sum, longest time.Duration
	for _, id := range ids {
		p, err := c.GetProject(ctx, id)
		if err != nil {
			return err
		}
		created, _ := time.Parse(time.RFC3339, p.CreatedAt)
		updated, _ := time.Parse(time.RFC3339, p.UpdatedAt)
		d := updated.Sub(created)
		sum += d
		longest = max(longest, d)
	}
	lower := max(longest, sum/quota.DefaultMaxConcurrent)

	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	fmt.Fprintln(os.Stderr, "request timeline (seconds since clipperd started):")
	fmt.Fprintln(os.Stderr, strings.Join(proxy.Timeline, "\n"))
	var routes []string
	for r, n := range proxy.byRoute {
		routes = append(routes, fmt.Sprintf("| `%s` | %d | %.1f |", r, n, float64(n)/float64(len(ids))))
	}
	sort.Strings(routes)

	fmt.Printf("### terraform apply of %d clip projects, -parallelism=%d, clipperd defaults (%d req/min, %d concurrent)\n\n",
		len(ids), *parallelism, quota.DefaultRateLimit, quota.DefaultMaxConcurrent)
	fmt.Printf("Source: generated %s 640x360 video with speech; portrait clips of 8-20 s.\n\n", *srcLen)
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| wall time of `terraform apply` | %.1f s |\n", wall.Seconds())
	fmt.Printf("| processing time per project (created to COMPLETE), sum / longest | %.1f s / %.1f s |\n", sum.Seconds(), longest.Seconds())
	fmt.Printf("| lower bound under the concurrent cap, max(longest, sum/%d) | %.1f s |\n", quota.DefaultMaxConcurrent, lower.Seconds())
	fmt.Printf("| **wall time / lower bound** | **%.2f** |\n", wall.Seconds()/lower.Seconds())
	fmt.Printf("| API calls in all / per project | %d / %.1f |\n", proxy.total, float64(proxy.total)/float64(len(ids)))
	fmt.Printf("| 429s received (of which `X-Cap-Reason: concurrent`) | %d (%d) |\n", proxy.status429, proxy.concurrent)
	if n, budget := len(proxy.limitedAt), quota.DefaultRateLimit; n > budget {
		fmt.Printf("| requests to the rate-limited endpoints; the %dth at, the next at | %d; %.1f s; %.1f s |\n",
			budget, n, proxy.limitedAt[budget-1], proxy.limitedAt[budget])
	} else {
		fmt.Printf("| requests to the rate-limited endpoints | %d (within one minute's budget of %d) |\n", n, budget)
	}
	fmt.Println()
	fmt.Printf("| route | calls | per project |\n|---|---|---|\n%s\n", strings.Join(routes, "\n"))
	return nil
}
