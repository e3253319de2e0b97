package api

import (
	"github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/upload"
)

// Store is everything the handlers read and write of the store; *store.Store
// is one. Each handler family asks for its own small interface, declared
// beside its handlers (projectStore, collectionStore, ...); the rules that
// need a transaction (admission of a project, the collection quota, the
// credit cap of a post) are single calls, so the store keeps them however
// it is backed.
type Store interface {
	healthStore
	keyStore
	projectStore
	clipStore
	mediaStore
	collectionStore
	postStore
	socialAccountStore
	copyJobStore
	censorJobStore
	quotaStore

	// The limits kept in the store: failed attempts per client address and
	// the rate windows, decided in the database when several processes
	// share the store.
	failbound.Shared
	rateWindows
	SharedByProcesses() bool
	// MediaKey signs the media addresses handed out.
	medialink.KeySource
	// The resumable upload protocol (package upload).
	upload.Store
}

// stores are the handler families' views of the one Store.
type stores struct {
	health         healthStore
	keys           keyStore
	projects       projectStore
	clips          clipStore
	mediaRows      mediaStore
	collections    collectionStore
	posts          postStore
	socialAccounts socialAccountStore
	copyJobs       copyJobStore
	censorJobs     censorJobStore
	quota          quotaStore
}

func storesOf(st Store) stores {
	return stores{health: st, keys: st, projects: st, clips: st, mediaRows: st, collections: st, posts: st,
		socialAccounts: st, copyJobs: st, censorJobs: st, quota: st}
}
