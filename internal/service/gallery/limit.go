package gallery

import (
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Login attempts per client: a burst of loginBurst, then one every
// loginEvery. Keys are 192 random bits, so this is not what keeps them from
// being guessed; it keeps the form from being a cheap oracle to hammer.
const (
	loginBurst = 10
	loginEvery = 6 * time.Second
	// limiterIdle is how long an address's limiter is kept unused; by
	// then it is full again, so dropping it forgets nothing.
	limiterIdle = loginEvery * loginBurst
)

// loginLimiter bounds login attempts per client address (IPv6 per /64,
// which one client usually holds whole).
type loginLimiter struct {
	mu        sync.Mutex
	clients   map[string]*clientLimit
	lastSweep time.Time
}

type clientLimit struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{clients: map[string]*clientLimit{}}
}

// allow takes one attempt of r's client at now; false when it has none left.
func (l *loginLimiter) allow(r *http.Request, now time.Time) bool {
	addr := clientAddr(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > limiterIdle {
		for a, c := range l.clients {
			if now.Sub(c.seen) > limiterIdle {
				delete(l.clients, a)
			}
		}
		l.lastSweep = now
	}
	c := l.clients[addr]
	if c == nil {
		c = &clientLimit{lim: rate.NewLimiter(rate.Every(loginEvery), loginBurst)}
		l.clients[addr] = c
	}
	c.seen = now
	return c.lim.AllowN(now, 1)
}

// clientAddr is the address attempts are counted by: the peer's IP, an
// IPv6 one cut to its /64.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}
