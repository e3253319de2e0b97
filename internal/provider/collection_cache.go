package provider

import (
	"context"
	"errors"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
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
	client *client.Client
	mine   sharedLoad[[]apitypes.Collection]

	mu       sync.Mutex
	contents map[string]*sharedLoad[collectionContents] // by collection id
}

// collectionContents is what the clip listing of one collection says.
type collectionContents struct {
	// exists is false when the service has no such collection (404).
	exists bool
	// ids are the content ids ({projectId}.{curationId}) of its clips.
	ids map[string]bool
}

func newCollectionCache(c *client.Client) *collectionCache {
	return &collectionCache{client: c, contents: map[string]*sharedLoad[collectionContents]{}}
}

// collections returns the account's collections.
func (cc *collectionCache) collections(ctx context.Context) ([]apitypes.Collection, error) {
	return cc.mine.get(ctx, func(ctx context.Context) ([]apitypes.Collection, error) {
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
	return cc.contentsEntry(id).get(ctx, func(ctx context.Context) (collectionContents, error) {
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

func (cc *collectionCache) contentsEntry(id string) *sharedLoad[collectionContents] {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.contents[id]
	if !ok {
		e = &sharedLoad[collectionContents]{}
		cc.contents[id] = e
	}
	return e
}

// forget drops what a create or delete through the provider may have
// changed: the account's collection listing (a collection added or gone, or
// its updatedAt moved by a change of its contents) and the clip listings of
// the collections ids written to. The next reader of each lists again.
func (cc *collectionCache) forget(ids ...string) {
	cc.mine.invalidate()
	for _, id := range ids {
		cc.contentsEntry(id).invalidate()
	}
}

// sharedLoad is a value that readers load once and share: the first reader
// to find it missing loads it, readers arriving meanwhile wait for that load,
// and later readers take the result until invalidate. Each invalidate starts
// a new generation: a load that began before it is neither kept nor joined by
// later readers, since it may have missed the write that invalidated it.
// Errors are not kept; the next reader loads again.
type sharedLoad[T any] struct {
	mu      sync.Mutex
	gen     uint64 // bumped by invalidate
	valid   bool   // value is the result of a load of generation gen
	value   T
	loading *loadCall[T] // the latest load started, if it is still running
}

// loadCall is one load and the readers waiting for it.
type loadCall[T any] struct {
	gen   uint64
	done  chan struct{} // closed when value and err are set
	value T
	err   error
}

// get returns the value, loading it with load unless it is kept or already
// loading. A reader that waited for another's load which ended because that
// reader's context ended, while its own did not, loads again itself.
func (s *sharedLoad[T]) get(ctx context.Context, load func(context.Context) (T, error)) (T, error) {
	for {
		s.mu.Lock()
		if s.valid {
			v := s.value
			s.mu.Unlock()
			return v, nil
		}
		call := s.loading
		lead := call == nil || call.gen != s.gen
		if lead {
			call = &loadCall[T]{gen: s.gen, done: make(chan struct{})}
			s.loading = call
		}
		s.mu.Unlock()

		if lead {
			call.value, call.err = load(ctx)
			s.finish(call)
			return call.value, call.err
		}
		select {
		case <-call.done:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
		if ctx.Err() == nil && (errors.Is(call.err, context.Canceled) || errors.Is(call.err, context.DeadlineExceeded)) {
			continue
		}
		return call.value, call.err
	}
}

// finish records the result of call and wakes its waiters.
func (s *sharedLoad[T]) finish(call *loadCall[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loading == call {
		s.loading = nil
	}
	if call.err == nil && call.gen == s.gen {
		s.value, s.valid = call.value, true
	}
	close(call.done)
}

// invalidate drops the kept value and starts a new generation.
func (s *sharedLoad[T]) invalidate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	s.gen++
	s.valid, s.value = false, zero
}
