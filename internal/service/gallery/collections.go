package gallery

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// collectionsPerPage pages the collections page; maxSchedulesShown bounds
// each list of the schedules page.
const (
	collectionsPerPage = 50
	maxSchedulesShown  = 200
)

// collectionsPage is the data of /ui/collections.
type collectionsPage struct {
	pager
	Collections []store.CollectionWithClips
}

// collections is GET /ui/collections?page=N: the org's collections, 50 a
// page, each with its clips, which link to their projects.
func (g *Gallery) collections(w http.ResponseWriter, r *http.Request) {
	list, pg, ok := listPage(g, w, r, "collections", collectionsPerPage, g.store.OrgCollectionsWithClips)
	if !ok {
		return
	}
	g.render(w, r, http.StatusOK, "collections", "Collections", collectionsPage{pager: pg, Collections: list})
}

// scheduleView is a publish schedule with the account it publishes to and,
// once fired, the post it made.
type scheduleView struct {
	store.Schedule
	PublishAt   string
	Account     string // platform and name of the account
	Destination string
	Post        *postView
}

// postView is the fate of a fired schedule's post.
type postView struct {
	ID, Status, Error, PublishedAt string
	Location                       string
}

// schedulesPage is the data of /ui/schedules.
type schedulesPage struct {
	Pending, Fired []scheduleView
}

// schedules is GET /ui/schedules: the org's pending publish schedules,
// soonest first, and its fired ones, latest first, with where each post
// went.
func (g *Gallery) schedules(w http.ResponseWriter, r *http.Request) {
	ctx, org := r.Context(), caller(r).OrgID
	accounts := map[string]*store.SocialAccount{} // read once each
	var data schedulesPage
	for _, list := range []struct {
		status string
		into   *[]scheduleView
	}{{store.SchedulePending, &data.Pending}, {store.ScheduleFired, &data.Fired}} {
		scheds, err := g.store.OrgSchedules(ctx, org, list.status, maxSchedulesShown)
		if err != nil {
			g.fail(w, r, err)
			return
		}
		for _, sc := range scheds {
			v, err := g.scheduleView(r, sc, accounts)
			if err != nil {
				g.fail(w, r, err)
				return
			}
			*list.into = append(*list.into, v)
		}
	}
	g.render(w, r, http.StatusOK, "schedules", "Publish schedules", data)
}

// scheduleView describes sc; accounts caches the accounts read (nil: gone).
func (g *Gallery) scheduleView(r *http.Request, sc store.ScheduleWithPost, accounts map[string]*store.SocialAccount) (scheduleView, error) {
	v := scheduleView{Schedule: sc.Schedule, PublishAt: sc.PublishAt.UTC().Format(time.RFC3339), Account: sc.PostAccountID + " (no longer connected)"}
	acct, seen := accounts[sc.PostAccountID]
	if !seen {
		var err error
		acct, err = g.store.GetSocialAccount(r.Context(), sc.OrgID, sc.PostAccountID)
		if errors.Is(err, store.ErrNotFound) {
			acct, err = nil, nil
		}
		if err != nil {
			return v, err
		}
		accounts[sc.PostAccountID] = acct
	}
	if acct != nil {
		v.Account, v.Destination = acct.Platform+" · "+acct.ExtUserName, destination(acct.PublishTo)
	}
	p := sc.Post
	if p == nil {
		return v, nil
	}
	v.Destination = destination(p.PublishTo) // where it went, whatever the account says now
	v.Post = &postView{ID: p.ID, Status: p.Status, Error: p.LastError, Location: shownLocation(p.Location)}
	if !p.PublishedAt.IsZero() {
		v.Post.PublishedAt = p.PublishedAt.UTC().Format(time.RFC3339)
	}
	return v, nil
}

// destination describes a publish destination ("dir", "webhook:URL")
// without what a webhook address may hold in its path or query (tokens).
func destination(publishTo string) string {
	if addr, ok := strings.CutPrefix(publishTo, "webhook:"); ok {
		if u, err := url.Parse(addr); err == nil && u.Host != "" {
			return "webhook to " + u.Host
		}
		return "webhook"
	}
	if publishTo == store.PublishToDir {
		return "directory on the server"
	}
	return publishTo
}

// shownLocation is where a post was published or a video came from, as
// the pages show it: a directory as is, an address without credentials,
// query or fragment (which may hold tokens).
func shownLocation(loc string) string {
	u, err := url.Parse(loc)
	if err != nil || u.Host == "" {
		return loc
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
