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
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// postFile names the post's document among the objects of a post published
// to a directory; its clip is blob.PublishedClipKey.
const postFile = "post.json"

// Dir publishes each post to the blob keys published/<postAccountId>/<postId>/
// clip.mp4 (a copy of the clip's export render: a hard link on the data
// directory, so it adds no bytes; a server-side copy in a bucket, which
// does) and post.json (the post's document), in the data directory
// DATA/published/... . post.json is written last and appears whole, so it
// says the post was published: finding it means an earlier attempt
// published the post, and nothing is written again; a clip.mp4 without it
// is a leftover of an attempt cut short, replaced by the next. The clip.mp4
// goes when the clip's project media expire (the janitor); post.json stays,
// the record of the publication.
type Dir struct {
	Media blob.Store
}

// Publish writes p's objects, or finds them written. The receipt's
// location is the post's key prefix, relative to the store, and its
// StorageSize what the copy of the clip adds to the store (blob.AddedBy).
func (d Dir) Publish(ctx context.Context, p Post) (Receipt, error) {
	if !plainName(p.PostAccountID) || !plainName(p.ID) {
		return Receipt{}, fmt.Errorf("post %q of account %q: an id is unfit for a directory name", p.ID, p.PostAccountID)
	}
	location := blob.PublishedKey(p.PostAccountID, p.ID, "")
	docKey := blob.PublishedKey(p.PostAccountID, p.ID, postFile)
	clipKey := blob.PublishedClipKey(p.PostAccountID, p.ID)
	if at, err := d.publishedAt(ctx, docKey); err == nil {
		added, err := d.added(ctx, clipKey, p.MediaKey)
		return Receipt{Location: location, PublishedAt: at, StorageSize: added}, err
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
	if err := d.Media.Copy(ctx, clipKey, p.MediaKey); err != nil {
		return Receipt{}, fmt.Errorf("post %s: copy the clip: %w", p.ID, err)
	}
	ctx = context.WithoutCancel(ctx)
	added, err := d.added(ctx, clipKey, p.MediaKey)
	if err == nil {
		err = blob.Write(ctx, d.Media, docKey, bytes.NewReader(append(doc, '\n')))
	}
	if err != nil {
		// No copy is left uncounted: the next attempt copies again.
		_ = d.Media.Delete(ctx, clipKey)
		return Receipt{}, fmt.Errorf("publish post %s: %w", p.ID, err)
	}
	return Receipt{Location: location, PublishedAt: p.PublishedAt, StorageSize: added}, nil
}

// added is what the post's copy at clipKey of the clip at mediaKey holds
// apart from it; 0 when there is no copy (its project's media expired).
func (d Dir) added(ctx context.Context, clipKey, mediaKey string) (int64, error) {
	n, err := blob.AddedBy(ctx, d.Media, clipKey, mediaKey)
	if errors.Is(err, blob.ErrNotFound) {
		return 0, nil
	}
	return n, err
}

// ClipCopySize sizes the copy publishing a post's clip to the "dir"
// destination adds to media (store.PostLimits.CopySize): none where media's
// copies share bytes (a directory's hard links), else the size of the
// clip's export render; 0 when the render is gone (the post will fail).
func ClipCopySize(media blob.Store) func(ctx context.Context, c store.PostContent) (int64, error) {
	return func(ctx context.Context, c store.PostContent) (int64, error) {
		if blob.CopiesShareBytes(media) {
			return 0, nil
		}
		info, err := media.Stat(ctx, blob.MediaKey(c.ProjectID, c.ClipID+".mp4"))
		if errors.Is(err, blob.ErrNotFound) {
			return 0, nil
		}
		return info.Size, err
	}
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
