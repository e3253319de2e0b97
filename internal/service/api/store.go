package api

import (
	"context"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/upload"
)

// Store is what the handlers read and write of the store; *store.Store is
// one. The rules that need a transaction (admission of a project, the
// collection quota, the credit cap of a post) are single calls, so the
// store keeps them however it is backed.
type Store interface {
	// Keys and their limits: authentication, the failed attempts it
	// counts and the rate windows (shared by the API nodes on PostgreSQL,
	// which Engine tells).
	LookupKey(ctx context.Context, key string) (store.Key, error)
	failbound.Shared
	rateWindows
	Engine() string
	// MediaKey signs the media addresses handed out.
	medialink.KeySource

	// Health: /healthz reaches the database; Now is the store's clock,
	// which tests move.
	Ping(ctx context.Context) error
	Now() time.Time

	// Uploads: the resumable upload protocol (package upload) and the
	// uploads a project imports.
	upload.Store

	// Projects and what they cost: admission (the concurrent cap and the
	// credits) is one transaction with the enqueue.
	CreateProjectThen(ctx context.Context, p *store.Project, adm store.Admission, then store.TxHook) error
	GetProject(ctx context.Context, id string) (*store.Project, error)
	MutateProject(ctx context.Context, id string, fn func(*store.Project) error) (*store.Project, error)
	CreditsUsed(ctx context.Context, orgID string) (int64, error)
	CheckStorage(ctx context.Context, orgID string, adding, limit int64) error

	// Clips and their media.
	GetClip(ctx context.Context, id string) (*store.Clip, error)
	ListClips(ctx context.Context, projectID string, offset, limit int) ([]store.Clip, error)
	MediaSumOf(ctx context.Context, key string) (store.MediaSum, error)

	// Collections.
	CreateCollection(ctx context.Context, orgID, name string, maxCollections int) (store.Collection, error)
	DeleteCollection(ctx context.Context, orgID, id string) error
	ListCollections(ctx context.Context, orgID, contentID string, offset, limit int) ([]store.Collection, int, error)
	CollectionClips(ctx context.Context, orgID, collectionID string, offset, limit int) ([]store.Clip, error)
	AddCollectionContent(ctx context.Context, orgID, collectionID, contentID string) error
	RemoveCollectionContent(ctx context.Context, orgID, collectionID, contentID string) error

	// Social accounts, posts and schedules.
	SocialAccounts(ctx context.Context, orgID string) ([]apitypes.SocialAccount, error)
	GetSocialAccount(ctx context.Context, orgID, id string) (*store.SocialAccount, error)
	CreatePost(ctx context.Context, orgID string, content store.PostContent, limits store.PostLimits, enqueue func(*store.Post) store.TxHook) (*store.Post, error)
	CreateSchedule(ctx context.Context, orgID string, content store.PostContent, publishAt time.Time) (*store.Schedule, error)
	CancelSchedule(ctx context.Context, orgID, id string) error

	// Copy and censor jobs, stored with their job in one transaction.
	CreateCopyJob(ctx context.Context, j *store.CopyJob, regenerate bool, enqueue store.TxHook) error
	CopyJob(ctx context.Context, id string) (*store.CopyJob, error)
	CreateCensorJob(ctx context.Context, j *store.CensorJob, enqueue store.TxHook) error
	CensorJob(ctx context.Context, id string) (*store.CensorJob, error)

	// Brand templates.
	BrandTemplates(ctx context.Context, orgID string) ([]apitypes.BrandTemplate, error)
	BrandTemplate(ctx context.Context, orgID, id string) (*apitypes.BrandTemplate, error)
}
