package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// DefaultClipPageSize is the pageSize sent when ClipFilter.PageSize is zero.
const DefaultClipPageSize = 50

// ClipFilter selects exportable clips: exactly one of ProjectID and
// CollectionID; PageSize default 50.
type ClipFilter struct {
	ProjectID, CollectionID string
	PageSize                int
}

// query validates f and builds the query of page pageNum.
func (f ClipFilter) query(pageNum int) (url.Values, int, error) {
	if (f.ProjectID == "") == (f.CollectionID == "") {
		return nil, 0, errors.New("list exportable clips: exactly one of project id and collection id must be set")
	}
	size := f.PageSize
	if size == 0 {
		size = DefaultClipPageSize
	}
	if size < 0 {
		return nil, 0, fmt.Errorf("list exportable clips: page size must be positive, got %d", size)
	}
	if pageNum < 1 {
		return nil, 0, fmt.Errorf("list exportable clips: page number starts at 1, got %d", pageNum)
	}
	q := url.Values{}
	if f.ProjectID != "" {
		q.Set("q", "findByProjectId")
		q.Set("projectId", f.ProjectID)
	} else {
		q.Set("q", "findByCollectionId")
		q.Set("collectionId", f.CollectionID)
	}
	q.Set("pageNum", strconv.Itoa(pageNum))
	q.Set("pageSize", strconv.Itoa(size))
	return q, size, nil
}

// ListExportableClipsPage reads one page (GET /api/exportable-clips), pageNum
// from 1.
func (c *Client) ListExportableClipsPage(ctx context.Context, f ClipFilter, pageNum int) ([]apitypes.ExportableClip, error) {
	q, _, err := f.query(pageNum)
	if err != nil {
		return nil, err
	}
	var clips []apitypes.ExportableClip
	if err := c.call(ctx, apiCall{method: http.MethodGet, path: "/api/exportable-clips", query: q, out: &clips}); err != nil {
		return nil, err
	}
	return clips, nil
}

// ListExportableClips follows every page; a page shorter than PageSize is the
// last. A project's listing is read once per Shared when a client of it has
// seen the project COMPLETE (see clipCache); every caller gets its own copy.
func (c *Client) ListExportableClips(ctx context.Context, f ClipFilter) ([]apitypes.ExportableClip, error) {
	_, size, err := f.query(1)
	if err != nil {
		return nil, err
	}
	if f.ProjectID != "" {
		return c.clips.list(ctx, f.ProjectID, func(ctx context.Context) ([]apitypes.ExportableClip, error) {
			return c.listAllClips(ctx, f, size)
		})
	}
	return c.listAllClips(ctx, f, size)
}

// listAllClips reads every page of f from the service.
func (c *Client) listAllClips(ctx context.Context, f ClipFilter, size int) ([]apitypes.ExportableClip, error) {
	var all []apitypes.ExportableClip
	prevFirst := ""
	for page := 1; ; page++ {
		clips, err := c.ListExportableClipsPage(ctx, f, page)
		if err != nil {
			return nil, err
		}
		if len(clips) == 0 {
			return all, nil
		}
		// A server that ignores pageNum would answer the same full page
		// forever; stop with an error instead of looping.
		if page > 1 && clips[0].ID == prevFirst {
			return nil, fmt.Errorf("list exportable clips: page %d repeats page %d (clip %s); the service ignores pageNum", page, page-1, prevFirst)
		}
		prevFirst = clips[0].ID
		all = append(all, clips...)
		if len(clips) < size {
			return all, nil
		}
	}
}

// ListBrandTemplates lists the account's brand templates
// (GET /api/brand-templates?q=mine).
func (c *Client) ListBrandTemplates(ctx context.Context) ([]apitypes.BrandTemplate, error) {
	var ts []apitypes.BrandTemplate
	err := c.call(ctx, apiCall{method: http.MethodGet, path: "/api/brand-templates", query: url.Values{"q": {"mine"}}, out: &ts})
	if err != nil {
		return nil, err
	}
	return ts, nil
}
