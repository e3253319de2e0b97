package validators

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestLocalFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "video.mp4")
	if err := os.WriteFile(file, []byte("not really a video"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := path.Root("source_file")
	wantError(t, runString(LocalFile(), p, types.StringValue(file)), p, "")
	wantError(t, runString(LocalFile(), p, types.StringValue(filepath.Join(dir, "missing.mp4"))), p,
		`^source_file: must be the path of an existing file: .*no such file`)
	wantError(t, runString(LocalFile(), p, types.StringValue(dir)), p, `^source_file: must be the path of a regular file`)
	wantError(t, runString(LocalFile(), p, types.StringUnknown()), p, "")
}
