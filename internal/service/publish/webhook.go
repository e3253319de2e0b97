package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
)

// HeaderPostID carries the post id on a webhook publication, so a receiver
// can drop a repeat: one is sent only when clipperd stopped between the
// receiver's answer and clipperd's record of it.
const HeaderPostID = "X-Svc-Post-Id"

// Webhook publishes each post by POSTing its document, with mediaUrl where
// the render is downloaded, to URL; signed like the conclusion webhooks
// (X-Svc-Signature with the organization's first API key). Any 2xx answer
// publishes the post.
type Webhook struct {
	URL    string
	Client *http.Client
	Store  SigningStore // the signing key and the clock
}

// SigningStore is the store as a webhook destination needs it: the
// organization's signing key and the clock of the signature.
type SigningStore interface {
	outbound.KeyStore
	Now() time.Time
}

// Publish POSTs p.
func (h Webhook) Publish(ctx context.Context, p Post) (Receipt, error) {
	body, err := json.Marshal(p.Document(p.MediaURL))
	if err != nil {
		return Receipt{}, fmt.Errorf("encode post %s: %w", p.ID, err)
	}
	key, err := outbound.SigningKey(ctx, h.Store, p.OrgID)
	if err != nil {
		return Receipt{}, fmt.Errorf("post %s: %w", p.ID, err)
	}
	extra := http.Header{HeaderPostID: {p.ID}}
	if err := outbound.PostSigned(ctx, h.Client, h.URL, key, body, h.Store.Now(), extra); err != nil {
		return Receipt{}, fmt.Errorf("post %s: %w", p.ID, err)
	}
	return Receipt{Location: h.URL, PublishedAt: p.PublishedAt}, nil
}
