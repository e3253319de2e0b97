package gallery

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Paging of the project list, and the most projects one progress poll asks
// about (a page's worth).
const (
	projectsPerPage = 50
	maxProgressIDs  = projectsPerPage
	// maxClipsShown bounds a project page; curation makes at most 30 clips.
	maxClipsShown = 500
)

// projectRow is a project as the list and the progress poll show it.
type projectRow struct {
	ID       string `json:"id"`
	Title    string `json:"-"`
	Source   string `json:"-"`
	Created  string `json:"-"` // as stored (RFC 3339), for <time datetime>
	Shown    string `json:"-"` // Created for people
	Stage    string `json:"stage"`
	InFlight bool   `json:"inFlight"`
	Percent  int    `json:"percent"`
	Clips    int    `json:"clips"`
	Credits  int64  `json:"credits"`
	Error    string `json:"error"`
}

func newProjectRow(p store.ProjectSummary) projectRow {
	row := projectRow{
		ID: p.ID, Title: projectTitle(p.Project), Source: projectSource(p.Project), Created: store.Timestamp(p.CreatedAt), Shown: shownTime(store.Timestamp(p.CreatedAt)),
		Stage: string(p.Stage), InFlight: p.Stage.InFlight(), Percent: stagePercent(p.Stage),
		Clips: p.ClipCount, Credits: p.CreditsCharged,
	}
	if p.Error != nil {
		row.Error = *p.Error
	}
	return row
}

// projectList is the data of /ui/.
type projectList struct {
	pager
	Rows                  []projectRow
	FirstShown, LastShown int
}

// projects is GET /ui/?page=N: the org's projects, newest first.
func (g *Gallery) projects(w http.ResponseWriter, r *http.Request) {
	list, pg, ok := listPage(g, w, r, "projects", projectsPerPage, g.store.OrgProjects)
	if !ok {
		return
	}
	data := projectList{pager: pg}
	for _, p := range list {
		data.Rows = append(data.Rows, newProjectRow(p))
	}
	if len(list) > 0 {
		first := (pg.Page-1)*projectsPerPage + 1
		data.FirstShown, data.LastShown = first, first+len(list)-1
	}
	g.render(w, r, http.StatusOK, "projects", "Projects", data)
}

// listPage reads the page of the caller's org's list (of what, for the 404
// page) that the request's ?page=N asks for, perPage items a page, from
// query (the page's items and the total). It answers a bad or missing page
// or a store failure itself and is then not ok.
func listPage[T any](g *Gallery, w http.ResponseWriter, r *http.Request, what string, perPage int,
	query func(ctx context.Context, orgID string, offset, limit int) ([]T, int, error)) ([]T, pager, bool) {
	pageNum, ok := pageNumber(r)
	if !ok {
		g.notFound(w, r, "There is no such page of "+what+".")
		return nil, pager{}, false
	}
	list, total, err := query(r.Context(), caller(r).OrgID, (pageNum-1)*perPage, perPage)
	if err != nil {
		g.fail(w, r, err)
		return nil, pager{}, false
	}
	pg, ok := newPager(pageNum, total, perPage)
	if !ok {
		g.notFound(w, r, "There is no such page of "+what+".")
		return nil, pager{}, false
	}
	return list, pg, true
}

// pageNumber is the request's ?page=N (1 when absent); false when it is
// not a page number.
func pageNumber(r *http.Request) (int, bool) {
	n, err := strconv.Atoi(cmp.Or(r.URL.Query().Get("page"), "1"))
	return n, err == nil && n >= 1 && n <= 1<<20
}

// pager is the paging of a list page: page Page of Pages over Total items.
type pager struct {
	Total, Page, Pages int
	PrevPage, NextPage int // 0: none
}

// newPager pages total items perPage a page at page; not ok when page is
// past the last (a list of none has one, empty, page).
func newPager(page, total, perPage int) (pager, bool) {
	p := pager{Total: total, Page: page, Pages: max(1, (total+perPage-1)/perPage)}
	if page > 1 {
		p.PrevPage = page - 1
	}
	if page < p.Pages {
		p.NextPage = page + 1
	}
	return p, page <= p.Pages
}

