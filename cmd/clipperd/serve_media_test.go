package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
)

// TestServeMediaFlag: --media reaches the server, which opens the bucket
// with the credentials of the AWS environment variables (a missing bucket
// stops the start, naming it), and a bad address is a usage error naming
// the flag and the rule.
func TestServeMediaFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"serve", "--media", "s3://clips?endpoint=minio:9000&secure=perhaps"}, &out, &errOut)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), `--media "s3://clips?endpoint=minio:9000&secure=perhaps": secure must be true or false`) {
		t.Errorf("a bad --media = %v; want a usage error naming --media and the rule", err)
	}

	srv := miniotest.Start(t)
	srv.Env(t)
	err = run(t.Context(), []string{"serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--metrics-listen", "off",
		"--media", srv.URL("no-such-bucket", "x")}, &out, &errOut)
	if err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Errorf("serve with a missing bucket = %v; want the start to fail naming the bucket", err)
	}
}
