package client

import (
	"context"
	"sync"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/loadonce"
)

// clipCache holds the clip listing of each COMPLETE project, read once per
// Shared (one provider run): a COMPLETE project's clips no longer change, so
// the clip_project resource counting them and every data source listing them
// share one listing (single-flight: concurrent readers wait for the one
// request in progress).
//
// A censor job rewrites its clip's files: creating one drops the project's
// listing and keeps the project out of the cache until the job is seen to
// end, which drops the listing again.
type clipCache struct {
	mu       sync.Mutex
	complete map[string]bool                                 // projects seen COMPLETE
	censors  map[string]string                               // censor jobs followed (created here or seen in flight) and not seen to end: job id -> project id
	busy     map[string]int                                  // censor jobs in flight per project
	ended    map[string]bool                                 // censor jobs of unknown projects already seen ended
	listings loadonce.Map[string, []apitypes.ExportableClip] // by project id
}

func newClipCache() *clipCache {
	return &clipCache{
		complete: map[string]bool{}, censors: map[string]string{}, busy: map[string]int{}, ended: map[string]bool{},
	}
}

// saw records a project's stage: COMPLETE makes its listing cacheable; any
// other stage (a project the service retries, say) drops what is held.
func (cc *clipCache) saw(p *apitypes.Project) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if p.Stage == apitypes.StageComplete && !p.IsDeleted && !p.IsPurged {
		cc.complete[p.ID] = true
		return
	}
	delete(cc.complete, p.ID)
	cc.dropLocked(p.ID)
}

// list returns project id's clips: the cached listing when the project is
// COMPLETE and no censor job of it is in flight, fetched once; otherwise
// fetch's answer, uncached.
func (cc *clipCache) list(ctx context.Context, id string, fetch func(context.Context) ([]apitypes.ExportableClip, error)) ([]apitypes.ExportableClip, error) {
	if !cc.cacheable(id) {
		return fetch(ctx)
	}
	clips, err := cc.listings.Get(ctx, id, func(ctx context.Context) ([]apitypes.ExportableClip, error) {
		clips, err := fetch(ctx)
		// A stage or censor job seen since the check above is answered to
		// this listing's readers but must not be kept.
		cc.mu.Lock()
		if !cc.cacheableLocked(id) {
			cc.dropLocked(id)
		}
		cc.mu.Unlock()
		return clips, err
	})
	return clone(clips), err
}

// cacheable reports whether project id's listing may be kept: it was seen
// COMPLETE and no censor job of it is in flight.
func (cc *clipCache) cacheable(id string) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.cacheableLocked(id)
}

func (cc *clipCache) cacheableLocked(id string) bool {
	return cc.complete[id] && cc.busy[id] == 0
}

// drop forgets project id's listing: its addresses were signed for the
// visibility it had, which changed.
func (cc *clipCache) drop(id string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.dropLocked(id)
}

// dropLocked forgets project id's listing, including one in progress.
func (cc *clipCache) dropLocked(id string) {
	cc.listings.Invalidate(id)
}

// censorStarting keeps project id out of the cache while a censor job is
// being created; censorCreated or censorFailed follows.
func (cc *clipCache) censorStarting(projectID string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.busy[projectID]++
	cc.dropLocked(projectID)
}

// censorCreated records the job of a censorStarting call.
func (cc *clipCache) censorCreated(projectID, jobID string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.censors[jobID] = projectID
}

// censorFailed undoes censorStarting when the job was not created.
func (cc *clipCache) censorFailed(projectID string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.endBusyLocked(projectID)
}

// censorStatus learns from the status of censor job jobID of project
// projectID ("" if the caller does not know it):
//   - A job created here that ended (concluded or failed) drops its
//     project's listing and lets it be kept again.
//   - A job of another process (an earlier run's, read on refresh) seen in
//     flight is then followed like one created here.
//   - One first seen ended drops nothing: its end came before this read,
//     at a time the status does not tell, and censoring changes the audio
//     in the files behind the clip's addresses, not a field of the listing
//     (ids, titles, lengths, ranges, addresses). Dropping there made a
//     refresh list a project's clips again for each of its censor jobs
//     read after the listing.
//   - Without its project, a job's end drops every listing, once per job.
func (cc *clipCache) censorStatus(jobID, projectID, status string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if tracked, ok := cc.censors[jobID]; ok {
		if censorEnded(status) {
			delete(cc.censors, jobID)
			cc.endBusyLocked(tracked)
			cc.dropLocked(tracked)
		}
		return
	}
	switch {
	case projectID != "" && !censorEnded(status):
		cc.censors[jobID] = projectID
		cc.busy[projectID]++
		cc.dropLocked(projectID)
	case projectID == "" && censorEnded(status) && !cc.ended[jobID]:
		cc.ended[jobID] = true
		cc.listings.InvalidateAll()
	}
}

func (cc *clipCache) endBusyLocked(projectID string) {
	if cc.busy[projectID]--; cc.busy[projectID] <= 0 {
		delete(cc.busy, projectID)
	}
}

// censorEnded reports whether a censor job in status will change its clip
// no more.
func censorEnded(status string) bool {
	switch status {
	case apitypes.CensorConcluded, apitypes.CensorFailed:
		return true
	}
	return false
}

// clone copies a listing's slice, so one reader's changes cannot reach the
// others.
func clone(clips []apitypes.ExportableClip) []apitypes.ExportableClip {
	if clips == nil {
		return nil
	}
	return append([]apitypes.ExportableClip(nil), clips...)
}
