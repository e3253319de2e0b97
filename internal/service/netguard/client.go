package netguard

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// RefusedError is the error of a connection the guard refused: Addr is the
// resolved address it would have reached.
type RefusedError struct{ Addr netip.Addr }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refusing to connect to the non-public address %s", e.Addr)
}

// control runs after name resolution, on the very address being connected
// to, so DNS tricks (rebinding, a public name for 127.0.0.1) and redirects
// cannot reach the private network.
func control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("dial %q: %w", address, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("dial %q: %w", address, err)
	}
	if IsPrivateAddr(ip) {
		return &RefusedError{Addr: ip.Unmap()}
	}
	return nil
}

// Client returns a copy of base whose connections go through the guard,
// unless allowPrivate. A base without a Transport gets one with bounded
// connect, TLS and header waits and no overall timeout (that is base's
// Timeout); a nil base is such a client. A base whose Transport is not an
// *http.Transport is returned as it is: its owner decides where it may
// connect. A guarded client uses no proxy, which would connect on its
// behalf, past the guard.
func Client(base *http.Client, allowPrivate bool) *http.Client {
	if base == nil {
		base = &http.Client{}
	}
	var tr *http.Transport
	switch rt := base.Transport.(type) {
	case nil:
		tr = newTransport()
	case *http.Transport:
		tr = rt.Clone()
	default:
		return base
	}
	dialer := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = control
		tr.Proxy = nil
	}
	tr.DialContext = dialer.DialContext
	c := *base
	c.Transport = tr
	return &c
}

// newTransport is the transport of a client given none.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          16,
	}
}
