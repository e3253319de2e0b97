package publish

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/netguard"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// PostStore is what the worker needs of the store: the pending posts,
// their clips, and the record of each attempt and publication.
type PostStore interface {
	SigningStore
	PendingPosts(ctx context.Context) ([]string, error)
	GetPost(ctx context.Context, id string) (*store.Post, error)
	GetClip(ctx context.Context, id string) (*store.Clip, error)
	MarkPostPublished(ctx context.Context, id string, publishedAt time.Time, location string, storageSize int64, then store.TxHook) error
	SavePostAttempt(ctx context.Context, p *store.Post, then store.TxHook) error
	MediaSumOf(ctx context.Context, key string) (store.MediaSum, error)
}

// WorkerConfig configures a Worker.
type WorkerConfig struct {
	Store PostStore
	Jobs  *jobs.Jobs
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
	// Retry is how a failed post is retried; unset fields are those of a
	// conclusion action's delivery (outbound.DeliveryRetry).
	Retry backoff.Retry
	// OnAttempt is called after each attempt at publishing a post with the
	// kind of its destination (Destination) and the outcome
	// (outbound.OutcomeDelivered, OutcomeWillRetry, OutcomeGaveUp); nil =
	// nothing. An attempt cut short by a stop is none.
	OnAttempt func(destination, outcome string)
}

// timeout bounds one attempt and is its lease: a webhook destination waits
// at most 15 s for its answer, the dir destination copies one clip; a post
// claimed this long ago by a process that died is published again (its
// Publisher finds the first publication).
const timeout = 5 * time.Minute

// args is the job of one post, named by its id.
type args struct {
	PostID string `json:"post_id"`
}

func (args) Kind() string { return "publish" }

// Worker publishes the posts the job system hands it, one at a time.
type Worker struct {
	cfg  WorkerConfig
	log  *slog.Logger
	dir  Dir
	rows *jobs.Rows[args]
}

// NewWorker checks cfg, fills its defaults and registers the worker's kind
// with cfg.Jobs, which runs it from its Start.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Store == nil || cfg.Media == nil || cfg.Jobs == nil {
		return nil, errors.New("publish: the worker needs a Store, Jobs and Media")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.HTTPClient = outbound.WebhookClient(cfg.HTTPClient, cfg.AllowPrivateWebhooks)
	cfg.Retry = cfg.Retry.Or(outbound.DeliveryRetry)
	if cfg.OnAttempt == nil {
		cfg.OnAttempt = func(string, string) {}
	}
	w := &Worker{cfg: cfg, log: cfg.Logger, dir: Dir{Media: cfg.Media}}
	var err error
	w.rows, err = jobs.RegisterRows(cfg.Jobs, jobs.RowKind[args, string, *store.Post]{
		Kind: jobs.Kind{Queue: jobs.QueuePublish, Timeout: timeout, Retry: cfg.Retry}, Row: "post", Logger: cfg.Logger,
		Pending: w.cfg.Store.PendingPosts, Args: func(id string) args { return args{PostID: id} },
		ID: func(a args) string { return a.PostID }, Get: w.cfg.Store.GetPost, Gone: store.ErrNotFound,
		Needs: func(p *store.Post) bool { return p.Status == store.PostPending }, Work: w.attempt,
	})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return w, nil
}

// Enqueue is the store's enqueue hook for p (store.CreatePost,
// FireSchedule): it adds p's job in the transaction that makes p.
func (w *Worker) Enqueue(p *store.Post) store.TxHook {
	return w.rows.Enqueue(func() args { return args{PostID: p.ID} })
}

// Adopt gives every pending post without a job one: those an older release
// made, and any whose job gave up.
func (w *Worker) Adopt(ctx context.Context) error { return w.rows.Adopt(ctx) }

// attempt publishes the job's pending post once and records the outcome:
// published with its receipt, or failed for good, with the job's
// completion; or the failure of an attempt the job system retries (the
// error it returns).
func (w *Worker) attempt(ctx context.Context, job *jobs.Job[args], p *store.Post) error {
	receipt, err := w.publish(ctx, p)
	if err != nil && ctx.Err() != nil {
		return err // cut short: the post stays pending, the job is handed back or retried
	}
	complete := func(ctx context.Context, tx *sql.Tx) error { return jobs.CompleteTx(ctx, tx, job) }
	// The outcome is recorded even when a stop comes now.
	ctx = context.WithoutCancel(ctx)
	if err == nil {
		// Counted as the destination answered it, like the failures below.
		w.cfg.OnAttempt(Destination(p.PublishTo), outbound.OutcomeDelivered)
		if err := w.cfg.Store.MarkPostPublished(ctx, p.ID, receipt.PublishedAt, receipt.Location, receipt.StorageSize, complete); err != nil {
			if errors.Is(err, store.ErrNotPending) {
				return nil
			}
			// Still pending, so published again; the destination knows it.
			return fmt.Errorf("record published post %s: %w", p.ID, err)
		}
		w.log.Info("post published", "post", p.ID, "schedule", p.ScheduleID, "account", p.PostAccountID,
			"platform", p.Platform, "location", receipt.Location)
		return nil
	}
	p.Attempts++
	p.LastError = err.Error()
	wait, _ := w.cfg.Retry.After(p.Attempts)
	// A refused address is refused again on every attempt, a damaged clip
	// stays damaged.
	if job.LastAttempt() || errors.As(err, new(*netguard.RefusedError)) || errors.Is(err, blob.ErrDamaged) {
		p.Status = store.PostFailed
		w.log.Warn("post failed, giving up", "post", p.ID, "attempts", p.Attempts, "err", err)
		w.cfg.OnAttempt(Destination(p.PublishTo), outbound.OutcomeGaveUp)
		if err := w.cfg.Store.SavePostAttempt(ctx, p, complete); err != nil && !errors.Is(err, store.ErrNotPending) {
			return fmt.Errorf("save attempt at post %s: %w", p.ID, err)
		}
		return nil
	}
	// The job system retries after about wait (jittered); the row shows
	// the failure and that time.
	p.NextAt = w.cfg.Store.Now().Add(wait)
	w.log.Warn("post failed, will retry", "post", p.ID, "attempts", p.Attempts, "next", p.NextAt, "err", err)
	w.cfg.OnAttempt(Destination(p.PublishTo), outbound.OutcomeWillRetry)
	if serr := w.cfg.Store.SavePostAttempt(ctx, p, nil); serr != nil {
		if errors.Is(serr, store.ErrNotPending) {
			return nil
		}
		w.log.Error("save post attempt", "post", p.ID, "err", serr)
	}
	return fmt.Errorf("post %s, attempt %d: %w", p.ID, p.Attempts, err)
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
	if err := w.checkClip(ctx, post.MediaKey); err != nil {
		return Receipt{}, fmt.Errorf("clip %s of post %s: %w", p.ContentID(), p.ID, err)
	}
	post.PublishedAt = w.cfg.Store.Now()
	return pub.Publish(ctx, post)
}

// checkClip reads the clip's render whole and refuses it (blob.ErrDamaged)
// when its size or SHA-256 is not the one recorded when it was rendered: a
// destination never gets a cut or altered clip. A render made before sums
// were recorded is published unchecked.
func (w *Worker) checkClip(ctx context.Context, key string) error {
	sum, err := w.cfg.Store.MediaSumOf(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return blob.Verify(ctx, w.cfg.Media, key, blob.Sum(sum))
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
