package outbound

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/netguard"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// sendWebhook POSTs the delivery's JSON body, signed with the project's
// organization key.
func (d *Dispatcher) sendWebhook(ctx context.Context, dl *store.Delivery) error {
	p, err := d.cfg.Store.GetProject(ctx, dl.ProjectID)
	if err != nil {
		return fmt.Errorf("webhook for project %s: %w", dl.ProjectID, err)
	}
	key, err := SigningKey(ctx, d.cfg.Store, p.OrgID)
	if err != nil {
		return fmt.Errorf("webhook for project %s: %w", dl.ProjectID, err)
	}
	// X-Svc-Delivery-Id lets receivers drop a repeat of a delivery they
	// already acknowledged.
	extra := http.Header{"X-Svc-Delivery-Id": {strconv.FormatInt(dl.ID, 10)}}
	return PostSigned(ctx, d.cfg.HTTPClient, dl.Target, key, []byte(dl.Body), d.cfg.Store.Now(), extra)
}

// KeyStore finds an organization's webhook signing key: its first API key.
type KeyStore interface {
	FirstKey(ctx context.Context, orgID string) (string, error)
}

// SigningKey is the key an organization's webhooks are signed with: its
// first API key (filled-gaps.md, Webhooks).
func SigningKey(ctx context.Context, st KeyStore, orgID string) (string, error) {
	key, err := st.FirstKey(ctx, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("organization %s has no API key to sign with", orgID)
	}
	return key, err
}

// PostSigned POSTs the JSON body to target, signed with key under a fresh
// salt and stamped with now, plus the extra headers. Any 2xx answer is an
// acknowledgement; anything else is an error quoting the start of the answer.
func PostSigned(ctx context.Context, client *http.Client, target, key string, body []byte, now time.Time, extra http.Header) error {
	salt := newSalt()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook url %q: %w", target, err)
	}
	for name, values := range extra {
		req.Header[name] = values
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "clipperd-webhook/1")
	req.Header.Set(apitypes.HeaderSalt, salt)
	req.Header.Set(apitypes.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(apitypes.HeaderSignature, Sign(key, body, salt))
	resp, err := client.Do(req)
	var refused *netguard.RefusedError
	if errors.As(err, &refused) {
		return fmt.Errorf("webhook url %s: %w; webhooks are sent only to public addresses "+
			"unless clipperd runs with --allow-private-webhooks", target, refused)
	}
	if err != nil {
		return fmt.Errorf("webhook POST %s: %w", target, err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook POST %s: receiver answered %s: %q", target, resp.Status, bytes.TrimSpace(snippet))
	}
	return nil
}
