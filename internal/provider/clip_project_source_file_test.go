package provider

import (
	"path/filepath"
	"testing"
)

func TestCheckSourceFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "talk.mp4")
	if err := writeFile(file, "not checked for content here"); err != nil {
		t.Fatal(err)
	}
	checkDiags(t, checkSourceFile(file), "")
	checkDiags(t, checkSourceFile(filepath.Join(dir, "missing.mp4")), `source_file: must be the path of an existing file.*missing\.mp4`)
	checkDiags(t, checkSourceFile(dir), `source_file: must be the path of a regular file`)
}
