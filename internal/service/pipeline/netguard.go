package pipeline

import (
	"net/http"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/netguard"
)

// importClient returns the client for http(s) imports: the guarded client
// of package netguard, which refuses private addresses at connect time
// unless private imports are allowed. It has no overall timeout (sources
// run to gigabytes) but bounded connect and header waits, and downloads
// stop when the body goes idle (see idleReader).
func importClient(base *http.Client, allowPrivate bool) *http.Client {
	return netguard.Client(base, allowPrivate)
}
