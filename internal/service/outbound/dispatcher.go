// Package outbound sends clipperd's conclusion actions: signed webhook calls
// and emails. Each message is a store.Delivery row with a job in the job
// system (package jobs), inserted in the transaction that stores the row;
// the Dispatcher sends it, records each attempt on the row and retries a
// failure on the backoff curve, within the delivery retry budget.
//
// A delivery is sent until one attempt is recorded done, and the record
// completes its job in the same transaction: a process that dies after a
// receiver accepted a message and before the record sends it again once
// its job's lease (timeout) runs out, as the dispatcher before the job
// system did after a restart. No two processes send the same delivery at
// once: the job system hands each job to one worker.
package outbound

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/netguard"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Store is what the dispatcher needs of the store: the pending
// deliveries, their projects and signing keys, and each attempt's record.
type Store interface {
	KeyStore
	Now() time.Time
	PendingDeliveries(ctx context.Context) ([]int64, error)
	GetDelivery(ctx context.Context, id int64) (*store.Delivery, error)
	GetProject(ctx context.Context, id string) (*store.Project, error)
	SaveDeliveryAttempt(ctx context.Context, d *store.Delivery, then store.TxHook) error
}

// Config configures a Dispatcher.
type Config struct {
	Store      Store
	Jobs       *jobs.Jobs
	DataDir    string       // .eml files go to DataDir/outbox when SMTP is empty
	SMTP       string       // "host:port" of a relay taking plain, unauthenticated mail; empty = write .eml files
	From       string       // sender address; default "clipperd@localhost"
	Logger     *slog.Logger // nil = discard
	HTTPClient *http.Client // for webhooks; nil = WebhookClient's default
	// AllowPrivateWebhooks lets webhooks connect to loopback and private
	// addresses; off, HTTPClient's connections go through package netguard.
	AllowPrivateWebhooks bool

	// RetryBase is the wait after the first failed attempt; it doubles per
	// attempt up to RetryMax. MaxAttempts is how many attempts a delivery
	// gets before it is marked failed. Defaults: DeliveryRetry.
	RetryBase, RetryMax time.Duration
	MaxAttempts         int

	// OnAttempt is called after each attempt at a delivery with its kind
	// (WEBHOOK or EMAIL) and outcome (OutcomeDelivered, OutcomeWillRetry,
	// OutcomeGaveUp); nil = nothing. An attempt cut short by a stop is none.
	OnAttempt func(kind, outcome string)
}

// The outcomes of an attempt at a delivery, as Config.OnAttempt reports
// them; the publish worker reports its posts' the same way.
const (
	OutcomeDelivered = "delivered"
	OutcomeWillRetry = "will_retry"
	OutcomeGaveUp    = "gave_up"
)

// Dispatcher sends the deliveries the job system hands it.
type Dispatcher struct {
	cfg   Config
	log   *slog.Logger
	retry backoff.Retry
	rows  *jobs.Rows[args]
}

// DeliveryRetry is how a delivery is retried by default: from 5 s doubling
// up to 10 minutes, 8 attempts in all.
var DeliveryRetry = backoff.Retry{Base: 5 * time.Second, Max: 10 * time.Minute, Attempts: 8}

// timeout bounds one attempt and is its lease: a webhook waits at most 15 s
// for its answer (WebhookClient), an email for its relay; a delivery
// claimed this long ago by a process that died is sent again.
const timeout = time.Minute

// args is the job of one delivery row, named by its id.
type args struct {
	DeliveryID int64 `json:"delivery_id"`
}

func (args) Kind() string { return "delivery" }

