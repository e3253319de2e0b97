package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/sources"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// projectStore is what the project handlers read and write of the store:
// admission (the concurrent cap and the credits) is one transaction with
// the enqueue; Now is the store's clock, which tests move.
type projectStore interface {
	CreateProjectThen(ctx context.Context, p *store.Project, adm store.Admission, then store.TxHook) error
	GetProject(ctx context.Context, id string) (*store.Project, error)
	MutateProject(ctx context.Context, id string, fn func(*store.Project) error) (*store.Project, error)
	BrandTemplate(ctx context.Context, orgID, id string) (*apitypes.BrandTemplate, error)
	GetUpload(ctx context.Context, id string) (*store.Upload, error)
	Now() time.Time
}

// createProject is POST /api/clip-projects.
func (a *API) createProject(w http.ResponseWriter, r *http.Request) {
	key := caller(r)
	req, err := decodeCreate(w, r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	p, uploadID, err := a.projectOf(r.Context(), key, req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	err = a.stores.projects.CreateProjectThen(r.Context(), p, store.Admission{
		MaxConcurrent: a.limits.MaxConcurrent, MonthlyCredits: int64(a.limits.MonthlyCredits), Reserve: quota.ReserveCredits,
		StorageQuota: a.limits.StorageQuota,
	}, a.runner.Enqueue(p))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("project created", "project", p.ID, "org", p.OrgID, "source", p.SourcePlatform)
	if uploadID != "" {
		w.Header().Set(apitypes.HeaderUploadID, uploadID)
	}
	writeJSON(w, http.StatusCreated, p.API())
}

// decodeCreate reads a create request and checks every rule that needs no
// lookup.
func decodeCreate(w http.ResponseWriter, r *http.Request) (*apitypes.CreateProjectRequest, error) {
	body, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	// The shape of clipDurations first: the typed decode below would
	// silently trim or pad its pairs.
	if err := checkClipDurationsJSON(body); err != nil {
		return nil, err
	}
	var req apitypes.CreateProjectRequest
	if err := unmarshalBody(body, &req); err != nil {
		return nil, err
	}
	if err := normalizeCreate(&req); err != nil {
		return nil, err
	}
	return &req, nil
}

// projectOf looks up what the request names, its brand template and its
// source, and builds the project; uploadID is set when the source is an upload.
func (a *API) projectOf(ctx context.Context, key store.Key, req *apitypes.CreateProjectRequest) (p *store.Project, uploadID string, err error) {
	tpl, err := a.stores.projects.BrandTemplate(ctx, key.OrgID, req.BrandTemplateID)
	if err != nil {
		return nil, "", unknownAs(err, "brandTemplateId", "unknown brand template %q; GET /api/brand-templates?q=mine lists the usable ones", req.BrandTemplateID)
	}
	req.BrandTemplateID = tpl.TemplateID
	if err := a.checkOverlays(ctx, key, req.RenderPref); err != nil {
		return nil, "", err
	}
	// Last, as it may look the host up in DNS: every cheaper rule first.
	platform, sourceID, uploadID, err := a.resolveSource(ctx, key, req.VideoURL)
	if err != nil {
		return nil, "", err
	}
	if !a.allowPrivateWebhooks {
		if err := checkWebhookHosts(ctx, req.ConclusionActions); err != nil {
			return nil, "", err
		}
	}
	return store.NewProject(key, req, platform, sourceID, a.stores.projects.Now()), uploadID, nil
}

// resolveSource checks videoUrl with the rules the pipeline imports by
// (package sources): an http(s) link to a public host, or a complete upload
// of the caller's org. It returns what the project reports as its source.
func (a *API) resolveSource(ctx context.Context, key store.Key, videoURL string) (platform, sourceID, uploadID string, err error) {
	src, err := sources.Classify(videoURL)
	var invalid *sources.InvalidError
	if errors.As(err, &invalid) {
		return "", "", "", badField(invalid.Field, "%s", invalid.Rule)
	}
	if err != nil {
		return "", "", "", err
	}
	if src.Kind == sources.KindUpload {
		up, err := a.completeUpload(ctx, key, src.ID)
		if err != nil {
			return "", "", "", err
		}
		return src.Platform, up.ID, up.ID, nil
	}
	// This server's own media addresses are read from disk by the
	// pipeline, never fetched, so the network rule does not apply.
	if !a.allowPrivate && !sources.OwnMedia(videoURL, a.publicURL) {
		if err := checkPublicHost(ctx, src.URL.Hostname()); err != nil {
			return "", "", "", err
		}
	}
	return src.Platform, src.ID, "", nil
}

// completeUpload is the upload a videoUrl names: one of the caller's org,
// with every byte received.
func (a *API) completeUpload(ctx context.Context, key store.Key, id string) (*store.Upload, error) {
	up, err := a.stores.projects.GetUpload(ctx, id)
	if err == nil && up.OrgID != key.OrgID {
		err = store.ErrNotFound // another org's upload is told like a missing one
	}
	if err != nil {
		return nil, unknownAs(err, "videoUrl", "unknown upload id %q: use the uploadId of POST /api/upload-links, or an http(s) URL", id)
	}
	if !up.Complete {
		total := "an unknown number of"
		if up.Total >= 0 {
			total = strconv.FormatInt(up.Total, 10)
		}
		return nil, badField("videoUrl", "upload %s is incomplete (%d of %s bytes received); finish the PUTs first",
			up.ID, up.Received, total)
	}
	return up, nil
}

// ownProject loads a project of the caller's org; another org's project is
// reported exactly like a missing one.
func (a *API) ownProject(ctx context.Context, key store.Key, id string) (*store.Project, error) {
	p, err := a.stores.projects.GetProject(ctx, id)
	if err == nil && p.OrgID != key.OrgID {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, about("project", id, err)
	}
	return p, nil
}

// getProject is GET /api/clip-projects/{id}.
func (a *API) getProject(w http.ResponseWriter, r *http.Request) {
	p, err := a.ownProject(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p.API())
}

// updateVisibility is POST /api/clip-projects/{id}/update-visibility.
func (a *API) updateVisibility(w http.ResponseWriter, r *http.Request) {
	key, id := caller(r), r.PathValue("id")
	req, err := decodeValid(w, r, checkVisibility)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	p, err := a.stores.projects.MutateProject(r.Context(), id, func(p *store.Project) error {
		if p.OrgID != key.OrgID {
			return store.ErrNotFound
		}
		p.Visibility = req.Visibility
		return nil
	})
	if err != nil {
		a.fail(w, r, about("project", id, err))
		return
	}
	writeJSON(w, http.StatusOK, p.API())
}

func checkVisibility(req *apitypes.UpdateVisibilityRequest) error {
	if !slices.Contains(apitypes.Visibilities, req.Visibility) {
		return badField("visibility", "must be one of %s, not %q", strings.Join(apitypes.Visibilities, ", "), req.Visibility)
	}
	return nil
}