// progressAnswer is the body of GET /ui/progress.
type progressAnswer struct {
	Projects []projectRow `json:"projects"`
}

// progress is GET /ui/progress?ids=a,b: the stage, progress, clip count,
// credits and error of those of the projects that are the org's (others
// are left out). The list page's script polls it.
func (g *Gallery) progress(w http.ResponseWriter, r *http.Request) {
	var ids []string
	for id := range strings.SplitSeq(r.URL.Query().Get("ids"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) > maxProgressIDs {
		writeJSONError(w, http.StatusBadRequest, "Bad Request", "ids: at most "+strconv.Itoa(maxProgressIDs)+" project ids")
		return
	}
	list, err := g.store.OrgProjectsByID(r.Context(), caller(r).OrgID, ids)
	if err != nil {
		g.log.Error("gallery progress failed", "err", err)
		writeJSONError(w, http.StatusInternalServerError, "Internal Server Error", "the projects could not be read")
		return
	}
	out := progressAnswer{Projects: make([]projectRow, 0, len(list))}
	for _, p := range list {
		out.Projects = append(out.Projects, newProjectRow(p))
	}
	writeJSON(w, http.StatusOK, out)
}

// authedJSON is authed for the progress endpoint: without a session it
// answers 401 in JSON, which the script turns into a visit to the form;
// when the session cannot be read it answers 500.
func (g *Gallery) authedJSON(next http.HandlerFunc) http.Handler {
	return g.withSession(next, func(w http.ResponseWriter, _ *http.Request, err error) {
		if errors.Is(err, errNoSession) {
			writeJSONError(w, http.StatusUnauthorized, "Unauthorized", "log in at /ui/login")
			return
		}
		// A store that fails (busy, closing) is not a logout: the script
		// retries a 500 and keeps its page.
		g.log.Error("gallery session check failed", "err", err)
		writeJSONError(w, http.StatusInternalServerError, "Internal Server Error", "the session could not be read")
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeJSONError answers the API's error body.
func writeJSONError(w http.ResponseWriter, status int, name, msg string) {
	writeJSON(w, status, apitypes.ErrorBody{ErrorName: name, ErrorMessage: &msg})
}

// clipView is a clip as the project page shows it.
type clipView struct {
	apitypes.ExportableClip
	Range       string
	Hashtags    []string
	Collections []store.Collection
}

// projectPage is the data of /ui/projects/{id}.
type projectPage struct {
	Row   projectRow
	Prefs []prefSection
	Clips []clipView
}

// project is GET /ui/projects/{id}: the project's clips and preferences.
// Another org's project is told like a missing one (404).
func (g *Gallery) project(w http.ResponseWriter, r *http.Request) {
	ctx, org := r.Context(), caller(r).OrgID
	p, err := g.store.GetProject(ctx, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) || (err == nil && p.OrgID != org) {
		g.notFound(w, r, "There is no project with this id in your organization.")
		return
	}
	if err != nil {
		g.fail(w, r, err)
		return
	}
	clips, err := g.store.ListClips(ctx, p.ID, 0, maxClipsShown)
	if err != nil {
		g.fail(w, r, err)
		return
	}
	held, err := g.store.ClipCollections(ctx, org, p.ID)
	if err != nil {
		g.fail(w, r, err)
		return
	}
	data := projectPage{Row: newProjectRow(store.ProjectSummary{Project: p, ClipCount: len(clips)}), Prefs: projectPrefs(p)}
	for _, clip := range clips {
		// Shown and signed exactly as the API hands them out.
		c := clip.API()
		if err := g.links.SignClip(ctx, &c, p.Visibility); err != nil {
			g.fail(w, r, err)
			return
		}
		c.URIForPreview, c.URIForExport = localMedia(c.URIForPreview), localMedia(c.URIForExport)
		data.Clips = append(data.Clips, clipView{
			ExportableClip: c, Range: timeRange(c.TimeRanges), Hashtags: strings.Fields(c.Hashtags), Collections: held[c.ID],
		})
	}
	g.render(w, r, http.StatusOK, "project", data.Row.Title, data)
}
