package storetest

import (
	"encoding/binary"
	"os"
	"testing"
)

// WALCommitEnds are the offsets just past each commit frame of the SQLite
// write-ahead log wal (a 32-byte header, then frames of a 24-byte header
// and a page; a commit frame records the database's size), for tests that
// cut the log where SQLite cannot tell.
func WALCommitEnds(tb testing.TB, wal string) []int64 {
	tb.Helper()
	data, err := os.ReadFile(wal)
	if err != nil {
		tb.Fatal(err)
	}
	if len(data) < 32 {
		tb.Fatalf("%s holds %d bytes, no log", wal, len(data))
	}
	frame := 24 + int(binary.BigEndian.Uint32(data[8:]))
	var ends []int64
	for off := 32; off+frame <= len(data); off += frame {
		if binary.BigEndian.Uint32(data[off+4:]) != 0 {
			ends = append(ends, int64(off+frame))
		}
	}
	return ends
}
