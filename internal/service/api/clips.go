package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Paging of GET /api/exportable-clips. The spec leaves the defaults open:
// pageNum starts at 1 (filled-gaps.md) and defaults to 1; pageSize defaults
// to 20 and may be at most 100. A pageSize above 100 is refused with a 400
// rather than silently cut, so a client never mistakes a clamped page for
// the last one (a page shorter than pageSize is the last).
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

const (
	qByProject    = "findByProjectId"
	qByCollection = "findByCollectionId"
)

// exportableClips is GET /api/exportable-clips; it answers a bare array.
func (a *API) exportableClips(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	pageNum, err := intParam(q.Get("pageNum"), 1, 1, 0, "pageNum", "an integer >= 1")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	pageSize, err := intParam(q.Get("pageSize"), defaultPageSize, 1, maxPageSize, "pageSize", "an integer from 1 to 100")
	if err != nil {
		a.fail(w, r, err)
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
	if _, err := a.ownProject(r.Context(), caller(r), projectID); errors.Is(err, store.ErrNotFound) {
		a.projectNotFound(w, projectID)
		return
	} else if err != nil {
		a.fail(w, r, err)
		return
	}
	clips, err := a.store.ListClips(r.Context(), projectID, (pageNum-1)*pageSize, pageSize)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for i := range clips {
		presentClip(&clips[i])
	}
	writeJSON(w, http.StatusOK, clips)
}

// intParam parses an optional integer query parameter within [lo, hi]
// (hi 0 = no upper bound).
func intParam(raw string, def, lo, hi int, name, rule string) (int, error) {
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || (hi > 0 && n > hi) {
		return 0, badField(name, "must be %s, not %q", rule, raw)
	}
	return n, nil
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
	if q := r.URL.Query().Get("q"); q != "mine" {
		a.fail(w, r, badField("q", "must be mine, not %q", q))
		return
	}
	list, err := a.store.BrandTemplates(r.Context(), caller(r).OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if list == nil {
		list = []apitypes.BrandTemplate{}
	}
	writeJSON(w, http.StatusOK, list)
}
