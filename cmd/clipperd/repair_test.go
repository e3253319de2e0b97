package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestServeRefusesDamagedDatabaseThenRepair: bytes overwritten in the
// middle of a stopped installation's database make serve refuse to start,
// saying what is damaged and what to do (it used to start and answer 500);
// `clipperd repair` keeps the damaged file aside and recovers the rest,
// and serve starts on it.
func TestServeRefusesDamagedDatabaseThenRepair(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		if _, err := st.CreateKey(t.Context(), "org", "user"); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, store.DefaultFile)
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte("damage"), 1000), info.Size()/2); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	err = run(t.Context(), []string{"serve", "--data", dir, "--listen", "127.0.0.1:0", "--metrics-listen", "off"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "is damaged") || !strings.Contains(err.Error(), "clipperd repair --data") {
		t.Fatalf("serve on a damaged database = %v; want a refusal saying what is damaged and what to do", err)
	}
	t.Logf("serve: %v", err)

	out.Reset()
	if err := run(t.Context(), []string{"repair", "--data", dir}, &out, &errOut); err != nil {
		t.Fatalf("repair: %v\n%s", err, out.String())
	}
	t.Logf("repair:\n%s", out.String())
	if !strings.Contains(out.String(), "kept the damaged database as "+file+".damaged-") || !strings.Contains(out.String(), "api_keys") {
		t.Errorf("repair said %q; want where the damaged file is and the rows of each table", out.String())
	}
	serveInProcess(t, "--data", dir)
	if err := run(t.Context(), []string{"repair", "--data", dir}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "stop clipperd first") {
		t.Errorf("repair while serving = %v; want it refused", err)
	}
}
