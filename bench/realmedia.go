package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// realMediaSection measures one part of the pipeline on the real-media set
// (scripts/realmedia-fetch.sh) and returns its Markdown: a heading, what was
// measured and a table. dir holds the fetched set; work is a scratch
// directory of the section's own for the sources it composes.
type realMediaSection struct {
	name string
	run  func(ctx context.Context, dir, work string) (string, error)
}

// realMediaSections are registered by the realmedia_*.go files, in the
// order of their names.
var realMediaSections []realMediaSection

func registerRealMedia(name string, run func(ctx context.Context, dir, work string) (string, error)) {
	realMediaSections = append(realMediaSections, realMediaSection{name, run})
}

// runRealMedia fetches the real-media set when it is missing and runs the
// sections asked for (all by default), printing their Markdown.
func runRealMedia(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("realmedia", flag.ContinueOnError)
	dir := fs.String("dir", envOr("REALMEDIA_DIR", ".realmedia"), "the real-media set (fetched there by scripts/realmedia-fetch.sh when missing)")
	only := fs.String("only", "", "comma-separated sections to run ("+strings.Join(realMediaNames(), ", ")+"); all when empty")
	keep := fs.Bool("keep", false, "keep the composed sources and outputs (printed path)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(*dir, ".complete")); err != nil {
		cmd := exec.CommandContext(ctx, "scripts/realmedia-fetch.sh", *dir)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("fetch the real-media set: %w", err)
		}
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	for n := range want {
		if !contains(realMediaNames(), n) {
			return fmt.Errorf("unknown section %q (want %s)", n, strings.Join(realMediaNames(), ", "))
		}
	}
	work, err := os.MkdirTemp("", "clipper-realmedia-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "realmedia: sources and outputs kept in", work)
	} else {
		defer os.RemoveAll(work)
	}
	sections := append([]realMediaSection(nil), realMediaSections...)
	sort.Slice(sections, func(i, j int) bool { return sections[i].name < sections[j].name })
	fmt.Printf("## Real media (`go run ./bench realmedia`)\n\nThe set: scripts/realmedia-fetch.sh (packages and licences in its header).\n\n")
	for _, s := range sections {
		if len(want) > 0 && !want[s.name] {
			continue
		}
		sw := filepath.Join(work, s.name)
		if err := os.MkdirAll(sw, 0o755); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "realmedia:", s.name)
		md, err := s.run(ctx, *dir, sw)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Println(strings.TrimSpace(md))
		fmt.Println()
	}
	return nil
}

func realMediaNames() []string {
	var names []string
	for _, s := range realMediaSections {
		names = append(names, s.name)
	}
	sort.Strings(names)
	return names
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
