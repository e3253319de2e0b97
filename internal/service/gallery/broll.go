package gallery

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// brollView is one item of an org's b-roll library as the page shows it.
type brollView struct {
	ID, Name, Kind, Size, Keywords, Added string
}

// brollPage is the data of /ui/broll.
type brollPage struct {
	Items []brollView
}

// broll is GET /ui/broll: the org's b-roll library (`clipperd broll add`),
// oldest first, the order renders prefer items in.
func (g *Gallery) broll(w http.ResponseWriter, r *http.Request) {
	items, err := g.store.BrollItems(r.Context(), caller(r).OrgID)
	if err != nil {
		g.fail(w, r, err)
		return
	}
	page := brollPage{Items: make([]brollView, len(items))}
	for i, it := range items {
		page.Items[i] = brollItemView(it)
	}
	g.render(w, r, http.StatusOK, "broll", "B-roll", page)
}

func brollItemView(it *store.BrollItem) brollView {
	v := brollView{ID: it.ID, Name: it.Name, Kind: "image", Size: fmt.Sprintf("%d×%d", it.Width, it.Height),
		Keywords: strings.Join(it.Keywords, ", "), Added: shownTime(store.Timestamp(it.CreatedAt))}
	if !it.Still {
		v.Kind = fmt.Sprintf("video, %.1f s", it.DurationSec)
	}
	return v
}
