package client

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// orgState is what every client of one (base URL, API key, organization) in
// this process shares: the concurrent-project slots, the clip listings of
// COMPLETE projects and what waits have learned about processing times.
// Terraform runs resources in parallel and may build several clients; all of
// them see the same projects of the same organization.
type orgState struct {
	slots *slotPool
	clips *clipCache
	pace  *paceModel
}

var (
	orgStatesMu sync.Mutex
	orgStates   = map[string]*orgState{}
)

// orgStateFor returns the process-wide state of base+key+org, creating it on
// first use with a pool of maxConcurrent slots; a later client asking for
// fewer slots lowers the pool's limit. The key is hashed, as in limiterFor.
func orgStateFor(base, apiKey, orgID string, maxConcurrent int) *orgState {
	sum := sha256.Sum256([]byte(base + "\x00" + apiKey + "\x00" + orgID))
	k := hex.EncodeToString(sum[:])
	orgStatesMu.Lock()
	defer orgStatesMu.Unlock()
	if st, ok := orgStates[k]; ok {
		st.slots.setLimit(maxConcurrent)
		return st
	}
	st := &orgState{slots: newSlotPool(maxConcurrent), clips: newClipCache(), pace: newPaceModel()}
	orgStates[k] = st
	return st
}
