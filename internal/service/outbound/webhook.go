package outbound

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// sendWebhook POSTs the delivery's JSON body, signed with the project's
// organization key. Any 2xx answer is an acknowledgement.
func (d *Dispatcher) sendWebhook(ctx context.Context, dl *store.Delivery) error {
	p, err := d.cfg.Store.GetProject(ctx, dl.ProjectID)
	if err != nil {
		return fmt.Errorf("webhook for project %s: %w", dl.ProjectID, err)
	}
	key, err := d.cfg.Store.FirstKey(ctx, p.OrgID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("webhook for project %s: organization %s has no API key to sign with", dl.ProjectID, p.OrgID)
	}
	if err != nil {
		return fmt.Errorf("webhook for project %s: %w", dl.ProjectID, err)
	}
	body := []byte(dl.Body)
	salt := newSalt()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dl.Target, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook url %q: %w", dl.Target, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "clipperd-webhook/1")
	req.Header.Set(apitypes.HeaderSalt, salt)
	req.Header.Set(apitypes.HeaderTimestamp, strconv.FormatInt(d.cfg.Store.Now().Unix(), 10))
	req.Header.Set(apitypes.HeaderSignature, Sign(key, body, salt))
	// Lets receivers drop a repeat of a delivery they already acknowledged.
	req.Header.Set("X-Svc-Delivery-Id", strconv.FormatInt(dl.ID, 10))
	resp, err := d.cfg.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("webhook POST %s: %w", dl.Target, err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook POST %s: receiver answered %s: %q", dl.Target, resp.Status, bytes.TrimSpace(snippet))
	}
	return nil
}
