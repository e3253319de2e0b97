package api

import (
	"context"
	"net/http"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// socialAccountStore is what the social-account listing reads of the store.
type socialAccountStore interface {
	SocialAccounts(ctx context.Context, orgID string) ([]apitypes.SocialAccount, error)
}

// socialAccounts is GET /api/social-accounts?q=mine: the org's connected
// accounts in the common envelope.
func (a *API) socialAccounts(w http.ResponseWriter, r *http.Request) {
	if err := checkMine(r.URL.Query().Get("q")); err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.stores.socialAccounts.SocialAccounts(r.Context(), caller(r).OrgID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[[]apitypes.SocialAccount]{Data: list})
}
