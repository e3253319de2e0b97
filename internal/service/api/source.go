package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/netguard"
)

// resolveTimeout bounds the DNS lookups of a create request's hosts (its
// videoUrl, its webhooks').
const resolveTimeout = 5 * time.Second

// checkPublicHost refuses a videoUrl whose host is, or resolves to, an
// address the pipeline will not connect to (netguard.IsPrivateAddr), so a
// project cannot make the server fetch from its own network. A host that
// does not exist is refused too; a lookup that fails for another reason
// (no DNS server reachable) lets the project through, and the pipeline
// checks the address again when it connects, which also defeats DNS
// rebinding between now and then.
func checkPublicHost(ctx context.Context, host string) error {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addr, err := netguard.NonPublicAddr(ctx, host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return badField("videoUrl", "host %q does not resolve", host)
		}
		return nil
	}
	if addr.IsValid() {
		return badField("videoUrl", "host %q resolves to the non-public address %s; imports from loopback, private, "+
			"link-local and other reserved addresses are refused (start clipperd with --allow-private-imports to allow them)", host, addr)
	}
	return nil
}

// checkWebhookHosts refuses a WEBHOOK conclusion action whose url host is,
// or resolves to, a non-public address, so a project cannot make the server
// POST into its own network (its own API included). Only what is visible
// now is refused; a lookup that fails lets the project through, since the
// delivery's connection is checked again (package netguard), which also
// defeats DNS rebinding between now and then.
func checkWebhookHosts(ctx context.Context, actions []apitypes.ConclusionAction) error {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	for i, act := range actions {
		if act.Type != apitypes.ActionWebhook {
			continue
		}
		u, err := url.Parse(act.URL)
		if err != nil {
			continue // normalizeCreate refuses it before this runs
		}
		addr, err := netguard.NonPublicAddr(ctx, u.Hostname())
		if err == nil && addr.IsValid() {
			return badField(fmt.Sprintf("conclusionActions[%d].url", i), "host %q is or resolves to the non-public address %s; "+
				"webhooks to loopback, private, link-local and other reserved addresses are refused "+
				"(start clipperd with --allow-private-webhooks to allow them)", u.Hostname(), addr)
		}
	}
	return nil
}
