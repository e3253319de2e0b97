package store

import (
	"slices"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// What every project of this server reports the same way: the hosted
// service's tier, cluster and sharing permissions, and how long its media
// are kept.
const (
	ProductTier    = "PRO"
	StorageTemp    = "TEMPORARY"
	clusterName    = "local"
	mediaRetention = 30 * 24 * time.Hour
)

var projectPermissions = []string{"PROJECT_SHARE", "PROJECT_EDIT", "PROJECT_VIEW"}

// NewProject is the record of a project created now by the request req of
// the key's user, QUEUED, importing from platform/sourceID. This and API
// are the one mapping between the API's project and the stored record.
func NewProject(key Key, req *apitypes.CreateProjectRequest, platform, sourceID string, now time.Time) *Project {
	id := NewID("")
	created := stamp(now)
	model, tpl := req.CurationPref.Model, req.BrandTemplateID
	var stalls int64
	return &Project{
		ID:                id,
		OrgID:             key.OrgID,
		UserID:            key.UserID,
		Stage:             apitypes.StageQueued,
		Visibility:        apitypes.VisibilityDefault,
		SourcePlatform:    platform,
		SourceID:          sourceID,
		VideoURL:          req.VideoURL,
		Model:             &model,
		BrandTemplateID:   &tpl,
		ProductTier:       ProductTier,
		StorageStatus:     StorageTemp,
		StorageExpireAt:   created.Add(mediaRetention),
		StallCount:        &stalls,
		CreatedAt:         created,
		UpdatedAt:         created,
		CurationPref:      req.CurationPref,
		RenderPref:        req.RenderPref,
		ImportPref:        req.ImportPref,
		UploadedVideoAttr: req.UploadedVideoAttr,
		ConclusionActions: req.ConclusionActions,
	}
}

// API is the project as the API reports it. Every list is an array, never
// null, whatever wrote the record.
func (p *Project) API() apitypes.Project {
	videoURL := p.VideoURL
	return apitypes.Project{
		ID:                    p.ID,
		ProjectID:             p.ID,
		UserID:                p.UserID,
		OrgID:                 p.OrgID,
		SourcePlatform:        p.SourcePlatform,
		SourceID:              p.SourceID,
		Labels:                []string{},
		ProductTier:           p.ProductTier,
		Stage:                 p.Stage,
		StorageSize:           p.StorageSize,
		StorageStatus:         p.StorageStatus,
		StorageExpireAt:       timeText(p.StorageExpireAt),
		CreatedAt:             timeText(p.CreatedAt),
		UpdatedAt:             timeText(p.UpdatedAt),
		Cluster:               clusterName,
		Visibility:            p.Visibility,
		Permissions:           slices.Clone(projectPermissions),
		PromptRecommendations: []string{},
		SourceURI:             &videoURL,
		Model:                 p.Model,
		Error:                 p.Error,
		StallCount:            p.StallCount,
		CurationPref:          p.CurationPref,
		RenderPref:            p.RenderPref,
		RefundStatus:          p.RefundStatus,
		ImportPref:            p.ImportPref,
		BrandTemplateID:       p.BrandTemplateID,
		UploadedVideoAttr:     p.UploadedVideoAttr,
		ConclusionActions:     p.ConclusionActions,
	}
}
