package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// censorJobStore is what the censor-job handlers read and write of the store.
type censorJobStore interface {
	GetClip(ctx context.Context, id string) (*store.Clip, error)
	CreateCensorJob(ctx context.Context, j *store.CensorJob, enqueue store.TxHook) error
	CensorJob(ctx context.Context, id string) (*store.CensorJob, error)
}

// createCensorJob is POST /api/censor-jobs: the job is QUEUED, its job in
// the job system stored with it, until the censor worker (package
// censorjobs) takes it.
func (a *API) createCensorJob(w http.ResponseWriter, r *http.Request) {
	req, err := decodeValid(w, r, checkCensorJob)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	key := caller(r)
	if _, err := a.ownProject(r.Context(), key, req.ProjectID); err != nil {
		a.fail(w, r, err)
		return
	}
	if _, err := a.stores.censorJobs.GetClip(r.Context(), req.ProjectID+"."+req.ClipID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			err = &notFoundError{msg: fmt.Sprintf("clip %q of project %q not found; clipId is the curationId of an item of GET /api/exportable-clips",
				req.ClipID, req.ProjectID)}
		}
		a.fail(w, r, err)
		return
	}
	job := &store.CensorJob{OrgID: key.OrgID, ProjectID: req.ProjectID, ClipID: req.ClipID, Beep: req.Options.BeepSound}
	var enqueue store.TxHook
	if a.censorJobs != nil {
		enqueue = a.censorJobs.Enqueue(job)
	}
	if err := a.stores.censorJobs.CreateCensorJob(r.Context(), job, enqueue); err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("censor job created", "job", job.ID, "org", job.OrgID, "project", job.ProjectID, "clip", job.ClipID, "beep", job.Beep)
	writeJSON(w, http.StatusCreated, apitypes.CensorJob{JobID: job.ID, Message: "censor job queued"})
}

// checkCensorJob checks the rules of a censor job request that need no lookup.
func checkCensorJob(req *apitypes.CensorJobRequest) error {
	if req.ProjectID == "" {
		return badField("projectId", "is required")
	}
	if err := rules.BareClipID(req.ClipID); err != nil {
		return ruleError("clipId", err)
	}
	return nil
}

// getCensorJob is GET /api/censor-jobs/{jobId}; another org's job is told
// like a missing one.
func (a *API) getCensorJob(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("jobId")
	job, err := a.stores.censorJobs.CensorJob(r.Context(), id)
	if err == nil && job.OrgID != caller(r).OrgID {
		err = store.ErrNotFound
	}
	if err != nil {
		a.fail(w, r, about("censor job", id, err))
		return
	}
	writeJSON(w, http.StatusOK, job.API())
}