// New checks cfg, fills its defaults and registers the dispatcher's kind
// with cfg.Jobs, which runs it from its Start.
func New(cfg Config) (*Dispatcher, error) {
	if cfg.Store == nil || cfg.Jobs == nil {
		return nil, errors.New("outbound: Store and Jobs are required")
	}
	if cfg.SMTP == "" && cfg.DataDir == "" {
		return nil, errors.New("outbound: DataDir is required when SMTP is not set (emails are written to DataDir/outbox)")
	}
	if cfg.From == "" {
		cfg.From = "clipperd@localhost"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.HTTPClient = WebhookClient(cfg.HTTPClient, cfg.AllowPrivateWebhooks)
	if cfg.OnAttempt == nil {
		cfg.OnAttempt = func(string, string) {}
	}
	retry := backoff.Retry{Base: cfg.RetryBase, Max: cfg.RetryMax, Attempts: cfg.MaxAttempts}.Or(DeliveryRetry)
	d := &Dispatcher{cfg: cfg, log: cfg.Logger, retry: retry}
	var err error
	d.rows, err = jobs.RegisterRows(cfg.Jobs, jobs.RowKind[args, int64, *store.Delivery]{
		Kind: jobs.Kind{Queue: jobs.QueueDelivery, Timeout: timeout, Retry: retry}, Row: "delivery", Logger: cfg.Logger,
		Pending: d.cfg.Store.PendingDeliveries, Args: func(id int64) args { return args{DeliveryID: id} },
		ID: func(a args) int64 { return a.DeliveryID }, Get: d.cfg.Store.GetDelivery, Gone: store.ErrNotFound,
		Needs: func(dl *store.Delivery) bool { return dl.Status == store.DeliveryPending }, Work: d.attempt,
	})
	if err != nil {
		return nil, fmt.Errorf("outbound: %w", err)
	}
	return d, nil
}

// WebhookClient is the client signed webhooks are sent with: base, by
// default one with a 15 s timeout that does not follow redirects, with its
// connections to non-public addresses refused (package netguard) unless
// allowPrivate.
func WebhookClient(base *http.Client, allowPrivate bool) *http.Client {
	if base == nil {
		base = &http.Client{
			Timeout: 15 * time.Second,
			// A redirect answer is not an acknowledgement; re-POSTing
			// elsewhere would also send the signed body to a third party.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return netguard.Client(base, allowPrivate)
}

// Enqueue is the store's enqueue hook for dl (store.Effects.Enqueue,
// store.EnqueueDelivery): it adds dl's job in the transaction that stores
// dl, once dl has its id.
func (d *Dispatcher) Enqueue(dl *store.Delivery) store.TxHook {
	return d.rows.Enqueue(func() args { return args{DeliveryID: dl.ID} })
}

// Adopt gives every pending delivery without a job one: those an older
// release stored, and any whose job gave up.
func (d *Dispatcher) Adopt(ctx context.Context) error { return d.rows.Adopt(ctx) }

// attempt makes one try at the job's pending delivery and records the
// outcome: done or failed with the job's completion, or the failure of an
// attempt the job system retries (the error it returns).
func (d *Dispatcher) attempt(ctx context.Context, job *jobs.Job[args], dl *store.Delivery) error {
	var err error
	switch dl.Kind {
	case apitypes.ActionWebhook:
		err = d.sendWebhook(ctx, dl)
	case apitypes.ActionEmail:
		err = d.sendEmail(ctx, dl)
	default:
		err = fmt.Errorf("unknown delivery kind %q", dl.Kind)
	}
	if err != nil && ctx.Err() != nil {
		return err // cut short: the row stays pending, the job is handed back or retried
	}
	dl.Attempts++
	wait, _ := d.retry.After(dl.Attempts)
	// A refused address is refused again on every attempt.
	giveUp := job.LastAttempt() || errors.As(err, new(*netguard.RefusedError))
	var complete store.TxHook = func(ctx context.Context, tx *sql.Tx) error { return jobs.CompleteTx(ctx, tx, job) }
	sendErr := err
	switch {
	case err == nil:
		dl.Status, dl.LastError = store.DeliveryDone, ""
		d.log.Info("delivery sent", "delivery", dl.ID, "project", dl.ProjectID, "kind", dl.Kind, "target", dl.Target, "attempts", dl.Attempts)
		d.cfg.OnAttempt(dl.Kind, OutcomeDelivered)
	case giveUp:
		dl.Status, dl.LastError = store.DeliveryFailed, err.Error()
		d.log.Warn("delivery failed, giving up", "delivery", dl.ID, "project", dl.ProjectID, "kind", dl.Kind, "target", dl.Target, "attempts", dl.Attempts, "err", err)
		d.cfg.OnAttempt(dl.Kind, OutcomeGaveUp)
	default:
		// The job system retries after about wait (jittered); the row
		// shows the failure and that time.
		dl.LastError = err.Error()
		dl.NextAt = d.cfg.Store.Now().Add(wait)
		d.log.Warn("delivery failed, will retry", "delivery", dl.ID, "project", dl.ProjectID, "kind", dl.Kind, "target", dl.Target, "attempts", dl.Attempts, "next", dl.NextAt, "err", err)
		d.cfg.OnAttempt(dl.Kind, OutcomeWillRetry)
		complete = nil
	}
	// The attempt is recorded even when a stop comes now: it was made.
	if err := d.cfg.Store.SaveDeliveryAttempt(context.WithoutCancel(ctx), dl, complete); err != nil {
		return fmt.Errorf("save delivery attempt %d: %w", dl.ID, err)
	}
	if complete == nil {
		return fmt.Errorf("delivery %d, attempt %d: %w", dl.ID, dl.Attempts, sendErr)
	}
	return nil
}

// outboxDir is where .eml files go without SMTP.
func (d *Dispatcher) outboxDir() string { return filepath.Join(d.cfg.DataDir, "outbox") }

// writeFileAtomic writes data to path through a temporary file, so a reader
// of the outbox never sees half a message.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
