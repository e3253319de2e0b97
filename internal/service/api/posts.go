package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/publish"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// postStore is what the posting and scheduling handlers read and write of
// the store: a post's credit cap is checked inside CreatePost's transaction.
type postStore interface {
	GetClip(ctx context.Context, id string) (*store.Clip, error)
	GetSocialAccount(ctx context.Context, orgID, id string) (*store.SocialAccount, error)
	CreatePost(ctx context.Context, orgID string, content store.PostContent, limits store.PostLimits, enqueue func(*store.Post) store.TxHook) (*store.Post, error)
	CreateSchedule(ctx context.Context, orgID string, content store.PostContent, publishAt time.Time) (*store.Schedule, error)
	CancelSchedule(ctx context.Context, orgID, id string) error
	Now() time.Time
}

// createPostTask is POST /api/post-tasks: a post of one of the org's clips
// to one of its connected accounts, published in the background. A TWITTER
// post is charged a credit now (the monthly cap's 403 when spent); a post
// whose copy of the clip will hold bytes of its own (the dir destination on
// a bucket) reserves them in the org's storage now (the storage quota's 403).
func (a *API) createPostTask(w http.ResponseWriter, r *http.Request) {
	req, err := decodeValid(w, r, checkPostTask)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	key := caller(r)
	content, err := a.postContent(r.Context(), key, req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var enqueue func(*store.Post) store.TxHook
	if a.posts != nil {
		enqueue = a.posts.Enqueue
	}
	limits := store.PostLimits{
		MonthlyCap: int64(a.limits.MonthlyCredits), StorageQuota: a.limits.StorageQuota, CopySize: publish.ClipCopySize(a.media),
	}
	p, err := a.stores.posts.CreatePost(r.Context(), key.OrgID, content, limits, enqueue)
	if err != nil {
		a.fail(w, r, about("social account", req.PostAccountID, err))
		return
	}
	writeJSON(w, http.StatusCreated, apitypes.Envelope[apitypes.PostTask]{Data: apitypes.PostTask{PostID: p.ID}})
}

// createPublishSchedule is POST /api/publish-schedules: a post-task body
// and publishAt. The post is made, and a TWITTER one charged, when it fires.
func (a *API) createPublishSchedule(w http.ResponseWriter, r *http.Request) {
	req, err := decodeValid(w, r, func(req *apitypes.PublishScheduleRequest) error {
		if err := checkPostTask(&req.PostTaskRequest); err != nil {
			return err
		}
		return checkPublishAt(req.PublishAt, a.stores.posts.Now())
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	key := caller(r)
	content, err := a.postContent(r.Context(), key, &req.PostTaskRequest)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	at, err := time.Parse(time.RFC3339Nano, req.PublishAt) // checkPublishAt parsed it
	if err != nil {
		a.fail(w, r, err)
		return
	}
	sc, err := a.stores.posts.CreateSchedule(r.Context(), key.OrgID, content, at)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.scheduleCreated()
	writeJSON(w, http.StatusCreated, apitypes.Envelope[apitypes.PublishSchedule]{Data: apitypes.PublishSchedule{ScheduleID: sc.ID}})
}

// deletePublishSchedule is DELETE /api/publish-schedules/{scheduleId}: it
// cancels a pending schedule. One that fired, was cancelled, or is another
// org's is not found.
func (a *API) deletePublishSchedule(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("scheduleId")
	if err := a.stores.posts.CancelSchedule(r.Context(), caller(r).OrgID, id); err != nil {
		a.fail(w, r, about("pending publish schedule", id, err))
		return
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[string]{Data: id})
}

// checkPostTask checks the rules of a post-task body that need no lookup.
func checkPostTask(req *apitypes.PostTaskRequest) error {
	fields := []textField{
		{"projectId", req.ProjectID, rules.MaxID}, {"clipId", req.ClipID, rules.MaxID},
		{"postAccountId", req.PostAccountID, rules.MaxID}, {"subAccountId", req.SubAccountID, rules.MaxID},
		{"postDetail.title", req.PostDetail.Title, rules.MaxTitle}, {"postDetail.mediaType", req.PostDetail.MediaType, rules.MaxKeyword},
	}
	if c := req.PostDetail.Custom; c != nil {
		fields = append(fields, textField{"postDetail.custom.description", c.Description, rules.MaxDescription},
			textField{"postDetail.custom.privacy", c.Privacy, rules.MaxKeyword})
	}
	if err := checkLengths(fields...); err != nil {
		return err
	}
	for _, f := range []struct {
		name, hint string
		value      *string
	}{
		{"projectId", "the id of one of the organization's projects", &req.ProjectID},
		{"clipId", "the bare clip id, the curationId of an exportable clip", &req.ClipID},
		{"postAccountId", "a postAccountId of GET /api/social-accounts?q=mine", &req.PostAccountID},
	} {
		*f.value = strings.TrimSpace(*f.value)
		if *f.value == "" {
			return badField(f.name, "is required: %s", f.hint)
		}
	}
	if strings.Contains(req.ClipID, ".") {
		return badField("clipId", "must be the bare clip id (the part after the dot of an exportable clip's id), not %q", req.ClipID)
	}
	if err := rules.PostTitle(req.PostDetail.Title); err != nil {
		return ruleError("postDetail.title", err)
	}
	if c := req.PostDetail.Custom; c != nil {
		if err := rules.Privacy(c.Privacy); err != nil {
			return ruleError("postDetail.custom.privacy", err)
		}
	}
	return nil
}

// checkPublishAt checks publishAt against the server's clock.
func checkPublishAt(publishAt string, now time.Time) error {
	if err := rules.PublishAt(publishAt, now); err != nil {
		return ruleError("publishAt", err)
	}
	return nil
}

// postContent checks what a post names, as the caller's org sees it (what
// it cannot see is not found): the project, its clip, and the connected
// account with its sub-account (checkSubAccount).
func (a *API) postContent(ctx context.Context, key store.Key, req *apitypes.PostTaskRequest) (store.PostContent, error) {
	if _, err := a.ownProject(ctx, key, req.ProjectID); err != nil {
		return store.PostContent{}, err
	}
	if _, err := a.stores.posts.GetClip(ctx, req.ProjectID+"."+req.ClipID); err != nil {
		return store.PostContent{}, about("clip "+strconv.Quote(req.ClipID)+" of project", req.ProjectID, err)
	}
	acct, err := a.stores.posts.GetSocialAccount(ctx, key.OrgID, req.PostAccountID)
	if err != nil {
		return store.PostContent{}, about("social account", req.PostAccountID, err)
	}
	if err := checkSubAccount(acct.SocialAccount, req.SubAccountID); err != nil {
		return store.PostContent{}, err
	}
	content := store.NewPostContent(*req)
	content.SubAccountID = acct.SubAccountID
	return content, nil
}
