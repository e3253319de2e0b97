package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// maxBrollKeywords bounds an item's keywords as topicKeywords are bounded
// (50 of at most 100 characters).
const maxBrollKeywords = 50

// brollCmd runs `clipperd broll add|list|remove`: an org's b-roll library,
// the pictures renders with enableBroll cut away to (the service-behaviour
// guide's B-roll). Safe while the server runs.
func brollCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: broll takes the subcommand add, list or remove", errUsage)
	}
	fs := flag.NewFlagSet("broll "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := installationFlags(fs)
	org := fs.String("org", "", "organization id whose library it is (required)")
	var file, keywords, id *string
	switch args[0] {
	case "add":
		file = fs.String("file", "", "the image or video to add (required)")
		keywords = fs.String("keywords", "", "comma-separated words or phrases whose utterance cuts away to it (required)")
	case "remove":
		id = fs.String("id", "", "the item to remove, as broll list prints it (required)")
	case "list":
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: broll takes the subcommand add, list or remove, not %q", errUsage, args[0])
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	*org = strings.TrimSpace(*org)
	if *org == "" {
		return fmt.Errorf("%w: broll %s: --org is required", errUsage, args[0])
	}
	var item *store.BrollItem
	if args[0] == "add" {
		var err error
		if item, err = brollItem(ctx, *org, *file, *keywords); err != nil {
			return err
		}
	}
	if id != nil && strings.TrimSpace(*id) == "" {
		return fmt.Errorf("%w: broll remove: --id is required", errUsage)
	}

	st, err := state.open(ctx)
	if err != nil {
		return err
	}
	m, err := state.openMedia(ctx)
	if err == nil {
		err = state.ensureInstallation(ctx, st.Store, m, stderr)
	}
	if err == nil {
		switch args[0] {
		case "add":
			err = brollAdd(ctx, st.Store, m, item, *file, stdout)
		case "list":
			err = brollList(ctx, st.Store, *org, stdout)
		case "remove":
			err = brollRemove(ctx, st.Store, m, *org, strings.TrimSpace(*id), stdout)
		}
	}
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if err != nil {
		return fmt.Errorf("broll %s: %w", args[0], err)
	}
	return nil
}

// fileExt keeps a plain extension of the added file in its key.
var fileExt = regexp.MustCompile(`^\.[a-z0-9]{1,8}$`)

// brollItem checks the flags of `broll add` and probes the file: an image or
// a video, else an error saying so.
func brollItem(ctx context.Context, org, file, keywords string) (*store.BrollItem, error) {
	if file == "" || strings.TrimSpace(keywords) == "" {
		return nil, fmt.Errorf("%w: broll add: --file and --keywords are required", errUsage)
	}
	var words []string
	for _, k := range strings.Split(keywords, ",") {
		if k = strings.TrimSpace(k); k != "" {
			if err := rules.Length(k, 100); err != nil {
				return nil, fmt.Errorf("%w: broll add: --keywords: %q %w", errUsage, k, err)
			}
			words = append(words, k)
		}
	}
	if len(words) == 0 || len(words) > maxBrollKeywords {
		return nil, fmt.Errorf("%w: broll add: --keywords: want 1 to %d comma-separated keywords, not %d", errUsage, maxBrollKeywords, len(words))
	}
	st, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("broll add: --file: %w", err)
	}
	v, err := media.ProbeVisual(ctx, file)
	if errors.Is(err, media.ErrNotVideo) {
		return nil, fmt.Errorf("broll add: --file %s is not an image or a video ffmpeg reads, so it cannot be b-roll", file)
	}
	if err != nil {
		return nil, fmt.Errorf("broll add: %w", err)
	}
	id := store.NewID("broll_")
	ext := strings.ToLower(filepath.Ext(file))
	if !fileExt.MatchString(ext) {
		ext = ""
	}
	return &store.BrollItem{ID: id, OrgID: org, Name: filepath.Base(file), Key: blob.BrollKey(org, id, ext), Keywords: words,
		Still: v.Still, Width: v.Width, Height: v.Height, DurationSec: v.DurationSec, Size: st.Size()}, nil
}

// brollStore is what the broll commands read and write of the store.
type brollStore interface {
	AddBrollItem(ctx context.Context, it *store.BrollItem) error
	BrollItems(ctx context.Context, orgID string) ([]*store.BrollItem, error)
	BrollItem(ctx context.Context, orgID, id string) (*store.BrollItem, error)
	RemoveBrollItem(ctx context.Context, orgID, id string) error
}

// brollAdd stores the picture, then its row; a failed row removes the picture.
func brollAdd(ctx context.Context, st brollStore, m blob.Store, it *store.BrollItem, file string, stdout io.Writer) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	err = blob.Write(ctx, m, it.Key, f)
	f.Close()
	if err != nil {
		return fmt.Errorf("store %s: %w", file, err)
	}
	if err := st.AddBrollItem(ctx, it); err != nil {
		return errors.Join(err, m.Delete(context.WithoutCancel(ctx), it.Key))
	}
	_, err = fmt.Fprintf(stdout, "added %s to the b-roll of org %s (keywords %s): %s\n", describeBroll(it), it.OrgID, strings.Join(it.Keywords, ", "), it.ID)
	return err
}

func describeBroll(it *store.BrollItem) string {
	if it.Still {
		return fmt.Sprintf("image %s (%dx%d)", it.Name, it.Width, it.Height)
	}
	return fmt.Sprintf("video %s (%dx%d, %.1f s)", it.Name, it.Width, it.Height, it.DurationSec)
}

func brollList(ctx context.Context, st brollStore, org string, stdout io.Writer) error {
	items, err := st.BrollItems(ctx, org)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tKIND\tSIZE\tSECONDS\tKEYWORDS\tNAME\tADDED")
	for _, it := range items {
		kind, secs := "video", fmt.Sprintf("%.1f", it.DurationSec)
		if it.Still {
			kind, secs = "image", "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%dx%d\t%s\t%s\t%s\t%s\n", it.ID, kind, it.Width, it.Height, secs, strings.Join(it.Keywords, ","), it.Name, store.Timestamp(it.CreatedAt))
	}
	return w.Flush()
}

func brollRemove(ctx context.Context, st brollStore, m blob.Store, org, id string, stdout io.Writer) error {
	it, err := st.BrollItem(ctx, org, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("--id %s: no such item in the b-roll of org %s (broll list shows them)", id, org)
	}
	if err != nil {
		return err
	}
	if err := st.RemoveBrollItem(ctx, org, id); err != nil {
		return err
	}
	if err := m.Delete(ctx, it.Key); err != nil {
		return fmt.Errorf("delete the picture %s: %w", it.Key, err)
	}
	_, err = fmt.Fprintf(stdout, "removed %s from the b-roll of org %s: %s\n", describeBroll(it), org, id)
	return err
}
