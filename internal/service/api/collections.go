package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// collectionStore is what the collection handlers read and write of the
// store; the collection quota is checked inside CreateCollection's transaction.
type collectionStore interface {
	CreateCollection(ctx context.Context, orgID, name string, maxCollections int) (store.Collection, error)
	DeleteCollection(ctx context.Context, orgID, id string) error
	ListCollections(ctx context.Context, orgID, contentID string, offset, limit int) ([]store.Collection, int, error)
	CollectionClips(ctx context.Context, orgID, collectionID string, offset, limit int) ([]store.Clip, error)
	AddCollectionContent(ctx context.Context, orgID, collectionID, contentID string) error
	RemoveCollectionContent(ctx context.Context, orgID, collectionID, contentID string) error
}

// Page size of GET /api/collections (query `limit`), which the spec leaves
// open.
const (
	defaultCollectionLimit = 20
	maxCollectionLimit     = 100
)

const (
	qMine        = "mine"
	qByContentID = "findByContentId"
	errQuota     = "QuotaExceed"
	deleteOK     = "success"
)

// createCollection is POST /api/collections.
func (a *API) createCollection(w http.ResponseWriter, r *http.Request) {
	req, err := decodeValid(w, r, checkCreateCollection)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	c, err := a.stores.collections.CreateCollection(r.Context(), caller(r).OrgID, req.CollectionName, a.limits.MaxCollections)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[apitypes.Collection]{Data: c.API()})
}

func checkCreateCollection(req *apitypes.CreateCollectionRequest) error {
	if err := rules.CollectionName(req.CollectionName); err != nil {
		return ruleError("collectionName", err)
	}
	return nil
}

