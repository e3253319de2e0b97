package store

import (
	"context"
	"encoding/json"
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
	data, err := json.Marshal(a)
	if err != nil {
		return a, err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO social_accounts(post_account_id, org_id, platform, created_at, data) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(post_account_id) DO UPDATE SET platform = excluded.platform, data = excluded.data`,
		a.PostAccountID, orgID, a.Platform, Timestamp(s.Now()), string(data))
	if err != nil {
		return a, fmt.Errorf("connect social account: %w", err)
	}
	return a, nil
}

// SocialAccounts lists the org's connected accounts in the order they were connected.
func (s *Store) SocialAccounts(ctx context.Context, orgID string) ([]apitypes.SocialAccount, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT data FROM social_accounts WHERE org_id = ? ORDER BY rowid`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list social accounts: %w", err)
	}
	defer rows.Close()
	out := []apitypes.SocialAccount{}
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		var a apitypes.SocialAccount
		if err := json.Unmarshal([]byte(data), &a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
