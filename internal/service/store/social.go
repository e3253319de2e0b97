package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// PublishToDir is the default destination of a connected account: posts are
// written under the data directory (package publish reads destinations).
const PublishToDir = "dir"

// SocialAccount is a connected account as the store keeps it: what the API
// shows, and the destination its posts are published to.
type SocialAccount struct {
	apitypes.SocialAccount
	PublishTo string
}

// ConnectSocialAccount records a connected social account for an org that
// publishes to the default destination; see ConnectSocialAccountTo.
func (s *Store) ConnectSocialAccount(ctx context.Context, orgID string, a apitypes.SocialAccount) (apitypes.SocialAccount, error) {
	return s.ConnectSocialAccountTo(ctx, orgID, a, PublishToDir)
}

// ConnectSocialAccountTo records a connected social account for an org and
// returns it with its postAccountId; its posts are published to publishTo
// (the caller checks the value). The hosted service connects accounts
// through each platform's OAuth flow; a self-hosted clipperd has no such
// flow, so an operator records them (`clipperd accounts connect`).
// Connecting a known postAccountId again replaces its fields.
func (s *Store) ConnectSocialAccountTo(ctx context.Context, orgID string, a apitypes.SocialAccount, publishTo string) (apitypes.SocialAccount, error) {
	if !slices.Contains(apitypes.SocialPlatforms, a.Platform) {
		return a, fmt.Errorf("platform %q is not one of %v", a.Platform, apitypes.SocialPlatforms)
	}
	if a.ExtUserName == "" {
		return a, fmt.Errorf("extUserName is required")
	}
	if publishTo == "" {
		return a, fmt.Errorf("a publish destination is required")
	}
	if a.PostAccountID == "" {
		a.PostAccountID = NewID("pa_")
	}
	if a.ExtUserID == "" {
		a.ExtUserID = NewID("ext_")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO social_accounts(post_account_id, org_id, platform, created_at, sub_account_id,
			ext_user_id, ext_user_name, ext_user_picture_link, ext_user_profile_link, publish_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(post_account_id) DO UPDATE SET platform = excluded.platform, sub_account_id = excluded.sub_account_id,
			ext_user_id = excluded.ext_user_id, ext_user_name = excluded.ext_user_name,
			ext_user_picture_link = excluded.ext_user_picture_link, ext_user_profile_link = excluded.ext_user_profile_link,
			publish_to = excluded.publish_to`,
		a.PostAccountID, orgID, a.Platform, Timestamp(s.Now()), a.SubAccountID, a.ExtUserID, a.ExtUserName,
		a.ExtUserPictureLink, a.ExtUserProfileLink, publishTo)
	if err != nil {
		return a, fmt.Errorf("connect social account: %w", err)
	}
	return a, nil
}

const socialAccountColumns = `post_account_id, sub_account_id, platform, ext_user_id, ext_user_name,
	ext_user_picture_link, ext_user_profile_link, publish_to`

// SocialAccounts lists the org's connected accounts in the order they were connected.
func (s *Store) SocialAccounts(ctx context.Context, orgID string) ([]apitypes.SocialAccount, error) {
	list, err := queryAll(ctx, s.db, scanSocialAccount, `SELECT `+socialAccountColumns+` FROM social_accounts
		WHERE org_id = ? ORDER BY rowid`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list social accounts: %w", err)
	}
	out := make([]apitypes.SocialAccount, len(list))
	for i, a := range list {
		out[i] = a.SocialAccount
	}
	return out, nil
}

// GetSocialAccount returns the org's connected account id; ErrNotFound when
// it is unknown or another org's.
func (s *Store) GetSocialAccount(ctx context.Context, orgID, id string) (*SocialAccount, error) {
	return getSocialAccount(ctx, s.db, orgID, id)
}

func getSocialAccount(ctx context.Context, q querier, orgID, id string) (*SocialAccount, error) {
	a, err := queryOne(ctx, q, scanSocialAccount, `SELECT `+socialAccountColumns+` FROM social_accounts
		WHERE post_account_id = ? AND org_id = ?`, id, orgID)
	if err != nil {
		return nil, fmt.Errorf("get social account %s: %w", id, err)
	}
	return &a, nil
}

func scanSocialAccount(row scanner) (SocialAccount, error) {
	var a SocialAccount
	err := row.Scan(&a.PostAccountID, &a.SubAccountID, &a.Platform, &a.ExtUserID, &a.ExtUserName,
		&a.ExtUserPictureLink, &a.ExtUserProfileLink, &a.PublishTo)
	return a, err
}

// DisconnectSocialAccount forgets the org's connected account id and cancels
// its pending schedules, in one transaction, returning how many it
// cancelled: with the account gone they could only fail when due. Posts
// already made keep their destination and are published (or retried) as
// before; fired schedules stay as they are. ErrNotFound when the account is
// unknown or another org's.
func (s *Store) DisconnectSocialAccount(ctx context.Context, orgID, id string) (cancelled int, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM social_accounts WHERE post_account_id = ? AND org_id = ?`, id, orgID)
		if err != nil {
			return err
		}
		if err := oneRow(res, ErrNotFound); err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, `UPDATE publish_schedules SET status = ? WHERE org_id = ? AND post_account_id = ? AND status = ?`,
			ScheduleCancelled, orgID, id, SchedulePending)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		cancelled = int(n)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("disconnect social account %s: %w", id, err)
	}
	return cancelled, nil
}
