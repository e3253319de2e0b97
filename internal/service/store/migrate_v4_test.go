package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// The rows below are what the store of schema version 3 wrote (captured
// from that code): projects, clips, social accounts and brand templates as
// JSON in the API's shape.
var v3Rows = []string{
	`INSERT INTO api_keys VALUES ('ck_old', 'org-dev', 'user-dev', '2026-11-23T01:00:00.000Z', 1)`,
	`INSERT INTO projects VALUES ('prj_old1', 'org-dev', 'COMPLETE', '2026-11-23T01:00:00.000Z',
		'{"id":"prj_old1","projectId":"prj_old1","userId":"user-dev","orgId":"org-dev","isDeleted":false,"isPurged":false,"sourcePlatform":"UPLOADED","sourceId":"up_old","labels":[],"productTier":"PRO","stage":"COMPLETE","storageSize":4242,"storageStatus":"TEMPORARY","storageExpireAt":"2026-12-23T01:00:00.000Z","createdAt":"2026-11-23T01:00:00.000Z","updatedAt":"2026-11-23T02:04:51.496Z","clusterJobId":"","cluster":"local","visibility":"PUBLIC","permissions":["PROJECT_SHARE","PROJECT_EDIT","PROJECT_VIEW"],"promptRecommendations":[],"sourceUri":"up_old","model":"ClipBasic","error":null,"stallCount":1,"workerUrl":null,"curationPref":{"model":"ClipBasic","clipDurations":[[10,30]]},"renderPref":{"layoutAspectRatio":"portrait","enableCaption":true},"refundStatus":null,"importPref":null,"brandTemplateId":"preset-fancy-Simple","uploadedVideoAttr":{"title":"Old talk"},"conclusionActions":[{"type":"EMAIL","email":"a@example.com"}],"request":{"videoUrl":"up_old"},"sourcePath":"/data/media/prj_old1/source.mp4","sourceDurationSec":61.5,"creditsCharged":25}')`,
	`INSERT INTO projects VALUES ('prj_old2', 'org-dev', 'STALLED', '2026-11-23T01:05:00.000Z',
		'{"id":"prj_old2","projectId":"prj_old2","userId":"user-dev","orgId":"org-dev","isDeleted":false,"isPurged":false,"sourcePlatform":"UPLOADED","sourceId":"up_x","labels":null,"productTier":"","stage":"STALLED","storageSize":0,"storageStatus":"","storageExpireAt":"","createdAt":"2026-11-23T01:05:00.000Z","updatedAt":"2026-11-23T01:05:00.000Z","clusterJobId":"","cluster":"","visibility":"DEFAULT","permissions":null,"promptRecommendations":null,"sourceUri":null,"model":null,"error":"RENDER failed: disk","stallCount":1,"workerUrl":null,"curationPref":null,"renderPref":null,"refundStatus":null,"importPref":null,"request":{"videoUrl":"https://example.com/v.mp4"},"creditsCharged":10,"retryAt":"2026-11-23T01:06:00.000Z","failureStalls":1}')`,
	`INSERT INTO clips VALUES ('prj_old1.c01', 'prj_old1', 'org-dev', 0,
		'{"id":"prj_old1.c01","projectId":"prj_old1","curationId":"c01","runId":"run_1","orgId":"org-dev","userId":"user-dev","uriForPreview":"http://127.0.0.1:8787/media/prj_old1/c01.preview.mp4","uriForExport":"http://127.0.0.1:8787/media/prj_old1/c01.mp4","storageUsed":1000,"durationMs":19400,"timeRanges":[[1000,20400]],"keywords":["talk"],"promptName":"","title":"Clip 1 of Old talk","description":"d","hashtags":"#talk","text":"","genre":"","subgenre":"","createdAt":"2026-11-23T01:02:00.000Z","updatedAt":"2026-11-23T01:02:00.000Z","productTier":"PRO","renderPref":{"layoutAspectRatio":"portrait"}}')`,
	`INSERT INTO clips VALUES ('prj_old1.c02', 'prj_old1', 'org-dev', 1,
		'{"id":"prj_old1.c02","projectId":"prj_old1","curationId":"c02","runId":"run_1","orgId":"org-dev","userId":"user-dev","uriForPreview":"","uriForExport":"","storageUsed":0,"durationMs":28600,"timeRanges":[],"keywords":[],"promptName":"","title":"","description":"","hashtags":"","text":"","genre":"","subgenre":"","createdAt":"2026-11-23T01:02:00.000Z","updatedAt":"2026-11-23T01:02:00.000Z","productTier":"PRO","renderPref":null}')`,
	`INSERT INTO uploads VALUES ('up_old', 'org-dev', 'user-dev', 'sess_old', '/data/uploads/up_old', 4242, 4242, 1, '2026-11-23T00:59:00.000Z')`,
	`INSERT INTO uploads VALUES ('up_half', 'org-dev', 'user-dev', 'sess_half', '/data/uploads/up_half', -1, 1024, 0, '2026-11-23T00:58:00.000Z')`,
	`INSERT INTO credits VALUES ('org-dev', '2026-11', 35)`,
	`INSERT INTO deliveries(project_id, kind, target, body, attempts, next_at, status, last_error, created_at)
		VALUES ('prj_old1', 'EMAIL', 'a@example.com', 'Subject: done', 1, '2026-11-23T01:03:00.000Z', 'pending', 'timeout', '2026-11-23T01:02:00.000Z')`,
	`INSERT INTO social_accounts VALUES ('pa_old', 'org-dev', 'YOUTUBE', '2026-11-23T02:04:51.496Z',
		'{"postAccountId":"pa_old","subAccountId":"sub1","platform":"YOUTUBE","extUserId":"ext_1","extUserName":"My channel","extUserProfileLink":"https://example.com/c"}')`,
	`INSERT INTO brand_templates VALUES ('tpl_old', 'org-dev',
		'{"templateId":"tpl_old","name":"Square","isDefault":true,"type":"custom","preferences":{"layoutAspectRatio":"square"}}')`,
	`INSERT INTO collections(id, org_id, name, created_at, updated_at) VALUES ('col_old', 'org-dev', 'Best of', '2026-11-23T01:03:00.000Z', '2026-11-23T01:03:00.000Z')`,
	`INSERT INTO collection_contents VALUES ('col_old', 'prj_old1.c01', 1)`,
}

