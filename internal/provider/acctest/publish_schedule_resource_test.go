package acctest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

const scheduleAddr = "clipper_publish_schedule.test"

// scheduleConfig schedules the clip contentID to account at publishAt.
func scheduleConfig(env accEnv, contentID string, account apitypes.SocialAccount, title, publishAt string) string {
	return socialPostConfig(env, "clipper_publish_schedule", contentID, account, title, fmt.Sprintf("publish_at      = %q", publishAt))
}

// serviceSchedule is schedule id as clipperd holds it.
func serviceSchedule(t *testing.T, env accEnv, id string) (*store.Schedule, error) {
	t.Helper()
	return storeOf(t, env.DataDir).GetSchedule(t.Context(), id)
}

// scheduleIs checks that schedule *id has status on clipperd and, when at is
// not zero, that it fires at that instant.
func scheduleIs(t *testing.T, env accEnv, id *string, status string, at time.Time) tfresource.TestCheckFunc {
	return func(*terraform.State) error {
		sc, err := serviceSchedule(t, env, *id)
		if err != nil {
			return fmt.Errorf("schedule %s on clipperd: %w", *id, err)
		}
		if sc.Status != status {
			return fmt.Errorf("schedule %s is %s on clipperd, want %s", *id, sc.Status, status)
		}
		if !at.IsZero() && !sc.PublishAt.Equal(at) {
			return fmt.Errorf("schedule %s fires at %s on clipperd, want %s", *id, sc.PublishAt, at)
		}
		return nil
	}
}

func TestAccPublishSchedule_lifecycle(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	clipID := clips[0].ID
	youtube := env.accAccount(t, "YOUTUBE")
	c := env.apiClient(t)

	// A day ahead, written at +02:00; the service gets the instant in UTC.
	at := time.Now().Add(24 * time.Hour).Truncate(time.Second)
	local := at.In(time.FixedZone("", 2*3600)).Format(time.RFC3339)
	utc := at.UTC().Format(time.RFC3339)
	var current, first string
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	argsNotRead := []string{"content_id", "post_account_id", "sub_account_id", "title", "description", "media_type", "privacy", "publish_at"}

	tfresource.ParallelTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []tfresource.TestStep{
			{
				Config:           scheduleConfig(env, clipID, youtube, "Launch", local),
				ConfigPlanChecks: expectAction(scheduleAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					// The time as written: the state follows the configuration.
					statecheck.ExpectKnownValue(scheduleAddr, tfjsonpath.New("publish_at"), knownvalue.StringExact(local)),
					sameID.AddStateValue(scheduleAddr, tfjsonpath.New("id")),
					newID.AddStateValue(scheduleAddr, tfjsonpath.New("id")),
				},
				Check: tfresource.ComposeTestCheckFunc(recordID(scheduleAddr, &current), recordID(scheduleAddr, &first),
					scheduleIs(t, env, &current, store.SchedulePending, at)),
			},
			{
				// No read endpoint: an import records the id alone.
				ResourceName:            scheduleAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: argsNotRead,
			},
			{
				// The same instant in UTC: the state records it, the
				// schedule stays.
				Config:           scheduleConfig(env, clipID, youtube, "Launch", utc),
				ConfigPlanChecks: expectAction(scheduleAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(scheduleAddr, tfjsonpath.New("publish_at"), knownvalue.StringExact(utc)),
					sameID.AddStateValue(scheduleAddr, tfjsonpath.New("id")),
				},
				Check: scheduleIs(t, env, &current, store.SchedulePending, at),
			},
			{
				// The API cannot change a schedule: a new title cancels it
				// and makes another.
				Config:            scheduleConfig(env, clipID, youtube, "Launch day", utc),
				ConfigPlanChecks:  expectAction(scheduleAddr, plancheck.ResourceActionReplace),
				ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(scheduleAddr, tfjsonpath.New("id"))},
				Check: tfresource.ComposeTestCheckFunc(scheduleIs(t, env, &first, store.ScheduleCancelled, time.Time{}),
					recordID(scheduleAddr, &current), scheduleIs(t, env, &current, store.SchedulePending, at)),
			},
			{
				// Cancelled outside Terraform: nothing reads a schedule, so
				// the plan stays empty...
				PreConfig: func() {
					if err := c.DeletePublishSchedule(t.Context(), current); err != nil {
						t.Fatalf("cancelling %s beside Terraform: %v", current, err)
					}
				},
				Config:           scheduleConfig(env, clipID, youtube, "Launch day", utc),
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// ...and destroying it finds nothing to cancel: a warning,
				// not an error, and it leaves the state.
				Config:           env.providerBlock(),
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(scheduleAddr, plancheck.ResourceActionDestroy)}},
				Check: func(s *terraform.State) error {
					if _, ok := s.RootModule().Resources[scheduleAddr]; ok {
						return fmt.Errorf("%s is still in state after its destroy", scheduleAddr)
					}
					return nil
				},
			},
		},
	})
}

