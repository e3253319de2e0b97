package api

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// clipStore is what the clip and brand-template listings read of the store.
type clipStore interface {
	ListClips(ctx context.Context, projectID string, offset, limit int) ([]store.Clip, error)
	BrandTemplates(ctx context.Context, orgID string) ([]apitypes.BrandTemplate, error)
}

// Paging of GET /api/exportable-clips. The spec leaves the defaults open:
// pageNum starts at 1 (filled-gaps.md) and defaults to 1; pageSize defaults
// to 20 and may be at most 100. A pageSize above 100 is refused with a 400
// rather than silently cut, so a client never mistakes a clamped page for
// the last one (a page shorter than pageSize is the last).
// A page past the last one is empty; pageNum is bounded so that its offset
// ((pageNum-1) * pageSize) fits SQLite's 64-bit integers: beyond it the
// offset wrapped around to a negative one, which answered page 1 again.
const (
	defaultPageSize = 20
	maxPageSize     = 100
	maxPageNum      = math.MaxInt64/maxPageSize + 1
)

const (
	qByProject    = "findByProjectId"
	qByCollection = "findByCollectionId"
)

// exportableClips is GET /api/exportable-clips; it answers a bare array.
func (a *API) exportableClips(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ints := queryInts{q: q}
	pageNum := ints.get("pageNum", 1, 1, maxPageNum, "an integer from 1 to "+strconv.Itoa(maxPageNum))
	pageSize := ints.get("pageSize", defaultPageSize, 1, maxPageSize, "an integer from 1 to 100")
	if ints.err != nil {
		a.fail(w, r, ints.err)
		return
	}
	switch q.Get("q") {
	case qByProject:
		a.clipsOfProject(w, r, strings.TrimSpace(q.Get("projectId")), pageNum, pageSize)
	case qByCollection:
		a.clipsOfCollection(w, r, strings.TrimSpace(q.Get("collectionId")), pageNum, pageSize)
	case "":
		a.fail(w, r, badField("q", "is required: findByProjectId or findByCollectionId"))
	default:
		a.fail(w, r, badField("q", "must be findByProjectId or findByCollectionId, not %q", q.Get("q")))
	}
}

func (a *API) clipsOfProject(w http.ResponseWriter, r *http.Request, projectID string, pageNum, pageSize int) {
	if projectID == "" {
		a.fail(w, r, badField("projectId", "is required when q=findByProjectId"))
		return
	}
	if _, err := a.ownProject(r.Context(), caller(r), projectID); err != nil {
		a.fail(w, r, err)
		return
	}
	clips, err := a.stores.clips.ListClips(r.Context(), projectID, (pageNum-1)*pageSize, pageSize)
	a.writeClips(w, r, clips, err)
}

// writeClips answers a page of clips (a bare array, never null) with
// signed media addresses, or err.
func (a *API) writeClips(w http.ResponseWriter, r *http.Request, clips []store.Clip, err error) {
	var out []apitypes.ExportableClip
	if err == nil {
		out, err = a.signedClips(r.Context(), clips)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for i := range out {
		presentClip(&out[i])
	}
	writeJSON(w, http.StatusOK, out)
}

func presentClip(c *apitypes.ExportableClip) {
	if c.TimeRanges == nil {
		c.TimeRanges = [][2]int64{}
	}
	if c.Keywords == nil {
		c.Keywords = []string{}
	}
}

// brandTemplates is GET /api/brand-templates?q=mine: the org's templates and
// the presets, as a bare array.
func (a *API) brandTemplates(w http.ResponseWriter, r *http.Request) {
	if err := checkMine(r.URL.Query().Get("q")); err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.stores.clips.BrandTemplates(r.Context(), caller(r).OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if list == nil {
		list = []apitypes.BrandTemplate{}
	}
	writeJSON(w, http.StatusOK, list)
}
