package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// Post statuses.
const (
	PostPending   = "pending"   // waiting to be published, or to be tried again
	PostPublished = "published" // on its destination; never published again
	PostFailed    = "failed"    // given up: never made (the schedule's charge was refused) or every attempt failed
)

// PostContent is what a post task or a publish schedule asks for: which
// clip goes to which account, with which words. Posts and schedules keep it
// in the same columns (postContentColumns).
type PostContent struct {
	ProjectID     string
	ClipID        string // the bare clip id (curationId)
	PostAccountID string
	SubAccountID  string
	Title         string
	Description   string
	Privacy       string
	MediaType     string
}

// NewPostContent is the content of a post-task body.
func NewPostContent(req apitypes.PostTaskRequest) PostContent {
	c := PostContent{
		ProjectID: req.ProjectID, ClipID: req.ClipID, PostAccountID: req.PostAccountID, SubAccountID: req.SubAccountID,
		Title: req.PostDetail.Title, MediaType: req.PostDetail.MediaType,
	}
	if custom := req.PostDetail.Custom; custom != nil {
		c.Description, c.Privacy = custom.Description, custom.Privacy
	}
	return c
}

// ContentID is the composite id of the clip, {projectId}.{clipId}.
func (c *PostContent) ContentID() string { return c.ProjectID + "." + c.ClipID }

const postContentColumns = `project_id, clip_id, post_account_id, sub_account_id, title, description, privacy, media_type`

func (c *PostContent) values() []any {
	return []any{c.ProjectID, c.ClipID, c.PostAccountID, c.SubAccountID, c.Title, c.Description, c.Privacy, c.MediaType}
}

// fields are the scan destinations of postContentColumns.
func (c *PostContent) fields() []any {
	return []any{&c.ProjectID, &c.ClipID, &c.PostAccountID, &c.SubAccountID, &c.Title, &c.Description, &c.Privacy, &c.MediaType}
}

// Post is one publication of a clip to a connected account.
type Post struct {
	ID, OrgID string
	PostContent
	// Platform and PublishTo are the account's when the post was made, so a
	// post is charged and published as it was asked for.
	Platform   string
	PublishTo  string
	ScheduleID string // "" unless a schedule made the post
	// CreditsCharged is what making the post took from the org's month.
	CreditsCharged int64
	Status         string
	Attempts       int
	NextAt         time.Time // when a pending post is tried (again)
	LastError      string
	// PublishedAt and Location are recorded with the status published: when
	// and where (a directory, a URL) the post went. The publisher sets
	// PublishedAt to the time the post is to carry before publishing it.
	PublishedAt time.Time
	Location    string
	CreatedAt   time.Time
	// StorageSize is the bytes the post's published copy of its clip adds
	// to its org's storage: the clip's size reserved when the post is made
	// to a media store that copies bytes, what the copy added once
	// published (0 when it shares the clip's bytes), 0 once the post failed
	// or its project's media expired.
	StorageSize int64
}

// Document is the record of the post as its destination receives it
// (post.json, a webhook body), published at p.PublishedAt; mediaURL is ""
// where the media travels beside it.
func (p *Post) Document(mediaURL string) apitypes.PublishedPost {
	return apitypes.PublishedPost{
		PostID: p.ID, ScheduleID: p.ScheduleID, Platform: p.Platform, PostAccountID: p.PostAccountID,
		SubAccountID: p.SubAccountID, ContentID: p.ContentID(), Title: p.Title, Description: p.Description,
		Privacy: p.Privacy, MediaType: p.MediaType, PublishedAt: Timestamp(p.PublishedAt), MediaURL: mediaURL,
	}
}

const postColumns = `id, org_id, ` + postContentColumns + `, platform, publish_to, schedule_id, credits_charged,
	status, attempts, next_at, last_error, published_at, location, created_at, storage_size`

func scanPost(row scanner) (Post, error) {
	var p Post
	var schedule, published sql.NullString
	var next, created string
	dest := append(append([]any{&p.ID, &p.OrgID}, p.fields()...), &p.Platform, &p.PublishTo, &schedule,
		&p.CreditsCharged, &p.Status, &p.Attempts, &next, &p.LastError, &published, &p.Location, &created, &p.StorageSize)
	if err := row.Scan(dest...); err != nil {
		return p, err
	}
	p.ScheduleID = schedule.String
	p.NextAt, p.PublishedAt, p.CreatedAt = parseTimestamp(next), parseTimestamp(published.String), parseTimestamp(created)
	return p, nil
}