// A schedule made outside Terraform, imported: the first apply records the
// configuration's arguments without making another schedule, and destroy
// cancels the imported one.
func TestAccPublishSchedule_importRecordsConfiguration(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	youtube := env.accAccount(t, "YOUTUBE")
	at := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	id := scheduleOutside(t, env, clips[0], youtube, "Made elsewhere", at)
	config := scheduleConfig(env, clips[0].ID, youtube, "Made elsewhere", at)

	tfresource.ParallelTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []tfresource.TestStep{
			{
				Config:             config,
				ResourceName:       scheduleAddr,
				ImportState:        true,
				ImportStateId:      id,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 || states[0].ID != id || states[0].Attributes["title"] != "" {
						return fmt.Errorf("imported %v, want the id %s alone", states, id)
					}
					return nil
				},
			},
			{
				Config:           config,
				ConfigPlanChecks: expectAction(scheduleAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(scheduleAddr, tfjsonpath.New("id"), knownvalue.StringExact(id)),
					statecheck.ExpectKnownValue(scheduleAddr, tfjsonpath.New("title"), knownvalue.StringExact("Made elsewhere")),
				},
				Check: scheduleIs(t, env, &id, store.SchedulePending, time.Time{}),
			},
		},
		CheckDestroy: scheduleIs(t, env, &id, store.ScheduleCancelled, time.Time{}),
	})
}

// A schedule fires when its time has passed: its post is published, and
// the plans after its time are empty. A replacement of a fired schedule
// needs a new time, and destroy finds the schedule fired: a warning. The
// time passes on the clock of the test's own clipperd and provider.
func TestAccPublishSchedule_fires(t *testing.T) {
	env, clock := testAccClockSetup(t)
	t.Parallel()
	clips := ownCompleteProject(t, env)
	linkedin := env.accAccount(t, "LINKEDIN")
	when := clock.Now().Add(scheduleAhead)
	at := when.UTC().Format(time.RFC3339Nano)
	config := func(title string) string { return scheduleConfig(env, clips[0].ID, linkedin, title, at) }
	var id string

	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testAccClockProviders(clock),
		Steps: []tfresource.TestStep{
			{
				Config: config("Going live"),
				Check: tfresource.ComposeTestCheckFunc(recordID(scheduleAddr, &id), func(*terraform.State) error {
					clock.PassTo(when)
					sc, err := waitFired(t, env, id)
					if err != nil {
						return err
					}
					return checkPublished(t, env, linkedin, clips[0].ID, "Going live", sc.PostID, id)
				}),
			},
			{
				// Its time has passed: no error, no diff.
				Config:           config("Going live"),
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// A replacement is a new schedule, which needs a new time.
				Config:      config("Going live again"),
				PlanOnly:    true,
				ExpectError: errorText("publish_at: must be in the future, not " + at),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			// Destroy found nothing to cancel; the post stays published.
			sc, err := serviceSchedule(t, env, id)
			if err != nil || sc.Status != store.ScheduleFired {
				return fmt.Errorf("schedule %s after destroy: %+v, %v; want it fired", id, sc, err)
			}
			_, err = os.Stat(filepath.Join(env.DataDir, "published", linkedin.PostAccountID, sc.PostID, "post.json"))
			return err
		},
	})
}

// waitFired waits for schedule id to fire on clipperd.
func waitFired(t *testing.T, env accEnv, id string) (*store.Schedule, error) {
	t.Helper()
	deadline := time.Now().Add(publishDeadline)
	for {
		sc, err := serviceSchedule(t, env, id)
		switch {
		case err != nil:
			return nil, err
		case sc.Status == store.ScheduleFired:
			return sc, nil
		case sc.Status != store.SchedulePending || time.Now().After(deadline):
			return nil, fmt.Errorf("schedule %s is %s, not fired", id, sc.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Destroying a schedule the service no longer holds pending warns and
// succeeds, so Terraform drops it from state.
func TestAccPublishSchedule_deleteGoneWarns(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	youtube := env.accAccount(t, "YOUTUBE")
	c := env.apiClient(t)
	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	id := scheduleOutside(t, env, clips[0], youtube, "Cancelled elsewhere", at)
	if err := c.DeletePublishSchedule(t.Context(), id); err != nil {
		t.Fatal(err)
	}

	diags := protocolDelete(t, env, "clipper_publish_schedule", map[string]tftypes.Value{
		"id":              tftypes.NewValue(tftypes.String, id),
		"content_id":      tftypes.NewValue(tftypes.String, clips[0].ID),
		"post_account_id": tftypes.NewValue(tftypes.String, youtube.PostAccountID),
		"title":           tftypes.NewValue(tftypes.String, "Cancelled elsewhere"),
		"publish_at":      tftypes.NewValue(tftypes.String, at),
	})
	failOnErrors(t, "destroying the schedule", diags)
	if len(diags) != 1 || diags[0].Summary != "Publish schedule already fired or cancelled" ||
		!strings.Contains(diags[0].Detail, "no pending schedule "+id) {
		t.Fatalf("diagnostics %s, want one warning saying schedule %s fired or was cancelled", diagnosticsText(diags), id)
	}
}

// scheduleOutside schedules clip to account at publishAt through the API,
// as socialPostConfig would with title, and returns the schedule's id.
func scheduleOutside(t *testing.T, env accEnv, clip apitypes.ExportableClip, account apitypes.SocialAccount, title, publishAt string) string {
	t.Helper()
	id, err := env.apiClient(t).CreatePublishSchedule(t.Context(), apitypes.PublishScheduleRequest{
		PostTaskRequest: apitypes.PostTaskRequest{ProjectID: clip.ProjectID, ClipID: clip.CurationID, PostAccountID: account.PostAccountID,
			SubAccountID: account.SubAccountID, PostDetail: testPostDetail(title)},
		PublishAt: publishAt,
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
