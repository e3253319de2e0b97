package store

// What other packages need to know of the engine is asked here, as what the
// store can do, never by the engine's name: a third engine answers these
// and the packages that ask stay as they are.

// SharedByProcesses reports whether several processes may use this store at
// once (PostgreSQL, shared by API and worker nodes), so limits that must
// hold across them (rate windows, failed attempts) are decided in the
// database rather than in one process's memory. A SQLite store belongs to
// one process: its datalock refuses a second.
func (s *Store) SharedByProcesses() bool { return s.engine == EnginePostgres }
