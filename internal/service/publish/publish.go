// Package publish puts posts of clips on their destinations. Real platform
// APIs need OAuth and the internet, so a connected account publishes
// through a destination chosen when it is connected (`clipperd accounts
// connect --publish-to`): "dir" writes each post under the data directory,
// "webhook:URL" POSTs it, signed like the conclusion webhooks. A platform
// adapter is one more Publisher.
//
// The Scheduler, a loop, fires due publish schedules, each into exactly one
// post (store.FireSchedule, a conditional update). Each pending post has a
// job in the job system (package jobs), inserted in the transaction that
// makes the post (store.CreatePost, FireSchedule); the Worker publishes it,
// retries failures on the backoff curve, and records the publication in the
// statement that marks the post published (store.MarkPostPublished), in the
// transaction that completes the job.
package publish

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Publisher puts one post on a destination.
//
// Publish must be idempotent per post id: the Worker calls it again for the
// same post after a failed attempt, and after a crash between a successful
// Publish and the record of it. Given a post it has already published, a
// Publisher must not publish it twice, and answers with the Receipt of the
// first publication where it can: the dir destination finds the post's
// directory; a platform adapter would pass the post id as the platform's
// idempotency key or look it up. Where a destination cannot tell (a plain
// webhook), it sends the post id along so the receiver can.
//
// Publish watches ctx: Stop cancels it, and the post stays pending.
type Publisher interface {
	Publish(ctx context.Context, p Post) (Receipt, error)
}

// Post is what a Publisher publishes: the post, whose PublishedAt is the
// time it carries, and its clip's export render.
type Post struct {
	store.Post
	MediaKey string // the render's blob key, media/<projectId>/<clipId>.mp4
	MediaURL string // where the same render is downloaded (the clip's uriForExport)
}

// Receipt is where a post went and when.
type Receipt struct {
	Location    string    // a directory or URL where an operator finds the post
	PublishedAt time.Time // the publication's time: an earlier attempt's if that one published it
	// StorageSize is the bytes the publication keeps in clipperd's media
	// store apart from the clip (a copy that shares none of its bytes); 0
	// for destinations elsewhere.
	StorageSize int64
}

// webhookPrefix starts a webhook destination, "webhook:URL".
const webhookPrefix = "webhook:"

// CheckDestination checks a destination as `clipperd accounts connect
// --publish-to` takes it: dir, or webhook: followed by an absolute http(s) URL.
func CheckDestination(dest string) error {
	_, err := webhookURL(dest)
	return err
}

// Destination is the kind of a post's destination, without its URL (which
// may carry a secret): "dir", "webhook", or "invalid" for one that
// CheckDestination refuses.
func Destination(dest string) string {
	url, err := webhookURL(dest)
	switch {
	case err != nil:
		return "invalid"
	case url == "":
		return store.PublishToDir
	}
	return strings.TrimSuffix(webhookPrefix, ":")
}

// webhookURL is the URL of a webhook destination, "" for dir.
func webhookURL(dest string) (string, error) {
	if dest == store.PublishToDir {
		return "", nil
	}
	url, ok := strings.CutPrefix(dest, webhookPrefix)
	if !ok {
		return "", fmt.Errorf("publish destination must be %s or %sURL, not %q", store.PublishToDir, webhookPrefix, dest)
	}
	if err := rules.HTTPURL(url); err != nil {
		return "", fmt.Errorf("publish destination %q: the webhook URL %w", dest, err)
	}
	return url, nil
}
