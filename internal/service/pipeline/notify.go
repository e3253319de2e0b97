package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// conclusionDeliveries turns the project's conclusion actions into outbound
// deliveries for its current stage: every action on COMPLETE, only those
// with notifyFailure on STALLED.
func (r *Runner) conclusionDeliveries(p *store.Project, clips []apitypes.ExportableClip) []store.Delivery {
	failed := p.Stage == apitypes.StageStalled
	var out []store.Delivery
	for _, a := range p.ConclusionActions {
		if failed && !a.NotifyFailure {
			continue
		}
		switch {
		case strings.EqualFold(a.Type, apitypes.ActionEmail) && a.Email != "":
			out = append(out, store.Delivery{Kind: apitypes.ActionEmail, Target: a.Email, Body: outbound.EmailBody(r.email(p, clips))})
		case a.URL != "":
			payload, _ := json.Marshal(apitypes.WebhookPayload{ // plain strings and ints: cannot fail
				ProjectID: p.ID,
				OrgID:     p.OrgID,
				Stage:     p.Stage,
				Error:     p.Error,
				ClipCount: len(clips),
				Timestamp: store.Timestamp(r.cfg.Store.Now()),
			})
			out = append(out, store.Delivery{Kind: apitypes.ActionWebhook, Target: a.URL, Body: string(payload)})
		}
	}
	return out
}

// signedClips are clips as the API answers them, with the signed
// addresses a conclusion email hands out (Config.MediaLinks); the store
// keeps them unsigned.
func (r *Runner) signedClips(ctx context.Context, p *store.Project, clips []store.Clip) ([]apitypes.ExportableClip, error) {
	var out []apitypes.ExportableClip
	for _, c := range clips {
		out = append(out, c.API())
	}
	if r.cfg.MediaLinks == nil {
		return out, nil
	}
	for i := range out {
		if err := r.cfg.MediaLinks.SignClip(ctx, &out[i], p.Visibility); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// email is the message of an EMAIL conclusion action.
func (r *Runner) email(p *store.Project, clips []apitypes.ExportableClip) outbound.Email {
	var b strings.Builder
	if p.Stage == apitypes.StageComplete {
		fmt.Fprintf(&b, "Project %s is complete: %d clip(s) are ready.\n\n", p.ID, len(clips))
		for _, c := range clips {
			fmt.Fprintf(&b, "%s\n  %s\n  preview: %s\n\n", c.Title, c.URIForExport, c.URIForPreview)
		}
		return outbound.Email{Subject: fmt.Sprintf("clipperd: project %s is COMPLETE (%d clips)", p.ID, len(clips)), Text: b.String()}
	}
	errText := ""
	if p.Error != nil {
		errText = *p.Error
	}
	fmt.Fprintf(&b, "Project %s stalled and will not be retried.\n\nReason: %s\n", p.ID, errText)
	return outbound.Email{Subject: fmt.Sprintf("clipperd: project %s %s", p.ID, apitypes.StageStalled), Text: b.String()}
}

// enqueueDelivery is store.Effects.Enqueue: the dispatcher's job of each
// conclusion delivery, or none without a dispatcher.
func (r *Runner) enqueueDelivery() func(*store.Delivery) store.TxHook {
	if r.cfg.Deliveries == nil {
		return nil
	}
	return r.cfg.Deliveries.Enqueue
}
