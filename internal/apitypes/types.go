// Package apitypes holds the JSON wire shapes of the clipping service API, as
// service-interface.md and filled-gaps.md define them. The embedded client and
// clipperd both speak through these types, so the two cannot drift apart; the
// package has no behaviour and no Terraform imports.
package apitypes

// Stage is where a project is in its life: waiting (PENDING, QUEUED), being
// worked on (IMPORT .. UPLOAD), or ended (COMPLETE, STALLED). It is the one
// definition of the stages; code asks its predicates rather than listing them.
type Stage string

// Project stages, in pipeline order.
const (
	StagePending  Stage = "PENDING"
	StageQueued   Stage = "QUEUED"
	StageImport   Stage = "IMPORT"
	StageCurate   Stage = "CURATE"
	StageRefine   Stage = "REFINE"
	StageRender   Stage = "RENDER"
	StageUpload   Stage = "UPLOAD"
	StageComplete Stage = "COMPLETE"
	StageStalled  Stage = "STALLED"
)

// allStages lists every stage in pipeline order, STALLED last.
var allStages = []Stage{StagePending, StageQueued, StageImport, StageCurate, StageRefine, StageRender, StageUpload, StageComplete, StageStalled}

// Stages returns every stage in pipeline order, STALLED last.
func Stages() []Stage { return append([]Stage(nil), allStages...) }

