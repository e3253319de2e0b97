package gallery

import "github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"

// Failed logins are bounded per client by package failbound, as failed API
// keys are.
const (
	loginBurst = failbound.Burst
	loginEvery = failbound.Every
)

var clientAddr = failbound.ClientAddr
