package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// CreateCollection creates a collection (POST /api/collections).
func (c *Client) CreateCollection(ctx context.Context, name string) (*apitypes.Collection, error) {
	if err := requireID("collection name", name); err != nil {
		return nil, err
	}
	var col apitypes.Collection
	err := c.call(ctx, apiCall{
		method: http.MethodPost, path: "/api/collections",
		body: apitypes.CreateCollectionRequest{CollectionName: name}, out: &col, envelope: true,
	})
	if err != nil {
		return nil, err
	}
	return &col, nil
}

// ListCollections lists the account's collections (q=mine) when contentID is
// empty, else the collections holding that clip (q=findByContentId), following
// the `next` cursor until it is null.
func (c *Client) ListCollections(ctx context.Context, contentID string) ([]apitypes.Collection, error) {
	base := url.Values{"q": {"mine"}}
	if contentID != "" {
		base = url.Values{"q": {"findByContentId"}, "contentId": {contentID}}
	}
	var all []apitypes.Collection
	seen := map[string]bool{}
	cursor := ""
	for {
		q := url.Values{}
		for k, v := range base {
			q[k] = v
		}
		if cursor != "" {
			q.Set("next", cursor)
		}
		var page apitypes.CollectionPage
		if err := c.call(ctx, apiCall{method: http.MethodGet, path: "/api/collections", query: q, out: &page, envelope: true}); err != nil {
			return nil, err
		}
		all = append(all, page.List...)
		next, err := cursorString(page.Next)
		if err != nil {
			return nil, fmt.Errorf("GET /api/collections: %w", err)
		}
		if next == "" {
			return all, nil
		}
		// A cursor seen before would loop forever.
		if seen[next] {
			return nil, fmt.Errorf("GET /api/collections: the service returned cursor %q twice", next)
		}
		seen[next] = true
		cursor = next
	}
}

// cursorString renders the `next` cursor (string, number or null) as the
// query value to send back; "" means no further page.
func cursorString(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	default:
		return "", fmt.Errorf("next cursor has type %T; want string, number or null", v)
	}
}

// DeleteCollection deletes a collection (DELETE /api/collections/{id}).
func (c *Client) DeleteCollection(ctx context.Context, id string) error {
	if err := requireID("collection id", id); err != nil {
		return err
	}
	err := c.call(ctx, apiCall{method: http.MethodDelete, path: "/api/collections/" + url.PathEscape(id)})
	return err
}

// ExportCollection returns the export addresses of a collection's clips
// (POST /api/collections/{id}/export).
func (c *Client) ExportCollection(ctx context.Context, id string) (*apitypes.ExportedCollection, error) {
	if err := requireID("collection id", id); err != nil {
		return nil, err
	}
	var ex apitypes.ExportedCollection
	err := c.call(ctx, apiCall{
		method: http.MethodPost, path: "/api/collections/" + url.PathEscape(id) + "/export",
		body: struct{}{}, out: &ex, envelope: true,
	})
	if err != nil {
		return nil, err
	}
	return &ex, nil
}

// AddCollectionContent puts a clip (composite {projectId}.{curationId}) into a
// collection (POST /api/collection-contents).
func (c *Client) AddCollectionContent(ctx context.Context, collectionID, contentID string) (*apitypes.CollectionContent, error) {
	if err := requireID("collection id", collectionID); err != nil {
		return nil, err
	}
	if err := requireID("content id", contentID); err != nil {
		return nil, err
	}
	var cc apitypes.CollectionContent
	err := c.call(ctx, apiCall{
		method: http.MethodPost, path: "/api/collection-contents",
		body: apitypes.CollectionContent{CollectionID: collectionID, ContentID: contentID}, out: &cc, envelope: true,
	})
	if err != nil {
		return nil, err
	}
	return &cc, nil
}

// DeleteCollectionContent removes a clip from a collection
// (POST /api/collection-contents/delete-collection-contents).
func (c *Client) DeleteCollectionContent(ctx context.Context, collectionID, contentID string) error {
	if err := requireID("collection id", collectionID); err != nil {
		return err
	}
	if err := requireID("content id", contentID); err != nil {
		return err
	}
	err := c.call(ctx, apiCall{
		method: http.MethodPost, path: "/api/collection-contents/delete-collection-contents",
		body: apitypes.DeleteCollectionContentRequest{
			Q: apitypes.QDeleteByCollectionAndContent, CollectionID: collectionID, ContentID: contentID,
		},
	})
	return err
}
