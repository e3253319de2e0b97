// Package jobstest reads the job system's state for tests of the packages
// whose work runs on it.
package jobstest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
)

// States lists queue's jobs as "state/attempt" ("completed/1",
// "available/0"), oldest first, so a test can say what became of each.
func States(t testing.TB, js *jobs.Jobs, queue string) []string {
	t.Helper()
	recent, err := js.Recent(t.Context(), queue, 100)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, in := range slices.Backward(recent) {
		states = append(states, fmt.Sprintf("%s/%d", in.State, in.Attempt))
	}
	return states
}
