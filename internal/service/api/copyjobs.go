package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// copyJobStore is what the social-copy handlers read and write of the store;
// a job is stored with its queue entry in one transaction.
type copyJobStore interface {
	GetClip(ctx context.Context, id string) (*store.Clip, error)
	GetSocialAccount(ctx context.Context, orgID, id string) (*store.SocialAccount, error)
	CreateCopyJob(ctx context.Context, j *store.CopyJob, regenerate bool, enqueue store.TxHook) error
	CopyJob(ctx context.Context, id string) (*store.CopyJob, error)
}

// createCopyJob is POST /api/social-copy-jobs. The store reuses the result
// of an earlier job for the same request unless forceRegenerate (the job is
// then COMPLETED and cached at once); otherwise the job is RUNNING, its job
// in the job system stored with it, until the copy worker finishes it.
func (a *API) createCopyJob(w http.ResponseWriter, r *http.Request) {
	req, err := decodeValid(w, r, checkCopyJob)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	job, err := a.copyJobOf(r.Context(), caller(r), req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var enqueue store.TxHook
	if a.copyJobs != nil {
		enqueue = a.copyJobs.Enqueue(job)
	}
	if err := a.stores.copyJobs.CreateCopyJob(r.Context(), job, req.ForceRegenerate, enqueue); err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("copy job created", "job", job.ID, "org", job.OrgID, "status", job.Status, "cached", job.Cached)
	writeJSON(w, http.StatusCreated, apitypes.Envelope[apitypes.SocialCopyJobCreated]{Data: apitypes.SocialCopyJobCreated{JobID: job.ID}})
}

// checkCopyJob checks the rules of a copy job request that need no lookup.
// The prompt is part of the cache key, so surrounding space is dropped.
func checkCopyJob(req *apitypes.SocialCopyJobRequest) error {
	req.Prompt = strings.TrimSpace(req.Prompt)
	if err := checkLengths(
		textField{"projectId", req.ProjectID, rules.MaxID}, textField{"clipId", req.ClipID, rules.MaxID},
		textField{"postAccountId", req.PostAccountID, rules.MaxID}, textField{"subAccountId", req.SubAccountID, rules.MaxID},
		textField{"prompt", req.Prompt, rules.MaxPrompt},
	); err != nil {
		return err
	}
	if req.ProjectID == "" {
		return badField("projectId", "is required")
	}
	if err := rules.BareClipID(req.ClipID); err != nil {
		return ruleError("clipId", err)
	}
	if req.PostAccountID == "" {
		return badField("postAccountId", "is required: the postAccountId of an account of GET /api/social-accounts?q=mine")
	}
	return nil
}

// copyJobOf looks up what the request names in the caller's org (the
// project, its clip, the connected account) and returns the job to create.
func (a *API) copyJobOf(ctx context.Context, key store.Key, req *apitypes.SocialCopyJobRequest) (*store.CopyJob, error) {
	if _, err := a.ownProject(ctx, key, req.ProjectID); err != nil {
		return nil, err
	}
	clip, err := a.stores.copyJobs.GetClip(ctx, req.ProjectID+"."+req.ClipID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &notFoundError{msg: fmt.Sprintf("clip %q of project %q not found; clipId is the curationId of an item of GET /api/exportable-clips",
			req.ClipID, req.ProjectID)}
	}
	if err != nil {
		return nil, err
	}
	acct, err := a.stores.copyJobs.GetSocialAccount(ctx, key.OrgID, req.PostAccountID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &notFoundError{msg: fmt.Sprintf("postAccountId: social account %q not found; GET /api/social-accounts?q=mine lists the connected ones",
			req.PostAccountID)}
	}
	if err != nil {
		return nil, err
	}
	if err := checkSubAccount(acct.SocialAccount, req.SubAccountID); err != nil {
		return nil, err
	}
	return &store.CopyJob{
		OrgID: key.OrgID, ProjectID: req.ProjectID, ClipID: req.ClipID, PostAccountID: acct.PostAccountID,
		SubAccountID: req.SubAccountID, Prompt: req.Prompt, Platform: acct.Platform, ClipVersion: clip.Version(),
	}, nil
}

// checkSubAccount checks subAccountId against the account. The spec marks
// it required, and it is for accounts that have a sub-account (a Facebook
// page, an Instagram business account, a LinkedIn URN): it must name that
// one. An account without one has nothing to name, so it must be empty.
func checkSubAccount(acct apitypes.SocialAccount, sub string) error {
	switch {
	case acct.SubAccountID == "" && sub != "":
		return badField("subAccountId", "must be empty: account %q (%s) has no sub-account, not %q", acct.PostAccountID, acct.Platform, sub)
	case acct.SubAccountID != "" && sub == "":
		return badField("subAccountId", "is required for account %q (%s): its subAccountId is %q", acct.PostAccountID, acct.Platform, acct.SubAccountID)
	case sub != acct.SubAccountID:
		return badField("subAccountId", "must be %q, the sub-account of account %q, not %q", acct.SubAccountID, acct.PostAccountID, sub)
	}
	return nil
}

// getCopyJob is GET /api/social-copy-jobs/{jobId}; another org's job is
// told like a missing one.
func (a *API) getCopyJob(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("jobId")
	job, err := a.stores.copyJobs.CopyJob(r.Context(), id)
	if err == nil && job.OrgID != caller(r).OrgID {
		err = store.ErrNotFound
	}
	if err != nil {
		a.fail(w, r, about("social copy job", id, err))
		return
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[apitypes.SocialCopyJob]{Data: job.API()})
}
