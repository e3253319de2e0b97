package api

import (
	"context"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// maxScreenOverlays bounds renderPref.screenOverlays: each is one more
// picture decoded through the whole of every clip.
const maxScreenOverlays = 10

// checkOverlays holds each renderPref.screenOverlays item to a complete
// upload of the caller's org: its object.id is the uploadId of the picture
// (the provider's file_id). Another org's upload is told like a missing
// one. Whether the bytes are an image or a video is found at the render.
func (a *API) checkOverlays(ctx context.Context, key store.Key, p *apitypes.RenderPref) error {
	if p == nil {
		return nil
	}
	if n := len(p.ScreenOverlays); n > maxScreenOverlays {
		return badField("renderPref.screenOverlays", "must have at most %d items, not %d", maxScreenOverlays, n)
	}
	if id := p.ScreenOverlayFileID; id != nil && *id != "" {
		if err := a.checkOverlayUpload(ctx, key, "renderPref.screenOverlayFileId", *id); err != nil {
			return err
		}
	}
	for i, o := range p.ScreenOverlays {
		field := fmt.Sprintf("renderPref.screenOverlays[%d].object.id", i)
		if o.Object == nil || o.Object.ID == "" {
			return badField(field, "is required: the uploadId (POST /api/upload-links) of the overlay's image or video")
		}
		if err := a.checkOverlayUpload(ctx, key, field, o.Object.ID); err != nil {
			return err
		}
	}
	return nil
}

// checkOverlayUpload holds id, named field, to a complete upload of the caller's org.
func (a *API) checkOverlayUpload(ctx context.Context, key store.Key, field, id string) error {
	up, err := a.stores.projects.GetUpload(ctx, id)
	if err == nil && up.OrgID != key.OrgID {
		err = store.ErrNotFound
	}
	if err != nil {
		return unknownAs(err, field, "unknown upload id %q: use the uploadId of POST /api/upload-links", id)
	}
	if !up.Complete {
		return badField(field, "upload %s is incomplete (%d bytes received); finish the PUTs first", up.ID, up.Received)
	}
	return nil
}