// listCollections is GET /api/collections?q=mine|findByContentId. Paging is
// by an opaque cursor: `next` is the offset of the following page as a
// string, null on the last page.
func (a *API) listCollections(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	contentID := strings.TrimSpace(q.Get("contentId"))
	switch q.Get("q") {
	case qMine:
	case qByContentID:
		if contentID == "" {
			a.fail(w, r, badField("contentId", "is required when q=findByContentId"))
			return
		}
	case "":
		a.fail(w, r, badField("q", "is required: mine or findByContentId"))
		return
	default:
		a.fail(w, r, badField("q", "must be mine or findByContentId, not %q", q.Get("q")))
		return
	}
	// The spec lets q=mine narrow by contentId too.
	if contentID != "" {
		if err := checkContentID(contentID); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	ints := queryInts{q: q}
	limit := ints.get("limit", defaultCollectionLimit, 1, maxCollectionLimit, "an integer from 1 to 100")
	offset := ints.get("next", 0, 0, 0, "a cursor from the `next` of an earlier page")
	if ints.err != nil {
		a.fail(w, r, ints.err)
		return
	}
	list, total, err := a.stores.collections.ListCollections(r.Context(), caller(r).OrgID, contentID, offset, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	page := apitypes.CollectionPage{List: make([]apitypes.Collection, len(list)), Total: total, Limit: &limit}
	for i, c := range list {
		page.List[i] = c.API()
	}
	if end := offset + len(list); len(list) > 0 && end < total {
		page.Next = strconv.Itoa(end)
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[apitypes.CollectionPage]{Data: page})
}

// deleteCollection is DELETE /api/collections/{collectionId}.
func (a *API) deleteCollection(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("collectionId")
	if err := a.stores.collections.DeleteCollection(r.Context(), caller(r).OrgID, id); err != nil {
		a.fail(w, r, about("collection", id, err))
		return
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[string]{Data: id})
}

// exportCollection is POST /api/collections/{collectionId}/export: the export
// addresses of the collection's clips (signed), in the order they were added.
func (a *API) exportCollection(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("collectionId")
	if err := emptyObjectBody(w, r); err != nil {
		a.fail(w, r, err)
		return
	}
	clips, err := a.stores.collections.CollectionClips(r.Context(), caller(r).OrgID, id, 0, -1)
	if err != nil {
		a.fail(w, r, about("collection", id, err))
		return
	}
	signed, err := a.signedClips(r.Context(), clips)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := apitypes.ExportedCollection{ContentList: make([]apitypes.ExportedContent, 0, len(signed))}
	for _, c := range signed {
		out.ContentList = append(out.ContentList, apitypes.ExportedContent{ContentID: c.ID, URIForExport: c.URIForExport})
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[apitypes.ExportedCollection]{Data: out})
}

// addCollectionContent is POST /api/collection-contents.
func (a *API) addCollectionContent(w http.ResponseWriter, r *http.Request) {
	req, err := decodeValid(w, r, checkAddContent)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	err = a.stores.collections.AddCollectionContent(r.Context(), caller(r).OrgID, req.CollectionID, req.ContentID)
	if err != nil {
		a.fail(w, r, contentError(req.CollectionID, req.ContentID, err))
		return
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[apitypes.CollectionContent]{Data: *req})
}

// deleteCollectionContent is POST /api/collection-contents/delete-collection-contents.
func (a *API) deleteCollectionContent(w http.ResponseWriter, r *http.Request) {
	req, err := decodeValid(w, r, checkDeleteContent)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	err = a.stores.collections.RemoveCollectionContent(r.Context(), caller(r).OrgID, req.CollectionID, req.ContentID)
	if err != nil {
		a.fail(w, r, contentError(req.CollectionID, req.ContentID, err))
		return
	}
	writeJSON(w, http.StatusOK, apitypes.Envelope[string]{Data: deleteOK})
}

func checkAddContent(req *apitypes.CollectionContent) error {
	return checkContentRef(req.CollectionID, req.ContentID)
}

func checkDeleteContent(req *apitypes.DeleteCollectionContentRequest) error {
	if req.Q != apitypes.QDeleteByCollectionAndContent {
		return badField("q", "must be %s, not %q", apitypes.QDeleteByCollectionAndContent, req.Q)
	}
	return checkContentRef(req.CollectionID, req.ContentID)
}

// contentError says what a content command missed: the collection (404),
// a clip of the org (a 400 on contentId), or the clip in the collection (404).
func contentError(collectionID, contentID string, err error) error {
	switch {
	case errors.Is(err, store.ErrClipNotFound):
		return badField("contentId", "no exportable clip %q in this organization; use the id of an item of GET /api/exportable-clips", contentID)
	case errors.Is(err, store.ErrNotInCollection):
		return &notFoundError{msg: "clip " + strconv.Quote(contentID) + " is not in collection " + strconv.Quote(collectionID)}
	}
	return about("collection", collectionID, err)
}

// clipsOfCollection is GET /api/exportable-clips?q=findByCollectionId.
func (a *API) clipsOfCollection(w http.ResponseWriter, r *http.Request, collectionID string, pageNum, pageSize int) {
	if collectionID == "" {
		a.fail(w, r, badField("collectionId", "is required when q=findByCollectionId"))
		return
	}
	clips, err := a.stores.collections.CollectionClips(r.Context(), caller(r).OrgID, collectionID, (pageNum-1)*pageSize, pageSize)
	a.writeClips(w, r, clips, about("collection", collectionID, err))
}

// checkContentRef checks the collectionId and contentId of a content command.
func checkContentRef(collectionID, contentID string) error {
	if collectionID == "" {
		return badField("collectionId", "is required")
	}
	return checkContentID(contentID)
}

// checkContentID checks the composite clip id form {projectId}.{curationId}.
func checkContentID(id string) error {
	if err := rules.ContentID(id); err != nil {
		return ruleError("contentId", err)
	}
	return nil
}

// emptyObjectBody accepts the export's `{}` body: empty or a JSON object
// (whose fields, none defined, are ignored); anything else is a 400.
func emptyObjectBody(w http.ResponseWriter, r *http.Request) error {
	data, err := readBody(w, r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := unmarshalBody(data, &obj); err != nil {
		return err
	}
	if obj == nil { // the literal null
		return badField("body", "must be a JSON object or empty, not null")
	}
	return nil
}
