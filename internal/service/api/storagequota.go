package api

import (
	"context"
)

// checkUploadBytes refuses a PUT that would bring the org of the upload
// session past its storage quota: length bytes more (the whole file
// replaces what an earlier attempt left), or any bytes of unknown length
// once the quota is used up. A status query (no bytes) always passes, and so
// does an unknown session, which the upload protocol answers itself.
func (a *API) checkUploadBytes(ctx context.Context, sessionID, contentRange string, length int64) error {
	if a.limits.StorageQuota <= 0 || length == 0 {
		return nil
	}
	up, err := a.stores.quota.GetUploadBySession(ctx, sessionID)
	if err != nil {
		return nil //nolint:nilerr // the protocol's own lookup answers a miss or a failure
	}
	adding := max(length, 0)
	if contentRange == "" {
		adding -= up.Received
	}
	return a.stores.quota.CheckStorage(ctx, up.OrgID, adding, a.limits.StorageQuota)
}
