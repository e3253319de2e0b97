package server

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/censorjobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// TestAPIFlowOnEachEngine runs the API's whole path with the state in
// SQLite (the default) and in PostgreSQL (--database), the media in the
// data directory and, with PostgreSQL, in a MinIO bucket (--media): an
// upload, a project to COMPLETE and its clips, its conclusion webhook
// delivered once and signed, a collection of the clips, a post and a
// schedule published, a social copy job and a censor job that beeps the
// profanity festival says in the source (its renders kept and replaced in
// the media store), all answered alike.
func TestAPIFlowOnEachEngine(t *testing.T) {
	toolexectest.RequireTools(t, append(speechtest.Tools, transcribe.PocketsphinxTool)...)
	videoFile, _ := speechtest.Video(t, t.TempDir(), profaneSpeech, 1.0)
	video, err := os.ReadFile(videoFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range []struct {
		name     string
		store    string
		database func(*testing.T) string
		media    func(*testing.T) string
	}{
		{"sqlite+dir", store.EngineSQLite, func(*testing.T) string { return "" }, func(*testing.T) string { return "" }},
		{"postgres+dir", store.EnginePostgres, storetestURL, func(*testing.T) string { return "" }},
		{"postgres+minio", store.EnginePostgres, storetestURL, func(t *testing.T) string {
			minioSrv := miniotest.Start(t)
			minioSrv.Env(t)
			return minioSrv.URL(minioSrv.NewBucket(t), "clipperd")
		}},
	} {
		t.Run(engine.name, func(t *testing.T) {
			// The wall clock, which the test moves on past the schedule's time:
			// a time a second ahead is in the past on a loaded machine.
			clock := &offsetClock{}
			srv := startServer(t, Config{Database: engine.database(t), Media: engine.media(t), AllowPrivateWebhooks: true,
				ASR: transcribe.KindPocketsphinx, Now: clock.Now})
			if got := srv.store.Engine(); got != engine.store {
				t.Fatalf("server store on %s, want %s", got, engine.store)
			}
			c := newClient(t, srv, devKey)

			receiver := webhooktest.New(t, 0)
			created := c.mustCreate(map[string]any{
				"videoUrl":          c.uploadFile(video, 1<<20),
				"curationPref":      map[string]any{"range": map[string]any{"startSec": 0, "endSec": 12}, "clipDurations": [][]float64{{4, 10}}},
				"conclusionActions": []map[string]any{{"type": "WEBHOOK", "url": receiver.URL + "/done"}},
			})
			c.waitStage(created.ID, pipelineTimeout, apitypes.StageComplete)
			if p := c.project(created.ID); p.Stage != apitypes.StageComplete || p.CreatedAt == "" || p.StorageExpireAt <= p.CreatedAt {
				t.Errorf("complete project %+v", p)
			}
			clips := c.clips(created.ID)
			if len(clips) == 0 {
				t.Fatalf("project %s made no clips", created.ID)
			}
			clip := clips[0]
			checkConclusionWebhook(t, receiver, created.ID, len(clips))

			col := c.mustCreateCollection("on " + engine.name)
			resp, data := c.do(http.MethodPost, "/api/collection-contents", apitypes.CollectionContent{CollectionID: col.CollectionID, ContentID: clip.ID})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("add to collection: %d %s", resp.StatusCode, data)
			}
			resp, data = c.do(http.MethodGet, "/api/exportable-clips?q=findByCollectionId&collectionId="+col.CollectionID, nil)
			if inCol := decode[[]apitypes.ExportableClip](t, data); resp.StatusCode != http.StatusOK || len(inCol) != 1 || inCol[0].ID != clip.ID {
				t.Errorf("clips of the collection: %d %s", resp.StatusCode, data)
			}

			account := connect(t, srv, DevOrgID, "YOUTUBE", "")
			cl := devAPIClient(t, srv)
			postID, err := cl.CreatePostTask(t.Context(), postBody(clip.ProjectID, clip.CurationID, account))
			if err != nil {
				t.Fatal(err)
			}
			scheduleID, err := cl.CreatePublishSchedule(t.Context(), scheduleBody(clip.ProjectID, clip.CurationID, account, clock.Now().Add(time.Hour)))
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Hour)
			if got := publishedRecord(t, srv, postID); got.ContentID() != clip.ID {
				t.Errorf("published post task = %+v", got)
			}
			if got := publishedRecord(t, srv, firedPost(t, srv, scheduleID)); got.ScheduleID != scheduleID || got.ContentID() != clip.ID {
				t.Errorf("published post of the schedule = %+v", got)
			}

			jobID, err := cl.CreateSocialCopyJob(t.Context(), apitypes.SocialCopyJobRequest{ProjectID: clip.ProjectID, ClipID: clip.CurationID,
				PostAccountID: account, Prompt: "formal"})
			if err != nil {
				t.Fatal(err)
			}
			if job := copyJobDone(t, cl, jobID); job.Status != apitypes.CopyCompleted || !sameCopy(job, expectedCopy(t, clip, "YOUTUBE", "formal")) {
				t.Errorf("copy job %+v, want COMPLETED with the formal copy", job)
			}

			// The censor job beeps the profanity of a clip that holds it, through
			// the media store of the engine, and keeps the originals.
			words, err := srv.store.Transcript(t.Context(), created.ID)
			if err != nil {
				t.Fatal(err)
			}
			censored := profaneClip(t, clips, words)
			c.runCensorJob(censored.ProjectID, censored.CurationID, true)
			var export []string
			for _, name := range []string{censored.CurationID + ".mp4", censored.CurationID + ".preview.mp4"} {
				origs := originals(t, srv, censored.ProjectID, name)
				if len(origs) != 1 {
					t.Fatalf("originals of %s after a censor job: %v, want one", name, origs)
				}
				if export == nil {
					export = origs
				}
			}
			resp, body := newClient(t, srv, "").do(http.MethodGet, censored.URIForExport, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET the censored clip: %d", resp.StatusCode)
			}
			served := filepath.Join(t.TempDir(), "served.mp4")
			if err := os.WriteFile(served, body, 0o600); err != nil {
				t.Fatal(err)
			}
			spans := censoredSpans(t, words, censored, export[0])
			if len(spans) == 0 {
				t.Fatalf("the censor job heard no listed word in %q", censored.Text)
			}
			checkCensored(t, true, pcm16(t, export[0]), pcm16(t, served), spans)
			if n := len(receiver.Requests()); n != 1 {
				t.Errorf("%d conclusion webhooks by the end of the flow, want one", n)
			}
		})
	}
}

