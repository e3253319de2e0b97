// Package outbound sends clipperd's conclusion actions: signed webhook calls
// and emails. Each message is a store.Delivery row, so pending work survives
// a restart; the Dispatcher sends due rows and reschedules failures with
// exponential backoff.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/netguard"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Config configures a Dispatcher.
type Config struct {
	Store        *store.Store
	DataDir      string        // .eml files go to DataDir/outbox when SMTP is empty
	SMTP         string        // "host:port" of a relay taking plain, unauthenticated mail; empty = write .eml files
	From         string        // sender address; default "clipperd@localhost"
	Logger       *slog.Logger  // nil = discard
	HTTPClient   *http.Client  // for webhooks; nil = WebhookClient's default
	PollInterval time.Duration // how often due deliveries are looked up without a Wake; default 5 s
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
	// OutcomeGaveUp); nil = nothing. An attempt cut short by Stop is none.
	OnAttempt func(kind, outcome string)
}

// The outcomes of an attempt at a delivery, as Config.OnAttempt reports
// them; the publish worker reports its posts' the same way.
const (
	OutcomeDelivered = "delivered"
	OutcomeWillRetry = "will_retry"
	OutcomeGaveUp    = "gave_up"
)

// Dispatcher sends pending deliveries.
type Dispatcher struct {
	cfg   Config
	log   *slog.Logger
	retry backoff.Retry
	loop  repeat.Loop
}

// DeliveryRetry is how a delivery is retried by default: from 5 s doubling
// up to 10 minutes, 8 attempts in all.
var DeliveryRetry = backoff.Retry{Base: 5 * time.Second, Max: 10 * time.Minute, Attempts: 8}

// parallel bounds how many deliveries of one batch are sent at once, so one
// slow receiver does not hold up the others.
const parallel = 4

// New checks cfg and fills its defaults.
func New(cfg Config) (*Dispatcher, error) {
	if cfg.Store == nil {
		return nil, errors.New("outbound: Store is required")
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
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 5 * time.Second
	}
	if cfg.OnAttempt == nil {
		cfg.OnAttempt = func(string, string) {}
	}
	retry := backoff.Retry{Base: cfg.RetryBase, Max: cfg.RetryMax, Attempts: cfg.MaxAttempts}.Or(DeliveryRetry)
	return &Dispatcher{cfg: cfg, log: cfg.Logger, retry: retry}, nil
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

// Start runs the send loop until Stop or ctx ends. Deliveries left pending
// by an earlier process are sent on the first pass.
func (d *Dispatcher) Start(ctx context.Context) { d.loop.Start(ctx, d.sendDue) }

// Wake asks the loop to look for due deliveries now instead of at the next poll.
func (d *Dispatcher) Wake() { d.loop.Wake() }

// Stop cancels the loop, then always waits for it to return, so nothing
// uses the store after Stop. Every send watches the loop's context (the
// webhook request, the SMTP connection, the file write is short), so the
// wait is short. A delivery cut short stays pending and is sent after the
// next Start.
func (d *Dispatcher) Stop() { d.loop.Stop() }

// sendDue sends every due delivery, batch after batch, until none is due,
// and waits a poll interval for the next pass.
func (d *Dispatcher) sendDue(ctx context.Context) time.Duration {
	if err := repeat.Drain(ctx, 32, d.cfg.Store.DueDeliveries, d.sendBatch); err != nil {
		d.log.Error("list due deliveries", "err", err)
	}
	return d.cfg.PollInterval
}

// sendBatch attempts every delivery of due, a few at a time.
func (d *Dispatcher) sendBatch(ctx context.Context, due []store.Delivery) error {
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range due {
		wg.Add(1)
		sem <- struct{}{}
		go func(dl *store.Delivery) {
			defer func() { <-sem; wg.Done() }()
			d.attempt(ctx, dl)
		}(&due[i])
	}
	wg.Wait()
	return nil
}

// attempt makes one try at dl and records the outcome.
func (d *Dispatcher) attempt(ctx context.Context, dl *store.Delivery) {
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
		return // cut short by shutdown: the row stays pending and due
	}
	dl.Attempts++
	wait, giveUp := d.retry.After(dl.Attempts)
	// A refused address is refused again on every attempt.
	giveUp = giveUp || errors.As(err, new(*netguard.RefusedError))
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
		dl.LastError = err.Error()
		dl.NextAt = d.cfg.Store.Now().Add(wait)
		d.log.Warn("delivery failed, will retry", "delivery", dl.ID, "project", dl.ProjectID, "kind", dl.Kind, "target", dl.Target, "attempts", dl.Attempts, "next", dl.NextAt, "err", err)
		d.cfg.OnAttempt(dl.Kind, OutcomeWillRetry)
	}
	if err := d.cfg.Store.SaveDeliveryAttempt(context.WithoutCancel(ctx), dl); err != nil {
		d.log.Error("save delivery attempt", "delivery", dl.ID, "err", err)
	}
}

// outboxDir is where .eml files go without SMTP.
func (d *Dispatcher) outboxDir() string { return filepath.Join(d.cfg.DataDir, "outbox") }

// writeFileAtomic writes data to path through a temporary file, so a reader
// of the outbox never sees half a message.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
