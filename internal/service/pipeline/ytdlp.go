package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// ytdlpPermanent are yt-dlp messages about the video itself, which no retry
// changes.
var ytdlpPermanent = []string{
	"unsupported url", "private video", "video unavailable", "this video is private", "members-only",
	"sign in to confirm", "has been removed", "not available in your country", "http error 404",
	"http error 403", "larger than max-filesize", "is not a valid url",
}

// ytdlp fetches a video platform page with yt-dlp into the run's
// temporary directory dir, then to the key dst, and returns a local file
// of it (blob.StoreFile).
func (r *Runner) ytdlp(ctx context.Context, u *url.URL, site, dir, dst string) (string, error) {
	bin, err := exec.LookPath("yt-dlp")
	if err != nil {
		return "", permanentf("yt-dlp is not installed: install it to import from %s links (or upload the file instead)", site)
	}
	tmp := filepath.Join(dir, "ytdlp.tmp")
	_ = os.RemoveAll(tmp) // leftovers of an interrupted attempt
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	var stderr toolexec.Tail
	ictx, stop := r.withImportDeadline(ctx)
	defer stop()
	cmd := toolexec.Command(ictx, bin,
		"--no-playlist", "--no-progress", "--no-warnings", "--no-mtime",
		"--max-filesize", strconv.FormatInt(quota.MaxSourceBytes, 10), // bytes: yt-dlp reads "M" as MiB
		"-f", "bv*[height<=1080]+ba/b[height<=1080]/bv*+ba/b",
		"--merge-output-format", "mp4",
		"-o", filepath.Join(tmp, "source.%(ext)s"),
		"--", u.String())
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if ictx.Err() != nil {
			return "", r.importLimit(ictx, redactURL(u), ictx.Err())
		}
		msg := stderr.String()
		low := strings.ToLower(msg)
		for _, p := range ytdlpPermanent {
			if strings.Contains(low, p) {
				return "", permanentf("yt-dlp cannot import %s from %s: %s", redactURL(u), site, msg)
			}
		}
		return "", fmt.Errorf("yt-dlp %s: %w: %s", redactURL(u), err, msg)
	}
	matches, _ := filepath.Glob(filepath.Join(tmp, "source.*"))
	for _, m := range matches {
		if ext := filepath.Ext(m); ext == ".part" || ext == ".ytdl" || formatFragment.MatchString(filepath.Base(m)) {
			continue // partial downloads and formats not merged
		}
		// Moved out of tmp, removed on return, into the run's directory,
		// which keeps it while the run reads it.
		kept := filepath.Join(dir, "ytdlp"+filepath.Ext(m))
		if err := os.Rename(m, kept); err != nil {
			return "", err
		}
		return blob.StoreFile(ctx, r.cfg.Media, dst, kept)
	}
	msg := stderr.String()
	if strings.Contains(strings.ToLower(msg), "max-filesize") {
		return "", permanentf("the video at %s is larger than 30 GB, the limit", redactURL(u))
	}
	return "", errors.New("yt-dlp finished without writing a video: " + msg)
}

// formatFragment matches yt-dlp's per-format files (source.f137.mp4).
var formatFragment = regexp.MustCompile(`^source\.f\d+\.`)
