package s3blob

import (
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want Config
	}{
		{"s3://clips", Config{Bucket: "clips", Endpoint: DefaultEndpoint, Secure: true}},
		{"s3://clips/prod/media/?region=eu-west-1", Config{Bucket: "clips", Prefix: "prod/media", Endpoint: DefaultEndpoint, Secure: true, Region: "eu-west-1"}},
		{"s3://clips/x?endpoint=127.0.0.1:9000&secure=false", Config{Bucket: "clips", Prefix: "x", Endpoint: "127.0.0.1:9000"}},
		{"s3://clips?endpoint=http://minio.local:9000", Config{Bucket: "clips", Endpoint: "minio.local:9000"}},
		{"s3://clips?endpoint=https://storage.example.com", Config{Bucket: "clips", Endpoint: "storage.example.com", Secure: true}},
	} {
		got, err := ParseURL(tc.raw)
		if err != nil || got != tc.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", tc.raw, got, err, tc.want)
		}
		if again, err := ParseURL(got.String()); err != nil || again != got {
			t.Errorf("ParseURL(%q.String() = %q) = %+v, %v", tc.raw, got.String(), again, err)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"/var/clipperd":                         "the scheme must be s3://",
		"gs://clips":                            `the scheme must be s3://, not "gs://"`,
		"s3://":                                 "bucket",
		"s3://Clips_Bad":                        `bucket "Clips_Bad"`,
		"s3://clips:9000/x":                     "the port goes in endpoint=",
		"s3://key:secret@clips":                 "credentials come from AWS_ACCESS_KEY_ID",
		"s3://clips/a/../b":                     `prefix "a/../b"`,
		"s3://clips?endpoint=":                  `endpoint "" must be HOST or HOST:PORT`,
		"s3://clips?endpoint=host:99999":        `endpoint "host:99999"`,
		"s3://clips?endpoint=http://h:1/path":   "with no path",
		"s3://clips?secure=maybe":               `secure must be true or false, not "maybe"`,
		"s3://clips?endpoint=http://h&secure=1": "secure=true contradicts",
		"s3://clips?bucket=x":                   `unknown parameter "bucket": the parameters are endpoint, region and secure`,
		"s3://clips?region=a&region=b":          `parameter "region" is given 2 times`,
	} {
		_, err := ParseURL(raw)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), URLForm) {
			t.Errorf("ParseURL(%q) = %v; want an error with %q and the form", raw, err, want)
		}
	}
}
