package client

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// Shared is what the clients built with it share, so that several clients of
// one service, key and organization behave as one: the rate limiter of each
// (base URL, API key) and, per organization too, the concurrent-project
// slots, the clip listings of COMPLETE projects and what waits have learned
// about processing times.
//
// The provider holds one Shared for as long as it lives (one Terraform
// command) and hands it to every client it builds; a client built without
// one shares nothing. The zero Shared is ready to use; it must not be copied
// after first use.
type Shared struct {
	mu       sync.Mutex
	limiters map[string]*sharedLimiter // by stateKey(base, key)
	orgs     map[string]*orgState      // by stateKey(base, key, org)
}

// orgState is what every client of one (base URL, API key, organization) and
// one Shared shares. Terraform runs resources in parallel and may build
// several clients; all of them see the same projects of the same
// organization.
type orgState struct {
	slots *slotPool
	clips *clipCache
	pace  *paceModel
}

// stateKey hashes parts, so that a Shared does not keep API keys as map keys.
func stateKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// limiter returns the limiter of base+key, creating it on first use. If a
// later client asks for a lower rate, the limiter slows down to it.
func (s *Shared) limiter(base, apiKey string, rpm int) *sharedLimiter {
	k := stateKey(base, apiKey)
	rpm = max(rpm, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.limiters[k]; ok {
		l.mu.Lock()
		l.size = min(l.size, rpm)
		l.mu.Unlock()
		return l
	}
	if s.limiters == nil {
		s.limiters = map[string]*sharedLimiter{}
	}
	l := newSharedLimiter(rpm)
	s.limiters[k] = l
	return l
}

// org returns the state of base+key+org, creating it on first use with a pool
// of maxConcurrent slots; a later client asking for fewer slots lowers the
// pool's limit.
func (s *Shared) org(base, apiKey, orgID string, maxConcurrent int) *orgState {
	k := stateKey(base, apiKey, orgID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.orgs[k]; ok {
		st.slots.setLimit(maxConcurrent)
		return st
	}
	if s.orgs == nil {
		s.orgs = map[string]*orgState{}
	}
	st := &orgState{slots: newSlotPool(maxConcurrent), clips: newClipCache(), pace: newPaceModel()}
	s.orgs[k] = st
	return st
}
