package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/loadonce"
)

// collectionCache holds the listings that the collection resources and data
// sources of one configured provider share, so that refreshing many
// collections costs a few list calls rather than one call each:
//
//   - the account's collections, GET /api/collections?q=mine with every page
//     of its `next` cursor, read by every clipper_collection and by
//     clipper_collections without content_id;
//   - per collection, the clips it holds, GET /api/exportable-clips
//     ?q=findByCollectionId with every page, read by every
//     clipper_collection_content of that collection.
//
// A listing is loaded by the first reader that needs it, shared with the
// readers that arrive while it loads, and kept for the rest of the run (one
// Terraform command) until a create or delete through this provider drops it
// (forget). It is safe for concurrent use: Terraform reads resources in
// parallel.
type collectionCache struct {
	client   *client.Client
	mine     loadonce.Value[[]apitypes.Collection]
	contents loadonce.Map[string, collectionContents] // by collection id
}

// collectionContents is what the clip listing of one collection says.
type collectionContents struct {
	// exists is false when the service has no such collection (404).
	exists bool
	// ids are the content ids ({projectId}.{curationId}) of its clips.
	ids map[string]bool
}

func newCollectionCache(c *client.Client) *collectionCache {
	return &collectionCache{client: c}
}

// collections returns the account's collections.
func (cc *collectionCache) collections(ctx context.Context) ([]apitypes.Collection, error) {
	return cc.mine.Get(ctx, func(ctx context.Context) ([]apitypes.Collection, error) {
		list, err := cc.client.ListCollections(ctx, "")
		if err == nil {
			tflog.Debug(ctx, "Listed the account's collections, shared by every collection of this run",
				map[string]any{"collections": len(list)})
		}
		return list, err
	})
}

// collection finds the collection id in the account's collections; found is
// false when the service no longer has it.
func (cc *collectionCache) collection(ctx context.Context, id string) (col apitypes.Collection, found bool, err error) {
	list, err := cc.collections(ctx)
	if err != nil {
		return col, false, err
	}
	for _, c := range list {
		if c.CollectionID == id {
			return c, true, nil
		}
	}
	return col, false, nil
}

// contentsOf returns the clips of the collection id, as its clip listing
// reports them.
func (cc *collectionCache) contentsOf(ctx context.Context, id string) (collectionContents, error) {
	return cc.contents.Get(ctx, id, func(ctx context.Context) (collectionContents, error) {
		clips, err := cc.client.ListExportableClips(ctx, client.ClipFilter{CollectionID: id})
		if client.IsNotFound(err) {
			return collectionContents{}, nil
		}
		if err != nil {
			return collectionContents{}, err
		}
		ids := make(map[string]bool, len(clips))
		for _, c := range clips {
			ids[c.ID] = true
		}
		tflog.Debug(ctx, "Listed the clips of a collection, shared by its contents in this run",
			map[string]any{"collection_id": id, "clips": len(ids)})
		return collectionContents{exists: true, ids: ids}, nil
	})
}

// forget drops what a create or delete through the provider may have
// changed: the account's collection listing (a collection added or gone, or
// its updatedAt moved by a change of its contents) and the clip listings of
// the collections ids written to. The next reader of each lists again.
func (cc *collectionCache) forget(ids ...string) {
	cc.mine.Invalidate()
	for _, id := range ids {
		cc.contents.Invalidate(id)
	}
}
