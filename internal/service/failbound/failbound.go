// Package failbound bounds failed attempts per client address: failed
// gallery logins and failed API keys. Keys are 192 random bits, so this is
// not what keeps them from being guessed; it keeps a login form or an API
// from being a cheap oracle to hammer. On PostgreSQL, where several
// processes serve one database, the attempts are counted there too, so a
// client has one bound across the API nodes (ForStore).
package failbound

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
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
	// blockAfter is how far a client's shared count may lead now with an
	// attempt left: Burst-1 intervals (Shared).
	blockAfter = Every * (Burst - 1)
)

// The scopes of the bounds kept in a shared store, each its own budget.
const (
	ScopeAPIKeys = "api:"
	ScopeLogins  = "login:"
)

// Shared keeps the clients' failed attempts for every process of one
// database (the store on PostgreSQL): a client's count is the time its
// attempts are counted until, each worth Every.
type Shared interface {
	FailedAttemptsUntil(ctx context.Context, client string) (time.Time, error)
	SpendFailedAttempt(ctx context.Context, client string, now time.Time, every, blockAfter time.Duration) error
	ForgetFailedAttempts(ctx context.Context, now time.Time) error
}

// Limiter bounds failed attempts per client address (IPv6 per /64, which
// one client usually holds whole). Safe for concurrent use.
type Limiter struct {
	mu        sync.Mutex
	clients   map[string]*rate.Limiter
	lastSweep time.Time

	// shared, when set, counts the attempts of every process; scope names
	// this bound's in it. The memory count is kept too: it answers when
	// this process's own attempts already block a client (no read), and
	// alone when the database cannot.
	shared     Shared
	scope      string
	log        *slog.Logger
	lastForget time.Time
}

// New makes a Limiter counting in this process's memory.
func New() *Limiter {
	return &Limiter{clients: map[string]*rate.Limiter{}, log: slog.New(slog.DiscardHandler)}
}

// ForStore makes the Limiter of a scope over st: counted in st when st
// keeps attempts and several processes may share it (PostgreSQL), else in
// memory as New's, as on a single box. log (nil: none) hears of a shared count that could not be used.
func ForStore(st any, scope string, log *slog.Logger) *Limiter {
	l := New()
	if log != nil {
		l.log = log
	}
	if s, ok := st.(*store.Store); ok && s == nil {
		return l // handler tests without a store
	}
	type sharable interface{ SharedByProcesses() bool }
	if e, ok := st.(sharable); ok && e.SharedByProcesses() {
		if sh, ok := st.(Shared); ok {
			l.shared, l.scope = sh, scope
		}
	}
	return l
}

// Blocked reports whether client has no failed attempt left at now; an
// attempt is refused then, before its key is looked at.
func (l *Limiter) Blocked(ctx context.Context, client string, now time.Time) bool {
	l.mu.Lock()
	c := l.clients[client]
	blocked := c != nil && c.TokensAt(now) < 1
	l.mu.Unlock()
	if blocked || l.shared == nil {
		return blocked
	}
	until, err := l.shared.FailedAttemptsUntil(ctx, l.scope+client)
	if err != nil {
		l.log.Warn("failed attempts: the shared count is unreadable; this process's alone decides", "client", client, "err", err)
		return false
	}
	return until.Sub(now) > blockAfter
}

// Failed spends one attempt of client at now.
func (l *Limiter) Failed(ctx context.Context, client string, now time.Time) {
	l.failedHere(client, now)
	if l.shared == nil {
		return
	}
	// Counted even when the client hangs up: going away must not undo it.
	ctx = context.WithoutCancel(ctx)
	if err := l.shared.SpendFailedAttempt(ctx, l.scope+client, now, Every, blockAfter); err != nil {
		l.log.Warn("failed attempts: not counted in the database; this process counts it alone", "client", client, "err", err)
	}
	l.mu.Lock()
	forget := now.Sub(l.lastForget) > limiterIdle
	if forget {
		l.lastForget = now
	}
	l.mu.Unlock()
	if forget {
		if err := l.shared.ForgetFailedAttempts(ctx, now); err != nil {
			l.log.Warn("failed attempts: clients with every attempt back not forgotten", "err", err)
		}
	}
}

// failedHere spends one attempt of client in this process's memory.
func (l *Limiter) failedHere(client string, now time.Time) {
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