// writeV3DataDir makes a data directory as clipperd of schema version 3
// left it: migrations 1 to 3 applied, and the rows above.
func writeV3DataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "clipperd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`}
	for i, m := range migrations[:3] {
		stmts = append(stmts, m.sql, `INSERT INTO schema_migrations VALUES (`+string(rune('1'+i))+`, '2026-11-01T00:00:00.000Z')`)
	}
	for _, q := range append(stmts, v3Rows...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return dir
}

func TestVersion3DataDirOpensAndKeepsEverything(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, writeV3DataDir(t))
	if err != nil {
		t.Fatalf("open a version 3 data dir: %v", err)
	}
	defer s.Close()

	done, err := s.GetProject(ctx, "prj_old1")
	if err != nil {
		t.Fatal(err)
	}
	api := done.API()
	if api.Stage != apitypes.StageComplete || api.Visibility != "PUBLIC" || *api.SourceURI != "up_old" || done.VideoURL != "up_old" ||
		*api.Model != "ClipBasic" || *api.BrandTemplateID != "preset-fancy-Simple" || api.StorageSize != 4242 ||
		api.StorageExpireAt != "2026-12-23T01:00:00.000Z" || api.UpdatedAt != "2026-11-23T02:04:51.496Z" || *api.StallCount != 1 ||
		api.CurationPref.ClipDurations[0] != [2]float64{10, 30} || !*api.RenderPref.EnableCaption ||
		api.UploadedVideoAttr.Title != "Old talk" || api.ConclusionActions[0].Email != "a@example.com" ||
		done.SourceKey != "media/prj_old1/source.mp4" || done.SourceDurationSec != 61.5 || done.CreditsCharged != 25 ||
		!slices.Equal(api.Permissions, []string{"PROJECT_SHARE", "PROJECT_EDIT", "PROJECT_VIEW"}) || api.Cluster != "local" || api.ProductTier != "PRO" {
		t.Errorf("migrated COMPLETE project: %+v\nrecord %+v", api, done)
	}
	stalled, err := s.GetProject(ctx, "prj_old2")
	if err != nil {
		t.Fatal(err)
	}
	if stalled.Stage != apitypes.StageStalled || *stalled.Error != "RENDER failed: disk" || Timestamp(stalled.RetryAt) != "2026-11-23T01:06:00.000Z" ||
		stalled.FailureStalls != 1 || stalled.VideoURL != "https://example.com/v.mp4" || stalled.CurationPref != nil || stalled.Model != nil {
		t.Errorf("migrated STALLED project: %+v", stalled)
	}
	// The retry time is a column now: the retry scan and the concurrent cap read it.
	if due, err := s.DueRetries(ctx); err != nil || !slices.Equal(due, []string{"prj_old2"}) {
		t.Errorf("due retries = %v, %v", due, err)
	}
	if n, err := countActive(ctx, s.db, "org-dev"); err != nil || n != 1 {
		t.Errorf("active projects = %d, %v; want the stalled one with a retry", n, err)
	}

	clips, err := s.ListClips(ctx, "prj_old1", 0, 10)
	if err != nil || len(clips) != 2 {
		t.Fatalf("clips = %+v, %v", clips, err)
	}
	c := clips[0]
	if c.ID != "prj_old1.c01" || c.DurationMs != 19400 || c.TimeRanges[0] != [2]int64{1000, 20400} || c.Keywords[0] != "talk" ||
		c.Title != "Clip 1 of Old talk" || c.Hashtags != "#talk" || c.URIForExport != "/media/prj_old1/c01.mp4" ||
		c.RenderPref == nil || c.RenderPref.LayoutAspectRatio != "portrait" || c.OrgID != "org-dev" || c.ProjectID != "prj_old1" {
		t.Errorf("clip 1 = %+v", c)
	}
	if c2 := clips[1]; c2.ID != "prj_old1.c02" || c2.RenderPref != nil || c2.TimeRanges == nil || c2.DurationMs != 28600 {
		t.Errorf("clip 2 = %+v", c2)
	}
	if in, err := s.CollectionClips(ctx, "org-dev", "col_old", 0, 10); err != nil || len(in) != 1 || in[0].ID != "prj_old1.c01" {
		t.Errorf("collection clips = %+v, %v", in, err)
	}

	if up, err := s.GetUpload(ctx, "up_old"); err != nil || !up.Complete || up.Total != 4242 || up.SessionID != "sess_old" || up.Key != "uploads/up_old" {
		t.Errorf("complete upload = %+v, %v", up, err)
	}
	if up, err := s.GetUploadBySession(ctx, "sess_half"); err != nil || up.Complete || up.Total != -1 || up.Received != 1024 {
		t.Errorf("unfinished upload = %+v, %v", up, err)
	}
	var used int64
	if err := s.db.QueryRowContext(ctx, `SELECT used FROM credits WHERE org_id = 'org-dev' AND month = '2026-11'`).Scan(&used); err != nil || used != 35 {
		t.Errorf("credits used = %d, %v; want 35", used, err)
	}
	if ds, err := s.ProjectDeliveries(ctx, "prj_old1"); err != nil || len(ds) != 1 || ds[0].Attempts != 1 || ds[0].LastError != "timeout" {
		t.Errorf("deliveries = %+v, %v", ds, err)
	}
	if k, err := s.LookupKey(ctx, "ck_old"); err != nil || k.OrgID != "org-dev" {
		t.Errorf("key = %+v, %v", k, err)
	}
	accounts, err := s.SocialAccounts(ctx, "org-dev")
	if err != nil || len(accounts) != 1 || accounts[0] != (apitypes.SocialAccount{PostAccountID: "pa_old", SubAccountID: "sub1", Platform: "YOUTUBE",
		ExtUserID: "ext_1", ExtUserName: "My channel", ExtUserProfileLink: "https://example.com/c"}) {
		t.Errorf("social accounts = %+v, %v", accounts, err)
	}
	tpl, err := s.BrandTemplate(ctx, "org-dev", "")
	if err != nil || tpl.TemplateID != "tpl_old" || tpl.Name != "Square" || tpl.Type != "custom" || tpl.Preferences.LayoutAspectRatio != "square" {
		t.Errorf("default template = %+v, %v", tpl, err)
	}
}

// A migrated store keeps working: the pipeline's writes land in the new
// columns, and reopening applies nothing twice.
func TestVersion3DataDirKeepsWorkingAfterTheMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := writeV3DataDir(t)
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MutateProject(ctx, "prj_old2", func(p *Project) error {
		p.Stage, p.RetryAt, p.Error = apitypes.StageQueued, time.Time{}, nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ChargeProjectCredits(ctx, "prj_old2", 12, quota.DefaultMonthlyCredits); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	var versions int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&versions); err != nil || versions != len(migrations) {
		t.Errorf("schema versions = %d, %v; want %d", versions, err, len(migrations))
	}
	p, err := s.GetProject(ctx, "prj_old2")
	if err != nil || p.Stage != apitypes.StageQueued || !p.RetryAt.IsZero() || p.Error != nil || p.CreditsCharged != 12 {
		t.Errorf("after changes: %+v, %v", p, err)
	}
	if due, _ := s.DueRetries(ctx); len(due) != 0 {
		t.Errorf("due retries = %v after the requeue", due)
	}
}
