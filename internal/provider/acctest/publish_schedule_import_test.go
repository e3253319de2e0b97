package acctest

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccPublishSchedule_importUnknownID pins down what the resource's
// documentation says of import, since the service has no endpoint that reads
// a schedule: `-generate-config-out` can only write null arguments, and its
// plan fails on them; an id the service has no schedule of imports all the
// same; the arguments are then recorded without a call, and destroy, finding
// nothing to cancel (404), forgets it with a warning.
func TestAccPublishSchedule_importUnknownID(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	youtube := env.accAccount(t, "YOUTUBE")
	at := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	const unknownID = "sched-that-never-was"

	tfresource.ParallelTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []tfresource.TestStep{
			{
				// terraform plan -generate-config-out.
				Config:          env.providerBlock(),
				ResourceName:    scheduleAddr,
				ImportState:     true,
				ImportStateKind: tfresource.ImportBlockWithID,
				ImportStateId:   unknownID,
				GenerateConfig:  true,
				ExpectError:     regexp.MustCompile(`(?s)Missing Configuration for Required Attribute.*publish_at`),
			},
			{
				Config:             scheduleConfig(env, clips[0].ID, youtube, "Never made", at),
				ResourceName:       scheduleAddr,
				ImportState:        true,
				ImportStateId:      unknownID,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 || states[0].ID != unknownID {
						return fmt.Errorf("imported %v, want the id %s alone", states, unknownID)
					}
					return nil
				},
			},
			{
				Config:           scheduleConfig(env, clips[0].ID, youtube, "Never made", at),
				ConfigPlanChecks: expectAction(scheduleAddr, plancheck.ResourceActionUpdate),
			},
			{
				Config: env.providerBlock(),
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
