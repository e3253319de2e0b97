package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/netguard"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// WorkerConfig configures a Worker.
type WorkerConfig struct {
	Store *store.Store
	// Media holds the clips (blob.MediaKey) and the dir destination's
	// posts (blob.PublishedKey).
	Media      blob.Store
	Logger     *slog.Logger // nil = discard
	HTTPClient *http.Client // for webhook destinations; nil = outbound.WebhookClient's default
	// AllowPrivateWebhooks lets webhook destinations connect to loopback
	// and private addresses; off, HTTPClient's connections go through
	// package netguard.
	AllowPrivateWebhooks bool
	// MediaLinks signs the clip's address a post carries (Post.MediaURL);
	// nil hands it out as stored.
	MediaLinks *medialink.Signer
	// PollInterval is how often due posts (retries) are looked for without
	// a Wake; default 1 s.
	PollInterval time.Duration
	// Retry is how a failed post is retried; unset fields are those of a
	// conclusion action's delivery (outbound.DeliveryRetry).
	Retry backoff.Retry
	// OnAttempt is called after each attempt at publishing a post with the
	// kind of its destination (Destination) and the outcome
	// (outbound.OutcomeDelivered, OutcomeWillRetry, OutcomeGaveUp); nil =
	// nothing. An attempt cut short by Stop is none.
	OnAttempt func(destination, outcome string)
}

// Worker publishes pending posts, one at a time, oldest first. Posts left
// pending by an earlier process are published on its first pass.
type Worker struct {
	cfg  WorkerConfig
	log  *slog.Logger
	dir  Dir
	loop repeat.Loop
}

// NewWorker checks cfg and fills its defaults.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Store == nil || cfg.Media == nil {
		return nil, errors.New("publish: the worker needs a Store and Media")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.HTTPClient = outbound.WebhookClient(cfg.HTTPClient, cfg.AllowPrivateWebhooks)
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	cfg.Retry = cfg.Retry.Or(outbound.DeliveryRetry)
	if cfg.OnAttempt == nil {
		cfg.OnAttempt = func(string, string) {}
	}
	return &Worker{cfg: cfg, log: cfg.Logger, dir: Dir{Media: cfg.Media}}, nil
}

// Start runs the worker until Stop or ctx ends.
func (w *Worker) Start(ctx context.Context) { w.loop.Start(ctx, w.publishDue) }

// Wake asks the worker to look for due posts now (a post was made).
func (w *Worker) Wake() { w.loop.Wake() }

// Stop cancels the publication in progress, which stays pending, and waits
// for the worker to return.
func (w *Worker) Stop() { w.loop.Stop() }

// publishDue publishes due posts until none is due, then waits a poll
// interval for retries that come due.
func (w *Worker) publishDue(ctx context.Context) time.Duration {
	if err := repeat.Drain(ctx, 16, w.cfg.Store.DuePosts, w.publishBatch); err != nil {
		w.log.Error("list due posts", "err", err)
	}
	return w.cfg.PollInterval
}

// publishBatch attempts the posts of due in order, one at a time.
func (w *Worker) publishBatch(ctx context.Context, due []store.Post) error {
	for i := range due {
		w.attempt(ctx, &due[i])
	}
	return nil
}

// attempt publishes p once and records the outcome: published with its
// receipt, or the failure with the next try or the end of them.
func (w *Worker) attempt(ctx context.Context, p *store.Post) {
	receipt, err := w.publish(ctx, p)
	if err != nil && ctx.Err() != nil {
		return // cut short by Stop: the post stays pending and due
	}
	// The outcome is recorded even when Stop comes now.
	ctx = context.WithoutCancel(ctx)
	if err == nil {
		// Counted as the destination answered it, like the failures below.
		w.cfg.OnAttempt(Destination(p.PublishTo), outbound.OutcomeDelivered)
		if err := w.cfg.Store.MarkPostPublished(ctx, p.ID, receipt.PublishedAt, receipt.Location); err != nil {
			// Still pending, so published again; the destination knows it.
			w.log.Error("record published post", "post", p.ID, "err", err)
			return
		}
		w.log.Info("post published", "post", p.ID, "schedule", p.ScheduleID, "account", p.PostAccountID,
			"platform", p.Platform, "location", receipt.Location)
		return
	}
	p.Attempts++
	p.LastError = err.Error()
	wait, giveUp := w.cfg.Retry.After(p.Attempts)
	// A refused address is refused again on every attempt.
	if giveUp || errors.As(err, new(*netguard.RefusedError)) {
		p.Status = store.PostFailed
		w.log.Warn("post failed, giving up", "post", p.ID, "attempts", p.Attempts, "err", err)
		w.cfg.OnAttempt(Destination(p.PublishTo), outbound.OutcomeGaveUp)
	} else {
		p.NextAt = w.cfg.Store.Now().Add(wait)
		w.log.Warn("post failed, will retry", "post", p.ID, "attempts", p.Attempts, "next", p.NextAt, "err", err)
		w.cfg.OnAttempt(Destination(p.PublishTo), outbound.OutcomeWillRetry)
	}
	if err := w.cfg.Store.SavePostAttempt(ctx, p); err != nil {
		w.log.Error("save post attempt", "post", p.ID, "err", err)
	}
}

// publish hands p with its clip to the publisher of its destination.
func (w *Worker) publish(ctx context.Context, p *store.Post) (Receipt, error) {
	pub, err := w.publisher(p.PublishTo)
	if err != nil {
		return Receipt{}, err
	}
	clip, err := w.cfg.Store.GetClip(ctx, p.ContentID())
	if err == nil && clip.OrgID != p.OrgID {
		err = store.ErrNotFound
	}
	if err != nil {
		return Receipt{}, fmt.Errorf("clip %s of post %s: %w", p.ContentID(), p.ID, err)
	}
	mediaURL := clip.URIForExport
	if w.cfg.MediaLinks != nil {
		if mediaURL, err = w.cfg.MediaLinks.Sign(ctx, mediaURL, false); err != nil {
			return Receipt{}, err
		}
	}
	post := Post{Post: *p, MediaURL: mediaURL,
		MediaKey: blob.MediaKey(p.ProjectID, p.ClipID+".mp4")}
	post.PublishedAt = w.cfg.Store.Now()
	return pub.Publish(ctx, post)
}

// publisher is the Publisher of destination dest.
func (w *Worker) publisher(dest string) (Publisher, error) {
	url, err := webhookURL(dest)
	switch {
	case err != nil:
		return nil, err
	case url == "":
		return w.dir, nil
	}
	return Webhook{URL: url, Client: w.cfg.HTTPClient, Store: w.cfg.Store}, nil
}
