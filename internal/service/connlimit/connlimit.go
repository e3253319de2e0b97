// Package connlimit caps the connections one client address holds open on
// a listener, so that one client (20,000 idle keep-alive connections, say)
// cannot use up the server's file descriptors and starve every other one.
package connlimit

import (
	"log/slog"
	"net"
	"net/netip"
	"sync"
)

// DefaultMaxPerAddr is the cap when none is given: far above what a
// browser (6) or one Terraform run opens to one host, with room for several
// runs from one machine (a parallel acceptance-test run holds about 100).
const DefaultMaxPerAddr = 256

// Listener accepts at most max open connections from each client IP
// address. Over the cap it closes a new connection at once, before reading
// anything: a refusal costs no descriptor beyond the moment of accepting,
// and the client sees the connection end (its retry policy applies).
type Listener struct {
	net.Listener
	max int
	log *slog.Logger

	mu   sync.Mutex
	open map[netip.Addr]*addrConns
}

// addrConns is what one client address holds.
type addrConns struct {
	n       int
	refused bool // refusals since the address reached the cap were logged
}

// New wraps ln with a cap of max connections per client address; max < 1
// takes DefaultMaxPerAddr. logger (nil = discard) hears, once per episode,
// that an address reached the cap.
func New(ln net.Listener, max int, logger *slog.Logger) *Listener {
	if max < 1 {
		max = DefaultMaxPerAddr
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Listener{Listener: ln, max: max, log: logger, open: map[netip.Addr]*addrConns{}}
}

// Accept returns the next connection whose address is under the cap,
// closing the ones over it.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := remoteAddr(c)
		if l.admit(addr) {
			return &conn{Conn: c, release: sync.OnceFunc(func() { l.release(addr) })}, nil
		}
		_ = c.Close()
	}
}

// Open is how many connections addr holds.
func (l *Listener) Open(addr netip.Addr) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a := l.open[addr]; a != nil {
		return a.n
	}
	return 0
}

func (l *Listener) admit(addr netip.Addr) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.open[addr]
	if a == nil {
		a = &addrConns{}
		l.open[addr] = a
	}
	if a.n < l.max {
		a.n++
		return true
	}
	if !a.refused {
		a.refused = true
		l.log.Warn("client address at its connection cap: closing its new connections until it closes some",
			"addr", addr.String(), "max", l.max)
	}
	return false
}

func (l *Listener) release(addr netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := l.open[addr]
	if a == nil {
		return
	}
	a.n--
	if a.n <= 0 { // the next refusal starts a new episode

		delete(l.open, addr)
	}
}

// remoteAddr is the client's IP address (an IPv4 address in IPv6 form as
// IPv4); the zero Addr for a connection without one (not TCP), which then
// shares one cap with its kind.
func remoteAddr(c net.Conn) netip.Addr {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return ta.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// conn gives its address's place back when closed, once.
type conn struct {
	net.Conn
	release func()
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
