// Package failbound bounds failed attempts per client address: failed
// gallery logins and failed API keys. Keys are 192 random bits, so this is
// not what keeps them from being guessed; it keeps a login form or an API
// from being a cheap oracle to hammer.
package failbound

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Failed attempts per client: a burst of Burst, then one every Every.
// Successful attempts spend nothing, so people sharing an address are not
// locked out by each other.
const (
	Burst = 10
	Every = 6 * time.Second
	// limiterIdle is how long an address's limiter is kept unused; by
	// then it is full again, so dropping it forgets nothing.
	limiterIdle = Every * Burst
)

// Limiter bounds failed attempts per client address (IPv6 per /64, which
// one client usually holds whole). Safe for concurrent use.
type Limiter struct {
	mu        sync.Mutex
	clients   map[string]*rate.Limiter
	lastSweep time.Time
}

// New makes a Limiter.
func New() *Limiter {
	return &Limiter{clients: map[string]*rate.Limiter{}}
}

// Blocked reports whether client has no failed attempt left at now; an
// attempt is refused then, before its key is looked at.
func (l *Limiter) Blocked(client string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.clients[client]
	return c != nil && c.TokensAt(now) < 1
}

// Failed spends one attempt of client at now.
func (l *Limiter) Failed(client string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > limiterIdle {
		// A client whose attempts have all come back is as a new one.
		for a, c := range l.clients {
			if c.TokensAt(now) >= Burst {
				delete(l.clients, a)
			}
		}
		l.lastSweep = now
	}
	c := l.clients[client]
	if c == nil {
		c = rate.NewLimiter(rate.Every(Every), Burst)
		l.clients[client] = c
	}
	c.AllowN(now, 1)
}

// ClientAddr is the address attempts are counted by: the client's IP, an
// IPv6 one cut to its /64. The client is the peer, unless the peer is one
// of the trusted proxies: then it is the right-most X-Forwarded-For entry
// that is not one of them (entries further left are the client's word,
// which anyone can make up). When that entry cannot be read the peer is
// the client, and err says why: the caller logs it, as every client behind
// that proxy then shares one bound.
func ClientAddr(r *http.Request, trusted []netip.Prefix) (client string, err error) {
	host, _, splitErr := net.SplitHostPort(r.RemoteAddr)
	if splitErr != nil {
		host = r.RemoteAddr
	}
	ip, ok := parseIP(host)
	if !ok {
		return host, nil // not an IP peer (a test's, a pipe's): counted as it is
	}
	if isTrusted(ip, trusted) {
		ip, err = forwardedClient(r.Header.Values("X-Forwarded-For"), trusted, ip)
	}
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String(), err
	}
	return ip.String(), err
}

// forwardedClient walks the X-Forwarded-For entries from the right past
// the trusted proxies; the first other one is the client. When every entry
// is a proxy the left-most one is; when the client's entry cannot be read
// (or there is none) the peer is, with an error saying so.
func forwardedClient(headers []string, trusted []netip.Prefix, peer netip.Addr) (netip.Addr, error) {
	if len(headers) == 0 {
		return peer, fmt.Errorf("trusted proxy %s sent no X-Forwarded-For", peer)
	}
	entries := strings.Split(strings.Join(headers, ","), ",")
	var client netip.Addr
	for i := len(entries) - 1; i >= 0; i-- {
		ip, err := forwardedAddr(entries[i])
		if err != nil {
			return peer, fmt.Errorf("X-Forwarded-For from trusted proxy %s: %w", peer, err)
		}
		client = ip
		if !isTrusted(client, trusted) {
			break
		}
	}
	return client, nil
}

// forwardedAddr reads one X-Forwarded-For entry: an IP, or an IP with a
// port ("203.0.113.7:51234", "[2001:db8::1]:443"), which some proxies send.
func forwardedAddr(entry string) (netip.Addr, error) {
	entry = strings.TrimSpace(entry)
	if ip, ok := parseIP(entry); ok {
		return ip, nil
	}
	ap, err := netip.ParseAddrPort(entry)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("entry %q is not an IP address, with or without a port", entry)
	}
	return ap.Addr().Unmap().WithZone(""), nil
}

// parseIP reads an IP address, IPv4-mapped ones as IPv4, without a zone.
func parseIP(s string) (netip.Addr, bool) {
	ip, err := netip.ParseAddr(s)
	return ip.Unmap().WithZone(""), err == nil
}

func isTrusted(ip netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
