package failbound

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest/stores"
)

// TestForStorePicksTheCount: a SQLite store (one process) counts in
// memory; a PostgreSQL one in the database.
func TestForStorePicksTheCount(t *testing.T) {
	t.Parallel()
	if l := ForStore(stores.Open(t, t.TempDir()), ScopeLogins, nil); l.shared != nil {
		t.Error("a SQLite store's limiter counts in the database")
	}
	if l := ForStore(stores.Open(t, storetest.PostgresURL(t)), ScopeLogins, nil); l.shared == nil {
		t.Error("a PostgreSQL store's limiter counts in memory alone")
	}
	for _, none := range []any{nil, (*store.Store)(nil)} {
		if l := ForStore(none, ScopeLogins, nil); l.shared != nil {
			t.Errorf("no store (%#v), yet a shared count", none)
		}
	}
}

// TestSharedBoundAcrossProcesses: two processes' limiters over one
// PostgreSQL database hold one bound per client and scope: failures on
// either count for both, and the shared count answers as one process's
// token bucket (golang.org/x/time/rate, New's) would for the same
// attempts at the same times, through a random run of failures and waits.
func TestSharedBoundAcrossProcesses(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	stA, stB := stores.Open(t, url), stores.Open(t, url)
	ctx := context.Background()
	nodes := [2]*Limiter{ForStore(stA, ScopeAPIKeys, nil), ForStore(stB, ScopeAPIKeys, nil)}
	logins := ForStore(stB, ScopeLogins, nil)
	one := New() // the bound of one process seeing every attempt
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(3, 4))
	blockedSeen := 0
	for i := range 400 {
		now = now.Add(time.Duration(rng.Int64N(int64(4 * time.Second))))
		node := nodes[rng.IntN(2)]
		want := one.Blocked(ctx, "203.0.113.9", now)
		if got := node.Blocked(ctx, "203.0.113.9", now); got != want {
			t.Fatalf("attempt %d at +%v: blocked %v, one process's bound says %v", i, now.Sub(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)), got, want)
		}
		if want {
			blockedSeen++
			continue // refused before the key is looked at: nothing spent
		}
		node.Failed(ctx, "203.0.113.9", now)
		one.Failed(ctx, "203.0.113.9", now)
	}
	if blockedSeen == 0 {
		t.Fatal("the run never reached the bound; it checks nothing")
	}
	if logins.Blocked(ctx, "203.0.113.9", now) {
		t.Error("failed API keys blocked the same address's gallery logins")
	}
	// Once every attempt came back the client is forgotten, as a new one.
	later := now.Add(2 * limiterIdle)
	nodes[0].Failed(ctx, "198.51.100.7", later)
	if until, err := stA.FailedAttemptsUntil(ctx, ScopeAPIKeys+"203.0.113.9"); err != nil || !until.IsZero() {
		t.Errorf("a client with every attempt back: counted until %v (%v), want forgotten", until, err)
	}
}