// PostLimits hold a post to its org's limits when it is made.
type PostLimits struct {
	MonthlyCap   int64 // credits per org and month; <= 0: no limit
	StorageQuota int64 // bytes per org; <= 0: no quota
	// CopySize is the bytes publishing content's clip to the "dir"
	// destination will add to the media store: 0 where copies share the
	// clip's bytes (publish.ClipCopySize). Called before the transaction,
	// so no storage call holds it; nil: 0.
	CopySize func(ctx context.Context, content PostContent) (int64, error)
}

// copySize is what l.CopySize says of content.
func (l PostLimits) copySize(ctx context.Context, content PostContent) (int64, error) {
	if l.CopySize == nil {
		return 0, nil
	}
	n, err := l.CopySize(ctx, content)
	if err != nil {
		return 0, fmt.Errorf("size of the copy of clip %s: %w", content.ContentID(), err)
	}
	return n, nil
}

// CreatePost makes a pending post of content for one of the org's accounts,
// due now. Its price (quota.PostCredits of the account's platform) is taken
// from the org's month in the same transaction, or a *quota.MonthlyCapError
// is returned when it would pass limits.MonthlyCap and nothing is made. A
// post to the "dir" destination reserves limits.CopySize in the org's
// storage, or a *quota.StorageQuotaError is returned when that would pass
// limits.StorageQuota. ErrNotFound: the account is not the org's.
//
// enqueue (the publish worker's job, nil: none) runs for the post in the
// same transaction.
func (s *Store) CreatePost(ctx context.Context, orgID string, content PostContent, limits PostLimits, enqueue func(*Post) TxHook) (*Post, error) {
	size, err := limits.copySize(ctx, content)
	if err != nil {
		return nil, err
	}
	var p *Post
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if p, err = newPost(ctx, tx, orgID, content, s.Now()); err != nil {
			return err
		}
		if err := s.reservePostStorage(ctx, tx, p, size, limits.StorageQuota); err != nil {
			return err
		}
		if err := s.chargePost(ctx, tx, p, limits.MonthlyCap); err != nil {
			return err
		}
		if err := insertPost(ctx, tx, p); err != nil {
			return err
		}
		return enqueuePost(ctx, tx, p, enqueue)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// enqueuePost runs enqueue's hook for p in tx, when p is pending and
// enqueue is set.
func enqueuePost(ctx context.Context, tx *sql.Tx, p *Post, enqueue func(*Post) TxHook) error {
	if enqueue == nil || p.Status != PostPending {
		return nil
	}
	return enqueue(p).run(ctx, tx)
}

// newPost is a pending post of content for the org's account, due at now.
func newPost(ctx context.Context, q querier, orgID string, content PostContent, now time.Time) (*Post, error) {
	acct, err := getSocialAccount(ctx, q, orgID, content.PostAccountID)
	if err != nil {
		return nil, err
	}
	return &Post{
		ID: NewID("post_"), OrgID: orgID, PostContent: content, Platform: acct.Platform, PublishTo: acct.PublishTo,
		Status: PostPending, NextAt: now, CreatedAt: now,
	}, nil
}

// chargePost takes p's price from its org's month (of p's creation).
func (s *Store) chargePost(ctx context.Context, tx *sql.Tx, p *Post, monthlyCap int64) error {
	price := quota.PostCredits(p.Platform)
	if err := s.chargeCredits(ctx, tx, p.OrgID, p.CreatedAt, price, monthlyCap); err != nil {
		return err
	}
	p.CreditsCharged = price
	return nil
}

// reservePostStorage reserves size bytes of p's org's storage for p's
// published copy when p goes to the "dir" destination, under the org's
// lock so parallel posts cannot pass the quota together; a
// *quota.StorageQuotaError when they would pass quota.
func (s *Store) reservePostStorage(ctx context.Context, tx *sql.Tx, p *Post, size, quota int64) error {
	if p.PublishTo != PublishToDir || size <= 0 {
		return nil
	}
	if quota > 0 {
		if err := s.lockOrg(ctx, tx, p.OrgID); err != nil {
			return err
		}
		if err := checkStorage(ctx, tx, p.OrgID, size, quota); err != nil {
			return err
		}
	}
	p.StorageSize = size
	return nil
}

func insertPost(ctx context.Context, q execer, p *Post) error {
	vals := append(append([]any{p.ID, p.OrgID}, p.values()...), p.Platform, p.PublishTo, nullString(p.ScheduleID),
		p.CreditsCharged, p.Status, p.Attempts, Timestamp(p.NextAt), p.LastError, nil, p.Location, Timestamp(p.CreatedAt), p.StorageSize)
	if _, err := q.ExecContext(ctx, `INSERT INTO posts(`+postColumns+`) VALUES (`+placeholders(len(vals))+`)`, vals...); err != nil {
		return fmt.Errorf("insert post %s: %w", p.ID, err)
	}
	return nil
}

// GetPost returns the post with id; ErrNotFound when absent.
func (s *Store) GetPost(ctx context.Context, id string) (*Post, error) {
	p, err := queryOne(ctx, s.db, scanPost, `SELECT `+postColumns+` FROM posts WHERE id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("get post %s: %w", id, err)
	}
	return &p, nil
}

// ProjectPosts lists the posts of project's clips, any status, oldest
// first: the janitor removes their published copies with the project's media.
func (s *Store) ProjectPosts(ctx context.Context, project string) ([]Post, error) {
	posts, err := queryAll(ctx, s.db, scanPost, `SELECT `+postColumns+` FROM posts WHERE project_id = ? ORDER BY created_at, id`, project)
	if err != nil {
		return nil, fmt.Errorf("posts of project %s: %w", project, err)
	}
	return posts, nil
}

// PublishedDirPosts lists the posts published to the dir destination,
// oldest first: each holds a copy of its clip (unless its project's media
// expired), which clipperd migrate counts again in the target's store.
func (s *Store) PublishedDirPosts(ctx context.Context) ([]Post, error) {
	posts, err := queryAll(ctx, s.db, scanPost, `SELECT `+postColumns+` FROM posts WHERE publish_to = ? AND status = ? ORDER BY created_at, id`,
		PublishToDir, PostPublished)
	if err != nil {
		return nil, fmt.Errorf("published dir posts: %w", err)
	}
	return posts, nil
}

// SetPostStorage sets the storage size of each post named in sizes, in the
// transaction it runs in: a move into another media store (a bucket copies
// bytes a directory shared) records what each copy holds there.
func SetPostStorage(sizes map[string]int64) TxHook {
	return func(ctx context.Context, tx *sql.Tx) error {
		for id, size := range sizes {
			if _, err := tx.ExecContext(ctx, `UPDATE posts SET storage_size = ? WHERE id = ?`, size, id); err != nil {
				return fmt.Errorf("post %s storage: %w", id, err)
			}
		}
		return nil
	}
}

// PendingPosts lists the ids of the pending posts, oldest first.
func (s *Store) PendingPosts(ctx context.Context) ([]string, error) {
	ids, err := queryAll(ctx, s.db, scanString, `SELECT id FROM posts WHERE status = ? ORDER BY created_at, rowid`, PostPending)
	if err != nil {
		return nil, fmt.Errorf("pending posts: %w", err)
	}
	return ids, nil
}

// ErrNotPending is returned when a post or schedule was expected pending
// but has moved on.
var ErrNotPending = errors.New("no longer pending")

// MarkPostPublished records that post id went to location at publishedAt,
// adding storageSize bytes to its org's storage (what its copy of the clip
// holds apart from the clip), and marks it published, in one statement, so
// a post is recorded published exactly when it is done; then (completing
// the worker's job) runs in the same transaction. ErrNotPending: it was not
// pending.
func (s *Store) MarkPostPublished(ctx context.Context, id string, publishedAt time.Time, location string, storageSize int64, then TxHook) error {
	err := s.execThen(ctx, then, ErrNotPending, `UPDATE posts SET status = ?, published_at = ?, location = ?, last_error = '', storage_size = ?
		WHERE id = ? AND status = ?`, PostPublished, Timestamp(publishedAt), location, max(storageSize, 0), id, PostPending)
	if err != nil {
		return fmt.Errorf("mark post %s published: %w", id, err)
	}
	return nil
}

// SavePostAttempt records a failed attempt at p: its attempts, last error,
// next time and status (pending to try again, or failed, which gives back
// its reserved storage); then (completing the worker's job once p failed)
// runs in the same transaction. ErrNotPending: it was not pending.
func (s *Store) SavePostAttempt(ctx context.Context, p *Post, then TxHook) error {
	if p.Status == PostFailed {
		p.StorageSize = 0
	}
	err := s.execThen(ctx, then, ErrNotPending, `UPDATE posts SET attempts = ?, next_at = ?, status = ?, last_error = ?, storage_size = ?
		WHERE id = ? AND status = ?`, p.Attempts, Timestamp(p.NextAt), p.Status, p.LastError, p.StorageSize, p.ID, PostPending)
	if err != nil {
		return fmt.Errorf("save attempt at post %s: %w", p.ID, err)
	}
	return nil
}

// oneRow is nil when res changed a row, else none.
func oneRow(res sql.Result, none error) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return none
	}
	return nil
}
