package upload

import (
	"errors"
	"os"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest/stores"
)

// TestWithStore runs the flow of a client over the real store, on each
// engine: link, start, chunks, a drop, the status query, the resume and
// completion; then the upload is final.
func TestWithStore(t *testing.T) {
	t.Parallel()
	stores.ForEachEngine(t, testWithStore)
}

func testWithStore(t *testing.T, open func(testing.TB) *store.Store) {
	st := open(t)
	s := New(Config{Store: st, Files: testMedia(t, t.TempDir())})

	up, err := s.Create(t.Context(), "org-a", "user-a")
	if err != nil {
		t.Fatal(err)
	}
	sid, err := s.Start(t.Context(), up.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Put(t.Context(), sid, put("bytes 0-4/12", "hello")); err != nil || got.Received != 5 {
		t.Fatalf("first chunk: %+v, %v", got, err)
	}
	if _, err := s.Put(t.Context(), sid, dropped("bytes 5-11/12", 7, ", w")); err == nil {
		t.Fatal("a dropped chunk succeeded")
	}
	got, err := s.Put(t.Context(), sid, put("bytes */12", ""))
	if err != nil || got.Received != 8 || got.Complete {
		t.Fatalf("status after the drop: %+v, %v; want 8 bytes held", got, err)
	}
	got, err = s.Put(t.Context(), sid, put("bytes 8-11/12", "orld"))
	if err != nil || got != (Status{UploadID: up.ID, Received: 12, Complete: true}) {
		t.Fatalf("last chunk: %+v, %v", got, err)
	}

	rec, err := st.GetUpload(t.Context(), up.ID)
	if err != nil || !rec.Complete || rec.Received != 12 || rec.Total != 12 || rec.SessionID != sid {
		t.Fatalf("stored record %+v, %v", rec, err)
	}
	if data, err := os.ReadFile(localFile(t, s, rec)); err != nil || string(data) != "hello, world" {
		t.Errorf("file %q, %v", data, err)
	}
	if _, err := s.Start(t.Context(), up.ID); !errors.Is(err, ErrComplete) {
		t.Errorf("start after completion: %v, want ErrComplete", err)
	}
	if _, err := s.Put(t.Context(), "ses_nope", put("bytes */12", "")); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v, want ErrNotFound", err)
	}
}
