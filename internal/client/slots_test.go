package client

func (s *slotPool) hasRefusedWaiters() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.refusedWaiters) > 0
}
