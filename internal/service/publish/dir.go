package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
)

// Names of the objects of a post published to a directory.
const (
	clipFile = "clip.mp4"
	postFile = "post.json"
)

// Dir publishes each post to the blob keys published/<postAccountId>/<postId>/
// clip.mp4 (a copy of the clip's export render) and post.json (the post's
// document), in the data directory DATA/published/... . post.json is
// written last and appears whole, so it says the post was published:
// finding it means an earlier attempt published the post, and nothing is
// written again; a clip.mp4 without it is a leftover of an attempt cut
// short, replaced by the next.
type Dir struct {
	Media blob.Store
}

// Publish writes p's objects, or finds them written. The receipt's
// location is the post's key prefix, relative to the store.
func (d Dir) Publish(ctx context.Context, p Post) (Receipt, error) {
	if !plainName(p.PostAccountID) || !plainName(p.ID) {
		return Receipt{}, fmt.Errorf("post %q of account %q: an id is unfit for a directory name", p.ID, p.PostAccountID)
	}
	location := blob.PublishedKey(p.PostAccountID, p.ID, "")
	docKey := blob.PublishedKey(p.PostAccountID, p.ID, postFile)
	if at, err := d.publishedAt(ctx, docKey); err == nil {
		return Receipt{Location: location, PublishedAt: at}, nil
	} else if !errors.Is(err, blob.ErrNotFound) {
		return Receipt{}, err
	}
	doc, err := json.MarshalIndent(p.Document(""), "", "  ")
	if err != nil {
		return Receipt{}, fmt.Errorf("post %s: encode: %w", p.ID, err)
	}
	// A render is at most some tens of megabytes (and a hard link in the
	// data directory): not cut short by ctx, not begun once ctx ended.
	if err := ctx.Err(); err != nil {
		return Receipt{}, err
	}
	if err := d.Media.Copy(ctx, blob.PublishedKey(p.PostAccountID, p.ID, clipFile), p.MediaKey); err != nil {
		return Receipt{}, fmt.Errorf("post %s: copy the clip: %w", p.ID, err)
	}
	if err := blob.Write(context.WithoutCancel(ctx), d.Media, docKey, bytes.NewReader(append(doc, '\n'))); err != nil {
		return Receipt{}, fmt.Errorf("publish post %s: %w", p.ID, err)
	}
	return Receipt{Location: location, PublishedAt: p.PublishedAt}, nil
}

// publishedAt reads the publishedAt of the post document key;
// blob.ErrNotFound when there is none.
func (d Dir) publishedAt(ctx context.Context, key string) (time.Time, error) {
	r, err := d.Media.Open(ctx, key)
	if err != nil {
		return time.Time{}, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return time.Time{}, err
	}
	var doc struct {
		PublishedAt time.Time `json:"publishedAt"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return time.Time{}, fmt.Errorf("read %s: %w", key, err)
	}
	return doc.PublishedAt, nil
}

// plainName accepts one path segment that is not hidden: no separators, no dot names.
func plainName(s string) bool {
	return s != "" && !strings.ContainsAny(s, `/\`) && !strings.HasPrefix(s, ".")
}