// profaneClip is a clip of one range for a censor job to beep: the first in
// which the transcript words has a listed word (censorjobs.Spans), else the
// first of one range, whose listed words the job's checking decode hears
// (the flow checks that it censored some).
func profaneClip(t *testing.T, clips []apitypes.ExportableClip, words []store.TranscriptWord) apitypes.ExportableClip {
	t.Helper()
	var single []apitypes.ExportableClip
	for _, cl := range clips {
		if len(cl.TimeRanges) != 1 {
			continue
		}
		if len(censorjobs.Spans(words, cl.TimeRanges[0][0], cl.TimeRanges[0][1])) > 0 {
			return cl
		}
		single = append(single, cl)
	}
	if len(single) == 0 {
		t.Fatalf("no clip of %d has one time range", len(clips))
	}
	return single[0]
}

func storetestURL(t *testing.T) string { return storetest.PostgresURL(t) }

// checkConclusionWebhook waits for the conclusion webhook of project and
// checks it is signed with the dev key and says COMPLETE with clips clips.
// (The flow checks at its end that no second one came.)
func checkConclusionWebhook(t *testing.T, receiver *webhooktest.Receiver, project string, clips int) {
	t.Helper()
	storetest.Eventually(t, "the conclusion webhook of "+project, func() bool { return len(receiver.Requests()) > 0 })
	got := receiver.Requests()
	payload := decode[apitypes.WebhookPayload](t, got[0].Body)
	if payload.ProjectID != project || payload.Stage != apitypes.StageComplete || payload.ClipCount != clips || !got[0].SignedWith(devKey) {
		t.Errorf("conclusion webhook %s (signed with the dev key: %v), want project %s COMPLETE with %d clips", got[0].Body, got[0].SignedWith(devKey), project, clips)
	}
}

// publishedRecord waits for post id to be published and returns its
// record, wherever the media store put its files.
func publishedRecord(t *testing.T, srv *Server, id string) *store.Post {
	t.Helper()
	var p *store.Post
	storetest.Eventually(t, "post "+id+" published", func() bool {
		var err error
		if p, err = srv.store.GetPost(t.Context(), id); err != nil || p.Status == store.PostFailed {
			t.Fatalf("post %s: %+v %v, want it published", id, p, err)
		}
		return p.Status == store.PostPublished
	})
	return p
}

// TestSharedDatabaseWantsOneGivenMasterKey: a process on PostgreSQL without
// CLIPPERD_MASTER_KEY or --master-key-file refuses to start (a key file of
// its own would differ from the other processes'), and a second process on
// a new database with another key is refused at its start, not when it
// later fails to unseal a secret the first sealed.
func TestSharedDatabaseWantsOneGivenMasterKey(t *testing.T) {
	t.Parallel()
	database := storetestURL(t)
	_, err := Start(t.Context(), Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", APIKey: devKey, Database: database})
	if err == nil || !strings.Contains(err.Error(), "CLIPPERD_MASTER_KEY") || !strings.Contains(err.Error(), "--master-key-file") {
		t.Fatalf("Start on PostgreSQL without a master key = %v; want a refusal naming CLIPPERD_MASTER_KEY and --master-key-file", err)
	}

	_, first := masterkey.Generate()
	media := t.TempDir() // one installation's media, shared by its processes
	startServer(t, Config{Database: database, MasterKey: first, Media: media})
	_, second := masterkey.Generate()
	_, err = Start(t.Context(), Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", APIKey: devKey, Database: database, MasterKey: second, Media: media})
	if !errors.Is(err, masterkey.ErrWrongKey) {
		t.Fatalf("a second process with another master key = %v; want ErrWrongKey", err)
	}
	startServer(t, Config{Database: database, MasterKey: first, Media: media}) // the same key: welcome
}

// offsetClock is the wall clock moved on by what the test advanced it.
type offsetClock struct{ off atomic.Int64 }

func (c *offsetClock) Now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())).UTC() }
func (c *offsetClock) Advance(d time.Duration) { c.off.Add(int64(d)) }
