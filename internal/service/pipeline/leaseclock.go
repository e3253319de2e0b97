package pipeline

import (
	"context"
	"sync"
	"time"
)

// leaseClockRefresh is how often a lease clock reads the database's clock
// again; between readings the process's monotonic clock carries it, which
// drifts by parts per million, not by the seconds a wall clock can be off.
const leaseClockRefresh = time.Minute

// leaseClock is the time runs take, renew and check leases by. On
// PostgreSQL, where processes on several machines share leases, it is the
// database's clock: a process whose own clock runs a minute ahead would
// otherwise take every other process's live lease for ended, and one whose
// clock lags would keep a dead run's lease alive for the lag. On SQLite
// (processes on one machine, one clock) it is the process's clock.
type leaseClock struct {
	local func() time.Time // the process's clock (Config.Clock)
	// db reads the database's clock; ok false: the database has no clock
	// to share (SQLite).
	db func(ctx context.Context) (t time.Time, ok bool, err error)

	mu   sync.Mutex
	base time.Time // the database's time at the last reading
	at   time.Time // time.Now() at that reading; its monotonic part measures the time since
	none bool      // the database has no clock: local it is
}

// now is the lease time now. It fails only when the database's clock was
// never read and cannot be: a lease taken by a guess could be cut short.
func (c *leaseClock) now(ctx context.Context) (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.none {
		return c.local(), nil
	}
	if !c.at.IsZero() && time.Since(c.at) < leaseClockRefresh {
		return c.base.Add(time.Since(c.at)), nil
	}
	before := time.Now()
	t, ok, err := c.db(ctx)
	switch {
	case err != nil && c.at.IsZero():
		return time.Time{}, err
	case err != nil:
		// The last reading, carried by the monotonic clock, is still good
		// for a while; the next call tries again.
		return c.base.Add(time.Since(c.at)), nil
	case !ok:
		c.none = true
		return c.local(), nil
	}
	// The database read its clock somewhere in the round trip: take the
	// middle, off by at most half of it.
	c.at = before.Add(time.Since(before) / 2)
	c.base = t
	return c.base.Add(time.Since(c.at)), nil
}
