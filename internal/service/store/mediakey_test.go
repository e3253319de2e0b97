package store

import (
	"bytes"
	"testing"
)

// TestMediaKeyPersistsAndRotates: the key is made once and read back the
// same after a reopen; rotating replaces it.
func TestMediaKeyPersistsAndRotates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	first, err := st.MediaKey(t.Context())
	if err != nil || len(first) != mediaKeyBytes {
		t.Fatalf("first key %x: %v", first, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	again, err := st.MediaKey(t.Context())
	if err != nil || !bytes.Equal(again, first) {
		t.Fatalf("after reopen %x (%v), want %x", again, err, first)
	}
	if err := st.RotateMediaKey(t.Context()); err != nil {
		t.Fatal(err)
	}
	rotated, err := st.MediaKey(t.Context())
	if err != nil || bytes.Equal(rotated, first) || len(rotated) != mediaKeyBytes {
		t.Errorf("after rotation %x (%v), want a new key", rotated, err)
	}
}
