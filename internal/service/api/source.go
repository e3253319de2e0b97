package api

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/sources"
)

// resolveTimeout bounds the DNS lookup of a videoUrl host at create time.
const resolveTimeout = 5 * time.Second

// checkPublicHost refuses a videoUrl whose host is, or resolves to, an
// address the pipeline will not connect to (sources.IsPrivateAddr), so a
// project cannot make the server fetch from its own network. A host that
// does not exist is refused too; a lookup that fails for another reason
// (no DNS server reachable) lets the project through, and the pipeline
// checks the address again when it connects, which also defeats DNS
// rebinding between now and then.
func checkPublicHost(ctx context.Context, host string) error {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return badField("videoUrl", "host %q does not resolve", host)
		}
		return nil
	}
	for _, addr := range addrs {
		if sources.IsPrivateAddr(addr) {
			return badField("videoUrl", "host %q resolves to the non-public address %s; imports from loopback, private, "+
				"link-local and other reserved addresses are refused (start clipperd with --allow-private-imports to allow them)", host, addr.Unmap())
		}
	}
	return nil
}
