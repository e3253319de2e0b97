package pipeline

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/sources"
)

// privateAddrError is returned when an import would connect to an address
// inside the host's network.
type privateAddrError struct{ ip netip.Addr }

func (e *privateAddrError) Error() string {
	return fmt.Sprintf("refusing to connect to private or loopback address %s", e.ip)
}

// guardControl runs after name resolution, on the very address being
// connected to, so DNS tricks (rebinding, a public name for 127.0.0.1) and
// redirects cannot reach the private network.
func guardControl(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("import dial %q: %w", address, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("import dial %q: %w", address, err)
	}
	if sources.IsPrivateAddr(ip) {
		return &privateAddrError{ip: ip.Unmap()}
	}
	return nil
}

// importClient returns the client for http(s) imports. Unless private
// imports are allowed its dialer refuses private addresses; it has no
// overall timeout (sources run to gigabytes) but bounded connect and header
// waits, and downloads stop when the body goes idle (see idleReader).
func importClient(base *http.Client, allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = guardControl
	}
	if base != nil {
		rt := base.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		t, ok := rt.(*http.Transport)
		if !ok {
			return base // a custom RoundTripper: its owner decides where it may connect
		}
		c := *base
		tr := t.Clone()
		tr.DialContext = dialer.DialContext
		if !allowPrivate {
			tr.Proxy = nil // a proxy would connect on our behalf, past the guard
		}
		c.Transport = tr
		return &c
	}
	tr := &http.Transport{
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          16,
	}
	if allowPrivate {
		tr.Proxy = http.ProxyFromEnvironment
	}
	return &http.Client{Transport: tr}
}
