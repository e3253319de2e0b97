package server

import (
	"strings"
	"testing"
)

// TestCheckMedia: directories and well-formed bucket addresses pass; a
// bucket address with one slash, without a bucket, or another scheme is
// refused with the rule it breaks.
func TestCheckMedia(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"", "/srv/media", "media", "./s3:odd", "s3://clips/prod?endpoint=127.0.0.1:9000&secure=false", "C:odd"} {
		if err := CheckMedia(ok); err != nil {
			t.Errorf("CheckMedia(%q) = %v, want nil", ok, err)
		}
	}
	for spec, want := range map[string]string{
		"s3:/clips/prod":      "two slashes",
		"s3:clips":            "two slashes",
		"S3:/clips":           "two slashes",
		"s3://":               `bucket ""`,
		"s3:///prod":          `bucket ""`,
		"ftp://host/media":    "ftp:// is no media store",
		"gs://bucket/prefix":  "gs:// is no media store",
		"file:/srv/media":     "file: is no media store",
		"https:/example.com/": "https: is no media store",
	} {
		err := CheckMedia(spec)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), spec) {
			t.Errorf("CheckMedia(%q) = %v, want an error naming it and %q", spec, err, want)
		}
	}
}