// StagesWhere returns the stages, in pipeline order, for which keep is true;
// for building a query from a predicate.
func StagesWhere(keep func(Stage) bool) []Stage {
	var out []Stage
	for _, s := range allStages {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// Known reports whether s is one of the stages above.
func (s Stage) Known() bool {
	for _, k := range allStages {
		if s == k {
			return true
		}
	}
	return false
}

// Terminal reports whether the project has ended: COMPLETE, or STALLED (the
// service may still retry a stall by itself, but a waiter stops there).
func (s Stage) Terminal() bool { return s == StageComplete || s == StageStalled }

// InFlight reports whether the project is on its way to COMPLETE: waiting or
// being worked on. In-flight projects count against the concurrent cap.
func (s Stage) InFlight() bool { return s.Known() && !s.Terminal() }

// Waiting reports whether the project waits for a worker (PENDING, QUEUED).
func (s Stage) Waiting() bool { return s == StagePending || s == StageQueued }

// Processing reports whether a worker holds the project: IMPORT to UPLOAD.
// A project found in one of these stages at start was interrupted.
func (s Stage) Processing() bool { return s.InFlight() && !s.Waiting() }

// Visibility values.
const (
	VisibilityDefault    = "DEFAULT"
	VisibilityPublic     = "PUBLIC"
	VisibilityPublicView = "PUBLIC_VIEW"
)

// Visibilities lists the accepted visibility values.
var Visibilities = []string{VisibilityDefault, VisibilityPublic, VisibilityPublicView}

// Curation models.
const (
	ModelClipBasic    = "ClipBasic"
	ModelClipAnything = "ClipAnything"
)

// Models lists the accepted curation models.
var Models = []string{ModelClipBasic, ModelClipAnything}

// Source platforms reported in Project.sourcePlatform.
const (
	PlatformYouTube    = "YOUTUBE"
	PlatformUploaded   = "UPLOADED"
	PlatformYtdlpLink  = "YTDLP_LINK"
	PlatformGDrive     = "GDRIVE"
	PlatformZoom       = "ZOOM"
	PlatformStreamYard = "STREAM_YARD"
)

// Layout aspect ratios named by the spec.
const (
	AspectPortrait  = "portrait"
	AspectLandscape = "landscape"
	AspectSquare    = "square"
)

// AspectRatios lists the named layoutAspectRatio values.
var AspectRatios = []string{AspectPortrait, AspectLandscape, AspectSquare}

// Conclusion action types.
const (
	ActionWebhook = "WEBHOOK"
	ActionEmail   = "EMAIL"
)

// Social platforms.
var SocialPlatforms = []string{"YOUTUBE", "TIKTOK_BUSINESS", "FACEBOOK_PAGE", "INSTAGRAM_BUSINESS", "LINKEDIN", SocialTwitter}

// SocialTwitter is the platform whose posts cost a credit.
const SocialTwitter = "TWITTER"

// Values of postDetail.custom.privacy.
const (
	PrivacyPublic   = "public"
	PrivacyPrivate  = "private"
	PrivacyUnlisted = "unlisted"
)

// Privacies lists the accepted postDetail.custom.privacy values.
var Privacies = []string{PrivacyPublic, PrivacyPrivate, PrivacyUnlisted}

// Censor job statuses.
const (
	CensorQueued     = "QUEUED"
	CensorProcessing = "PROCESSING"
	CensorConcluded  = "CONCLUDED"
	CensorFailed     = "FAILED"
	CensorUnknown    = "UNKNOWN"
)

// Social copy job statuses.
const (
	CopyRunning   = "RUNNING"
	CopyCompleted = "COMPLETED"
	CopyFailed    = "FAILED"
)

// PresetTemplateIDs are the preset brand templates every account can use.
var PresetTemplateIDs = []string{
	"preset-fancy-Karaoke", "preset-fancy-Gameplay", "preset-fancy-Beasty", "preset-fancy-Deep_Diver",
	"preset-fancy-Youshaei", "preset-fancy-Pod_P", "preset-fancy-Mozi", "preset-fancy-Popline",
	"preset-fancy-Simple", "preset-fancy-Think_Media",
}

// Project is the response of project create, project detail and update-visibility.
// Every field is always present in a response; nullable ones are pointers.
type Project struct {
	ID                    string             `json:"id"`
	ProjectID             string             `json:"projectId"`
	UserID                string             `json:"userId"`
	OrgID                 string             `json:"orgId"`
	IsDeleted             bool               `json:"isDeleted"`
	IsPurged              bool               `json:"isPurged"`
	SourcePlatform        string             `json:"sourcePlatform"`
	SourceID              string             `json:"sourceId"`
	Labels                []string           `json:"labels"`
	ProductTier           string             `json:"productTier"`
	Stage                 Stage              `json:"stage"`
	StorageSize           int64              `json:"storageSize"`
	StorageStatus         string             `json:"storageStatus"`
	StorageExpireAt       string             `json:"storageExpireAt"`
	CreatedAt             string             `json:"createdAt"`
	UpdatedAt             string             `json:"updatedAt"`
	ClusterJobID          string             `json:"clusterJobId"`
	Cluster               string             `json:"cluster"`
	Visibility            string             `json:"visibility"`
	Permissions           []string           `json:"permissions"`
	PromptRecommendations []string           `json:"promptRecommendations"`
	SourceURI             *string            `json:"sourceUri"`
	Model                 *string            `json:"model"`
	Error                 *string            `json:"error"`
	StallCount            *int64             `json:"stallCount"`
	WorkerURL             *string            `json:"workerUrl"`
	CurationPref          *CurationPref      `json:"curationPref"`
	RenderPref            *RenderPref        `json:"renderPref"`
	RefundStatus          *string            `json:"refundStatus"`
	ImportPref            *ImportPref        `json:"importPref"`
	BrandTemplateID       *string            `json:"brandTemplateId,omitempty"`
	UploadedVideoAttr     *UploadedVideoAttr `json:"uploadedVideoAttr,omitempty"`
	// ConclusionActions echoes the create request's actions when the service returns them.
	ConclusionActions []ConclusionAction `json:"conclusionActions,omitempty"`
}

// CreateProjectRequest is the body of POST /api/clip-projects.
type CreateProjectRequest struct {
	VideoURL        string        `json:"videoUrl"`
	BrandTemplateID string        `json:"brandTemplateId,omitempty"`
	CurationPref    *CurationPref `json:"curationPref,omitempty"`
	RenderPref      *RenderPref   `json:"renderPref,omitempty"`
	ImportPref      *ImportPref   `json:"importPref,omitempty"`
	// ImportPreference is the alias some examples send; servers accept it, clients never send it.
	ImportPreference  *ImportPref        `json:"importPreference,omitempty"`
	ConclusionActions []ConclusionAction `json:"conclusionActions,omitempty"`
	UploadedVideoAttr *UploadedVideoAttr `json:"uploadedVideoAttr,omitempty"`
}

// UpdateVisibilityRequest is the body of POST /api/clip-projects/{id}/update-visibility.
type UpdateVisibilityRequest struct {
	Visibility string `json:"visibility"`
}

// Range is a curation range in seconds.
type Range struct {
	StartSec *float64 `json:"startSec,omitempty"`
	EndSec   *float64 `json:"endSec,omitempty"`
}

// CurationPref is the curation preferences object.
type CurationPref struct {
	Model         string       `json:"model,omitempty"`
	Range         *Range       `json:"range,omitempty"`
	ClipDurations [][2]float64 `json:"clipDurations,omitempty"`
	TopicKeywords []string     `json:"topicKeywords,omitempty"`
	CustomPrompt  string       `json:"customPrompt,omitempty"`
	Genre         string       `json:"genre,omitempty"`
	SkipCurate    *bool        `json:"skipCurate,omitempty"`
	SkipSlicing   *bool        `json:"skipSlicing,omitempty"`
	ForceStrategy string       `json:"forceStrategy,omitempty"`
}

// QuickstartConfig is renderPref.quickstartConfig.
type QuickstartConfig struct {
	EnableRemoveFillerWords *bool `json:"enableRemoveFillerWords,omitempty"`
}

// CaptionAnimation is renderPref.captionAnimation.
type CaptionAnimation struct {
	Name           string `json:"name,omitempty"`
	HighlightColor string `json:"highlightColor,omitempty"`
	BgColor        string `json:"bgColor,omitempty"`
}

// Rect is a placement rectangle in percent of the frame.
type Rect struct {
	XPct *float64 `json:"xPct,omitempty"`
	YPct *float64 `json:"yPct,omitempty"`
	WPct *float64 `json:"wPct,omitempty"`
	HPct *float64 `json:"hPct,omitempty"`
	Type string   `json:"type,omitempty"`
}

// EmojiStyle is renderPref.emojiStyle.
type EmojiStyle struct {
	Pos    string   `json:"pos,omitempty"`
	ScaleX *float64 `json:"scaleX,omitempty"`
	ScaleY *float64 `json:"scaleY,omitempty"`
	Rect   *Rect    `json:"rect,omitempty"`
}

// HighlightColor is renderPref.highlightColor.
type HighlightColor struct {
	Primary   string `json:"primary,omitempty"`
	Secondary string `json:"secondary,omitempty"`
}

// FontStroke is renderPref.font.stroke.
type FontStroke struct {
	Enabled *bool    `json:"enabled,omitempty"`
	Color   string   `json:"color,omitempty"`
	Width   *float64 `json:"width,omitempty"`
}

// FontShadow is renderPref.font.shadow.
type FontShadow struct {
	Enabled               *bool    `json:"enabled,omitempty"`
	Color                 string   `json:"color,omitempty"`
	X                     *float64 `json:"x,omitempty"`
	Y                     *float64 `json:"y,omitempty"`
	Blur                  *float64 `json:"blur,omitempty"`
	UseWordHighlightColor *bool    `json:"useWordHighlightColor,omitempty"`
}

// Font is renderPref.font.
type Font struct {
	ID             *string     `json:"id,omitempty"`
	Type           *string     `json:"type,omitempty"`
	Name           *string     `json:"name,omitempty"`
	Path           *string     `json:"path,omitempty"`
	Size           string      `json:"size,omitempty"`
	NumericalSize  *float64    `json:"numericalSize,omitempty"`
	Color          string      `json:"color,omitempty"`
	Style          []string    `json:"style,omitempty"`
	TextDecoration string      `json:"textDecoration,omitempty"`
	Family         string      `json:"family,omitempty"`
	Stroke         *FontStroke `json:"stroke,omitempty"`
	Shadow         *FontShadow `json:"shadow,omitempty"`
}

// StoredFile is the stored-file metadata carried by a screen overlay.
type StoredFile struct {
	ID                      string `json:"id,omitempty"`
	Kind                    string `json:"kind,omitempty"`
	Name                    string `json:"name,omitempty"`
	DisplayName             string `json:"displayName,omitempty"`
	SelfLink                string `json:"selfLink,omitempty"`
	MediaLink               string `json:"mediaLink,omitempty"`
	Bucket                  string `json:"bucket,omitempty"`
	Metageneration          string `json:"metageneration,omitempty"`
	StorageClass            string `json:"storageClass,omitempty"`
	MD5Hash                 string `json:"md5Hash,omitempty"`
	Etag                    string `json:"etag,omitempty"`
	CRC32C                  string `json:"crc32c,omitempty"`
	ContentType             string `json:"contentType,omitempty"`
	Size                    string `json:"size,omitempty"`
	Updated                 string `json:"updated,omitempty"`
	TimeCreated             string `json:"timeCreated,omitempty"`
	Generation              string `json:"generation,omitempty"`
	TimeStorageClassUpdated string `json:"timeStorageClassUpdated,omitempty"`
}

// ScreenOverlay is an item of renderPref.screenOverlays.
type ScreenOverlay struct {
	Object *StoredFile `json:"object,omitempty"`
	Style  string      `json:"style,omitempty"`
	Rect   *Rect       `json:"rect,omitempty"`
}

// RenderPref is the render preferences object. Booleans are pointers so an
// unset preference is omitted rather than sent as false.
type RenderPref struct {
	LayoutAspectRatio      string            `json:"layoutAspectRatio,omitempty"`
	QuickstartConfig       *QuickstartConfig `json:"quickstartConfig,omitempty"`
	SkipReframe            *bool             `json:"skipReframe,omitempty"`
	EnableSplitLayout      *bool             `json:"enableSplitLayout,omitempty"`
	EnableFitLayout        *bool             `json:"enableFitLayout,omitempty"`
	EnableFillLayout       *bool             `json:"enableFillLayout,omitempty"`
	EnableScreenLayout     *bool             `json:"enableScreenLayout,omitempty"`
	EnableThreeLayout      *bool             `json:"enableThreeLayout,omitempty"`
	EnableFourLayout       *bool             `json:"enableFourLayout,omitempty"`
	EnableAutoLayout       *bool             `json:"enableAutoLayout,omitempty"`
	DisableFitLayout       *bool             `json:"disableFitLayout,omitempty"`
	DisableFillLayout      *bool             `json:"disableFillLayout,omitempty"`
	EnableCrop             *bool             `json:"enableCrop,omitempty"`
	EnableVisualHook       *bool             `json:"enableVisualHook,omitempty"`
	EnableCaption          *bool             `json:"enableCaption,omitempty"`
	EnableCaptionAnimation *bool             `json:"enableCaptionAnimation,omitempty"`
	EnableHighlight        *bool             `json:"enableHighlight,omitempty"`
	EnableEmoji            *bool             `json:"enableEmoji,omitempty"`
	EnableUppercase        *bool             `json:"enableUppercase,omitempty"`
	EnableAutoTransition   *bool             `json:"enableAutoTransition,omitempty"`
	EnableWatermark        *bool             `json:"enableWatermark,omitempty"`
	EnableGameLayout       *bool             `json:"enableGameLayout,omitempty"`
	EnableBroll            *bool             `json:"enableBroll,omitempty"`
	EnableScreenOverlay    *bool             `json:"enableScreenOverlay,omitempty"`
	DisableScreenOverlay   *bool             `json:"disableScreenOverlay,omitempty"`
	EnableVoiceEnhancement *bool             `json:"enableVoiceEnhancement,omitempty"`
	FitLayoutCropRatio     string            `json:"fitLayoutCropRatio,omitempty"`
	CaptionStyle           string            `json:"captionStyle,omitempty"`
	CaptionPosition        string            `json:"captionPosition,omitempty"`
	CaptionAnimation       *CaptionAnimation `json:"captionAnimation,omitempty"`
	EmojiStyle             *EmojiStyle       `json:"emojiStyle,omitempty"`
	HighlightColor         *HighlightColor   `json:"highlightColor,omitempty"`
	Font                   *Font             `json:"font,omitempty"`
	ScreenOverlay          *string           `json:"screenOverlay,omitempty"`
	ScreenOverlayFileID    *string           `json:"screenOverlayFileId,omitempty"`
	ScreenOverlays         []ScreenOverlay   `json:"screenOverlays,omitempty"`
	SelectedTransitions    []string          `json:"selectedTransitions,omitempty"`
}

// ImportPref is the import preferences object.
type ImportPref struct {
	SourceLang string `json:"sourceLang,omitempty"`
}

// SourceLangAuto is the sourceLang that detects the language, the documented
// default when importPref or its sourceLang is absent.
const SourceLangAuto = "auto"

// ConclusionAction is an item of conclusionActions.
type ConclusionAction struct {
	Type          string `json:"type"`
	NotifyFailure bool   `json:"notifyFailure,omitempty"`
	URL           string `json:"url,omitempty"`
	Email         string `json:"email,omitempty"`
}

// UploadedVideoAttr is uploadedVideoAttr.
type UploadedVideoAttr struct {
	Title string `json:"title,omitempty"`
}

// ExportableClip is an item of GET /api/exportable-clips.
type ExportableClip struct {
	ID            string      `json:"id"`
	ProjectID     string      `json:"projectId"`
	CurationID    string      `json:"curationId"`
	RunID         string      `json:"runId"`
	OrgID         string      `json:"orgId"`
	UserID        string      `json:"userId"`
	URIForPreview string      `json:"uriForPreview"`
	URIForExport  string      `json:"uriForExport"`
	StorageUsed   int64       `json:"storageUsed"`
	DurationMs    int64       `json:"durationMs"`
	TimeRanges    [][2]int64  `json:"timeRanges"`
	Keywords      []string    `json:"keywords"`
	PromptName    string      `json:"promptName"`
	Title         string      `json:"title"`
	Description   string      `json:"description"`
	Hashtags      string      `json:"hashtags"`
	Text          string      `json:"text"`
	Genre         string      `json:"genre"`
	Subgenre      string      `json:"subgenre"`
	CreatedAt     string      `json:"createdAt"`
	UpdatedAt     string      `json:"updatedAt"`
	ProductTier   string      `json:"productTier"`
	RenderPref    *RenderPref `json:"renderPref"`
}

// BrandTemplate is an item of GET /api/brand-templates?q=mine.
type BrandTemplate struct {
	TemplateID  string      `json:"templateId"`
	Name        string      `json:"name"`
	IsDefault   bool        `json:"isDefault"`
	Type        string      `json:"type"`
	Preferences *RenderPref `json:"preferences,omitempty"`
}

// UploadLinkRequest is the body of POST /api/upload-links.
type UploadLinkRequest struct {
	Video UploadLinkVideo `json:"video"`
}

// UploadLinkVideo is UploadLinkRequest.video.
type UploadLinkVideo struct {
	Usecase string `json:"usecase"`
}

// UsecaseLocalUpload is the upload-link usecase for a local file.
const UsecaseLocalUpload = "LocalUpload"

// UploadLink is the data of POST /api/upload-links.
type UploadLink struct {
	URL         string  `json:"url"`
	UploadID    string  `json:"uploadId"`
	DNSURL      string  `json:"dnsUrl"`
	UseAmount   float64 `json:"useAmount"`
	TotalAmount float64 `json:"totalAmount"`
}

// Upload flow headers.
const (
	HeaderResumable         = "x-store-resumable"
	HeaderResumableUploadID = "x-store-resumable-upload-id"
	HeaderUploadID          = "x-svc-upload-id"
	HeaderOrgID             = "x-svc-org-id"
	HeaderCapReason         = "X-Cap-Reason"
	CapReasonConcurrent     = "concurrent"
)

// Collection is a collection record.
type Collection struct {
	CollectionID   string `json:"collectionId"`
	CollectionName string `json:"collectionName"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

// CreateCollectionRequest is the body of POST /api/collections.
type CreateCollectionRequest struct {
	CollectionName string `json:"collectionName"`
}

// CollectionPage is the data of GET /api/collections. Next is a cursor
// (string or number) or null on the last page.
type CollectionPage struct {
	List  []Collection `json:"list"`
	Total int          `json:"total"`
	Next  any          `json:"next"`
	Limit *int         `json:"limit"`
}

// CollectionContent is the body and data of POST /api/collection-contents.
type CollectionContent struct {
	CollectionID string `json:"collectionId"`
	ContentID    string `json:"contentId"`
}

// DeleteCollectionContentRequest is the body of
// POST /api/collection-contents/delete-collection-contents.
type DeleteCollectionContentRequest struct {
	Q            string `json:"q"`
	CollectionID string `json:"collectionId"`
	ContentID    string `json:"contentId"`
}

// QDeleteByCollectionAndContent is the q of DeleteCollectionContentRequest.
const QDeleteByCollectionAndContent = "findByCollectionIdAndContentId"

// ExportedCollection is the data of POST /api/collections/{id}/export.
type ExportedCollection struct {
	ContentList []ExportedContent `json:"contentList"`
}

// ExportedContent is an item of ExportedCollection.contentList.
type ExportedContent struct {
	ContentID    string `json:"contentId"`
	URIForExport string `json:"uriForExport"`
}

// CensorJobRequest is the body of POST /api/censor-jobs.
type CensorJobRequest struct {
	ProjectID string        `json:"projectId"`
	ClipID    string        `json:"clipId"`
	Options   CensorOptions `json:"options"`
}

// CensorOptions is CensorJobRequest.options.
type CensorOptions struct {
	BeepSound bool `json:"beepSound"`
}

// CensorJob is the 201 response of POST /api/censor-jobs.
type CensorJob struct {
	JobID   string `json:"jobId"`
	Message string `json:"message"`
}

// CensorJobStatus is the response of GET /api/censor-jobs/{id}.
type CensorJobStatus struct {
	Status string  `json:"status"`
	Error  *string `json:"error"`
}

// SocialAccount is a connected social account.
type SocialAccount struct {
	PostAccountID      string `json:"postAccountId"`
	SubAccountID       string `json:"subAccountId,omitempty"`
	Platform           string `json:"platform"`
	ExtUserID          string `json:"extUserId"`
	ExtUserName        string `json:"extUserName"`
	ExtUserPictureLink string `json:"extUserPictureLink,omitempty"`
	ExtUserProfileLink string `json:"extUserProfileLink,omitempty"`
}

// SocialCopyJobRequest is the body of POST /api/social-copy-jobs.
type SocialCopyJobRequest struct {
	ProjectID       string `json:"projectId"`
	ClipID          string `json:"clipId"`
	PostAccountID   string `json:"postAccountId"`
	SubAccountID    string `json:"subAccountId"`
	Prompt          string `json:"prompt,omitempty"`
	ForceRegenerate bool   `json:"forceRegenerate,omitempty"`
}

// SocialCopyJobCreated is the data of POST /api/social-copy-jobs.
type SocialCopyJobCreated struct {
	JobID string `json:"jobId"`
}

// SocialCopyJob is the data of GET /api/social-copy-jobs/{id}.
type SocialCopyJob struct {
	JobID       string `json:"jobId"`
	Status      string `json:"status"`
	Cached      bool   `json:"cached,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Hashtags    string `json:"hashtags,omitempty"`
	// Error says why a FAILED job failed.
	Error string `json:"error,omitempty"`
}

// PostDetailCustom is postDetail.custom.
type PostDetailCustom struct {
	Description string `json:"description,omitempty"`
	Privacy     string `json:"privacy,omitempty"`
}

// PostDetail is the postDetail of a post task or schedule.
type PostDetail struct {
	Title     string            `json:"title"`
	MediaType string            `json:"mediaType,omitempty"`
	Custom    *PostDetailCustom `json:"custom,omitempty"`
}

// PostTaskRequest is the body of POST /api/post-tasks.
type PostTaskRequest struct {
	ProjectID     string     `json:"projectId"`
	ClipID        string     `json:"clipId"`
	PostAccountID string     `json:"postAccountId"`
	SubAccountID  string     `json:"subAccountId,omitempty"`
	PostDetail    PostDetail `json:"postDetail"`
}

// PostTask is the data of POST /api/post-tasks.
type PostTask struct {
	PostID string `json:"postId"`
}

// PublishScheduleRequest is the body of POST /api/publish-schedules.
type PublishScheduleRequest struct {
	PostTaskRequest
	// PublishAt is a future UTC timestamp in ISO 8601.
	PublishAt string `json:"publishAt"`
}

// PublishSchedule is the data of POST /api/publish-schedules.
type PublishSchedule struct {
	ScheduleID string `json:"scheduleId"`
}

// PublishedPost is what a publish destination of clipperd receives for one
// post: the post.json beside clip.mp4 of the dir destination, and the body
// of the webhook destination, which adds mediaUrl.
type PublishedPost struct {
	PostID        string `json:"postId"`
	ScheduleID    string `json:"scheduleId,omitempty"` // when a schedule made the post
	Platform      string `json:"platform"`
	PostAccountID string `json:"postAccountId"`
	SubAccountID  string `json:"subAccountId"`
	ContentID     string `json:"contentId"` // {projectId}.{clipId}
	Title         string `json:"title"`
	Description   string `json:"description"`
	Privacy       string `json:"privacy"`
	MediaType     string `json:"mediaType"`
	PublishedAt   string `json:"publishedAt"`
	// MediaURL is where the clip's export render is downloaded (webhook only).
	MediaURL string `json:"mediaUrl,omitempty"`
}

// Envelope is the common success envelope { "data": ... }.
type Envelope[T any] struct {
	Data T `json:"data"`
}

// ErrorBody is the error body of 400, 401, 402, 404 and 429 responses.
type ErrorBody struct {
	ErrorName    string  `json:"errorName"`
	ErrorMessage *string `json:"errorMessage"`
}

// MonthlyCapBody is the 403 body when the monthly API cap is reached.
type MonthlyCapBody struct {
	Code       string `json:"code"`
	ResetAt    string `json:"reset_at"`
	UpgradeURL string `json:"upgrade_url"`
}

// CodeMonthlyCap is MonthlyCapBody.code.
const CodeMonthlyCap = "API_MONTHLY_CAP_REACHED"

// WebhookPayload is the JSON body of a WEBHOOK conclusion action delivery.
type WebhookPayload struct {
	ProjectID string  `json:"projectId"`
	OrgID     string  `json:"orgId"`
	Stage     Stage   `json:"stage"`
	Error     *string `json:"error"`
	ClipCount int     `json:"clipCount"`
	Timestamp string  `json:"timestamp"`
}

// Webhook signature headers.
const (
	HeaderSignature = "X-Svc-Signature"
	HeaderSalt      = "X-Svc-Salt"
	HeaderTimestamp = "X-Svc-Timestamp"
)
