package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
)

// uploadRun is one timed upload in its own process.
type uploadRun struct {
	wall  time.Duration
	cpu   time.Duration // user + system time of the process
	rssKB int64         // peak resident set of the process
}

// runUpload uploads one generated file to an in-process clipperd, alternately
// through the provider's client (UploadFile, in a child process, so its peak
// RSS is its own) and with `curl -T` to a resumable session of the same
// server, and reports the medians.
func runUpload(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("upload", flag.ContinueOnError)
	size := fs.Int64("size", 2<<30, "bytes of the generated file")
	runs := fs.Int("runs", 3, "runs of each side")
	if err := fs.Parse(args); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "clipper-bench-upload-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()
	// The file and one stored copy of it at a time, plus a margin.
	if free, err := freeBytes(work); err != nil || free < 2*(*size)+(1<<30) {
		return fmt.Errorf("upload bench needs %d bytes free in %s, has %d (%v)", 2*(*size)+(1<<30), work, free, err)
	}
	src := filepath.Join(work, "source.bin")
	if err := writeRandomFile(src, *size); err != nil {
		return err
	}
	dataDir := filepath.Join(work, "data")
	srv, err := server.Start(ctx, server.Config{Listen: "127.0.0.1:0", DataDir: dataDir, APIKey: benchKey})
	if err != nil {
		return err
	}
	defer func() { _ = srv.Close() }()
	self, err := os.Executable()
	if err != nil {
		return err
	}

	var mine, curl []uploadRun
	for i := 0; i < *runs; i++ {
		r, err := timedProcess(ctx, exec.CommandContext(ctx, self, "upload-child", srv.URL(), src))
		if err != nil {
			return fmt.Errorf("provider upload: %w", err)
		}
		mine = append(mine, r)
		if err := os.RemoveAll(filepath.Join(dataDir, "uploads")); err != nil {
			return err
		}
		location, err := startSession(ctx, srv.URL())
		if err != nil {
			return err
		}
		r, err = timedProcess(ctx, exec.CommandContext(ctx, "curl", "-sS", "-f", "-o", "/dev/null", "-T", src,
			"-H", "Content-Type: application/octet-stream", "-H", "Authorization: Bearer "+benchKey, location))
		if err != nil {
			return fmt.Errorf("curl upload: %w", err)
		}
		curl = append(curl, r)
		if err := os.RemoveAll(filepath.Join(dataDir, "uploads")); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "run %d: provider %.2f s (CPU %.2f s, %d KB), curl %.2f s (CPU %.2f s, %d KB)\n",
			i+1, mine[i].wall.Seconds(), mine[i].cpu.Seconds(), mine[i].rssKB, curl[i].wall.Seconds(), curl[i].cpu.Seconds(), curl[i].rssKB)
	}
	mw, cw := medianBy(mine, func(r uploadRun) float64 { return r.wall.Seconds() }), medianBy(curl, func(r uploadRun) float64 { return r.wall.Seconds() })
	mib := float64(*size) / (1 << 20)
	fmt.Printf("### Upload of a %.0f MiB file to clipperd (%d runs each, alternating, medians)\n\n", mib, *runs)
	fmt.Printf("| measure | provider client (`source_file`) | `curl -T` |\n|---|---|---|\n")
	fmt.Printf("| wall time | %.2f s | %.2f s |\n", mw, cw)
	fmt.Printf("| throughput | %.0f MiB/s | %.0f MiB/s |\n", mib/mw, mib/cw)
	fmt.Printf("| peak RSS of the uploading process | %.1f MB | %.1f MB |\n",
		medianBy(mine, func(r uploadRun) float64 { return float64(r.rssKB) })/1024, medianBy(curl, func(r uploadRun) float64 { return float64(r.rssKB) })/1024)
	fmt.Printf("| **throughput, provider / curl** | **%.2f** | 1.00 |\n", cw/mw)
	return nil
}

// runUploadChild is the provider's side of runUpload: one UploadFile in
// this process, the way the provider's Create runs it.
func runUploadChild(ctx context.Context, args []string) error {
	if len(args) != 2 {
		return errors.New("usage: upload-child BASE_URL FILE")
	}
	c, err := client.New(client.Config{BaseURL: args[0], APIKey: benchKey, RequestsPerMinute: 600})
	if err != nil {
		return err
	}
	id, err := c.UploadFile(ctx, args[1])
	if err != nil {
		return err
	}
	fmt.Println(id)
	return nil
}

// timedProcess runs cmd and returns its wall time and peak RSS.
func timedProcess(_ context.Context, cmd *exec.Cmd) (uploadRun, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return uploadRun{}, fmt.Errorf("%w: %s", err, stderr.String())
	}
	r := uploadRun{wall: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rssKB = ru.Maxrss // kilobytes on Linux
		r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return r, nil
}

// startSession makes an upload link and opens its resumable session, as the
// client does before its PUTs, and returns the session's address for curl.
func startSession(ctx context.Context, base string) (string, error) {
	body := strings.NewReader(`{"video":{"usecase":"LocalUpload"}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/upload-links", body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+benchKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	var link struct {
		Data apitypes.UploadLink `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&link)
	_ = resp.Body.Close()
	if err != nil {
		return "", fmt.Errorf("upload link: %w", err)
	}
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, link.Data.URL, http.NoBody)
	if err != nil {
		return "", err
	}
	req.Header.Set(apitypes.HeaderResumable, "start")
	req.Header.Set("Authorization", "Bearer "+benchKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	_ = resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return "", fmt.Errorf("upload session (%d): %w", resp.StatusCode, err)
	}
	return loc.String(), nil
}

// writeRandomFile writes size bytes of random data (one random MiB repeated:
// nothing on the way compresses it, and writing it stays quick).
func writeRandomFile(path string, size int64) error {
	block := make([]byte, 1<<20)
	if _, err := rand.Read(block); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for left := size; left > 0; left -= int64(len(block)) {
		if _, err := f.Write(block[:min(left, int64(len(block)))]); err != nil {
			_ = f.Close()
			return err
		}
	}
	return f.Close()
}

func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}

func medianBy[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}
