package api

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/failbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// BenchmarkRateLimitCheck is the cost of one admitted check of the per-key
// limit: in memory (SQLite, the single box: a saved window is written
// after it, as before) and in one PostgreSQL transaction (several nodes).
// 64 keys in turn at the default limit (30 a minute), each key's requests
// 2.1 s apart, so its window holds 28 or 29 times (the most a key under
// its limit holds) and every check is admitted.
func BenchmarkRateLimitCheck(b *testing.B) {
	const keys = 64
	run := func(b *testing.B, l *keyLimiter) {
		names := make([]string, keys)
		for i := range names {
			names[i] = "bench-" + strconv.Itoa(i)
		}
		now := time.Now()
		step := 2100 * time.Millisecond / keys
		rec := httptest.NewRecorder()
		b.ResetTimer()
		for i := range b.N {
			if !l.admit(context.Background(), rec, names[i%keys], now.Add(time.Duration(i)*step)) {
				b.Fatal("refused")
			}
		}
	}
	b.Run("sqlite", func(b *testing.B) {
		st, err := store.Open(context.Background(), b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		core, _ := newLimiters(st, quota.DefaultRateLimit, quota.DefaultPostRateLimit, nil, nil)
		run(b, core)
	})
	b.Run("postgres", func(b *testing.B) {
		st, _, _ := twoNodes(b)
		core, _ := newLimiters(st, quota.DefaultRateLimit, quota.DefaultPostRateLimit, nil, nil)
		run(b, core)
	})
}

// BenchmarkFailedKeysBlocked is the cost the failed-key bound adds to
// every authenticated request on PostgreSQL: one read of the client's count.
func BenchmarkFailedKeysBlocked(b *testing.B) {
	st, _, _ := twoNodes(b)
	l := failbound.ForStore(st, failbound.ScopeAPIKeys, nil)
	now := time.Now()
	l.Failed(context.Background(), "203.0.113.9", now)
	b.ResetTimer()
	for range b.N {
		if l.Blocked(context.Background(), "203.0.113.9", now) {
			b.Fatal("blocked")
		}
	}
}
