package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// ConnectSocialAccount records a connected social account for an org and
// returns it with its postAccountId. The hosted service connects accounts
// through each platform's OAuth flow; a self-hosted clipperd has no such
// flow, so an operator records them (`clipperd accounts connect`).
func (s *Store) ConnectSocialAccount(ctx context.Context, orgID string, a apitypes.SocialAccount) (apitypes.SocialAccount, error) {
	if !slices.Contains(apitypes.SocialPlatforms, a.Platform) {
		return a, fmt.Errorf("platform %q is not one of %v", a.Platform, apitypes.SocialPlatforms)
	}
	if a.ExtUserName == "" {
		return a, fmt.Errorf("extUserName is required")
	}
	if a.PostAccountID == "" {
		a.PostAccountID = NewID("pa_")
	}
	if a.ExtUserID == "" {
		a.ExtUserID = NewID("ext_")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO social_accounts(post_account_id, org_id, platform, created_at, sub_account_id,
			ext_user_id, ext_user_name, ext_user_picture_link, ext_user_profile_link) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(post_account_id) DO UPDATE SET platform = excluded.platform, sub_account_id = excluded.sub_account_id,
			ext_user_id = excluded.ext_user_id, ext_user_name = excluded.ext_user_name,
			ext_user_picture_link = excluded.ext_user_picture_link, ext_user_profile_link = excluded.ext_user_profile_link`,
		a.PostAccountID, orgID, a.Platform, Timestamp(s.Now()), a.SubAccountID, a.ExtUserID, a.ExtUserName,
		a.ExtUserPictureLink, a.ExtUserProfileLink)
	if err != nil {
		return a, fmt.Errorf("connect social account: %w", err)
	}
	return a, nil
}

const socialAccountColumns = `post_account_id, sub_account_id, platform, ext_user_id, ext_user_name, ext_user_picture_link,
	ext_user_profile_link`

// SocialAccounts lists the org's connected accounts in the order they were connected.
func (s *Store) SocialAccounts(ctx context.Context, orgID string) ([]apitypes.SocialAccount, error) {
	out, err := queryAll(ctx, s.db, scanSocialAccount, `SELECT `+socialAccountColumns+` FROM social_accounts WHERE org_id = ? ORDER BY rowid`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list social accounts: %w", err)
	}
	return out, nil
}

// SocialAccount returns the org's connected account postAccountID;
// ErrNotFound when it is missing or connected to another org.
func (s *Store) SocialAccount(ctx context.Context, orgID, postAccountID string) (apitypes.SocialAccount, error) {
	a, err := scanSocialAccount(s.db.QueryRowContext(ctx, `SELECT `+socialAccountColumns+` FROM social_accounts
		WHERE post_account_id = ? AND org_id = ?`, postAccountID, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return a, ErrNotFound
	}
	if err != nil {
		return a, fmt.Errorf("get social account %s: %w", postAccountID, err)
	}
	return a, nil
}

func scanSocialAccount(row scanner) (apitypes.SocialAccount, error) {
	var a apitypes.SocialAccount
	err := row.Scan(&a.PostAccountID, &a.SubAccountID, &a.Platform, &a.ExtUserID, &a.ExtUserName, &a.ExtUserPictureLink, &a.ExtUserProfileLink)
	return a, err
}
