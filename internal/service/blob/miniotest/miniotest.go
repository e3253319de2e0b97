// Package miniotest starts a real MinIO server for tests: `minio server`
// on a free loopback port with a temporary directory and its own
// credentials, stopped when the test ends. scripts/ensure-tools.sh minio
// installs the binary; without it a test skips, or fails in CI.
package miniotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Server is a running MinIO.
type Server struct {
	Endpoint  string // 127.0.0.1:PORT, plain HTTP
	AccessKey string
	SecretKey string
	Client    *minio.Client

	t       testing.TB
	dir     string // the objects, kept across Stop and Restart
	console string
	cmd     *exec.Cmd
	exited  chan error
}

// startTimeout bounds the wait for a server to answer its health check.
const startTimeout = 60 * time.Second

// Start starts a server for t, stopped (and its directory removed) when t
// ends.
func Start(t testing.TB) *Server {
	t.Helper()
	toolexectest.RequireTools(t, "minio")
	s := &Server{AccessKey: "clipper-test", SecretKey: "clipper-test-" + random(8), t: t, dir: t.TempDir()}
	for attempt := 0; ; attempt++ {
		s.Endpoint, s.console = freeAddr(t), freeAddr(t)
		err := s.run()
		if err == nil {
			break
		}
		// Another process may have taken the free port first: try again.
		if attempt == 2 {
			t.Fatal(err)
		}
	}
	t.Cleanup(s.Stop)
	c, err := minio.New(s.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	s.Client = c
	return s
}

// run starts the server on s.Endpoint over s.dir and waits until it is
// ready.
func (s *Server) run() error {
	var out toolexec.Tail // the server's output, for a failure to start
	// Bound to the test binary's life: a test killed by its timeout leaves
	// no server running.
	cmd := toolexec.Command(context.Background(), "minio", "server", "--quiet", "--address", s.Endpoint, "--console-address", s.console, s.dir)
	cmd.Env = append(cmd.Environ(), "MINIO_ROOT_USER="+s.AccessKey, "MINIO_ROOT_PASSWORD="+s.SecretKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start minio: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := waitReady(s.Endpoint, exited); err != nil {
		stop(s.t, cmd, exited)
		return fmt.Errorf("minio server did not start: %w\n%s", err, out.String())
	}
	s.cmd, s.exited = cmd, exited
	return nil
}

// Stop stops the server, keeping its objects: the bucket is away (its
// port refuses connections) until Restart. Stopping a stopped server does
// nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	stop(s.t, s.cmd, s.exited)
	s.cmd = nil
}

// Restart starts a stopped server again on the same port, over the same
// objects and credentials, and returns once it is ready; a failure fails t.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.cmd != nil {
		t.Fatal("miniotest: Restart of a server that runs")
	}
	// The port was ours a moment ago; another process could take it in
	// between, which fails the test with the server's own message.
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
}

// NewBucket makes an empty bucket with a fresh name and returns the name.
func (s *Server) NewBucket(t testing.TB) string {
	t.Helper()
	name := "test-" + random(6)
	if err := s.Client.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket %s: %v", name, err)
	}
	return name
}

// Env sets the AWS environment variables clipperd reads its credentials
// from to the server's, for t (which then may not run in parallel).
func (s *Server) Env(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", s.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.SecretKey)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "us-east-1")
}

// ReadOnly is a set of temporary credentials that may list and read the
// objects of bucket and write none, as an operator's read-only key would:
// MinIO's STS AssumeRole of the root user with a session policy.
func (s *Server) ReadOnly(t testing.TB, bucket string) (accessKey, secretKey, sessionToken string) {
	t.Helper()
	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[`+
		`{"Effect":"Allow","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::%[1]s/*"]},`+
		`{"Effect":"Allow","Action":["s3:ListBucket","s3:GetBucketLocation"],"Resource":["arn:aws:s3:::%[1]s"]}]}`, bucket)
	creds, err := credentials.NewSTSAssumeRole("http://"+s.Endpoint, credentials.STSAssumeRoleOptions{
		AccessKey: s.AccessKey, SecretKey: s.SecretKey, Policy: policy, Location: "us-east-1", DurationSeconds: 3600,
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := creds.GetWithContext(nil)
	if err != nil {
		t.Fatalf("assume a read-only role: %v", err)
	}
	return v.AccessKeyID, v.SecretAccessKey, v.SessionToken
}

// URL is the --media address of bucket under prefix on this server.
func (s *Server) URL(bucket, prefix string) string {
	return fmt.Sprintf("s3://%s/%s?endpoint=%s&secure=false&region=us-east-1", bucket, prefix, s.Endpoint)
}

// waitReady polls the server's liveness check until it answers 200 or the
// process exits.
func waitReady(endpoint string, exited <-chan error) error {
	deadline := time.Now().Add(startTimeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("minio exited: %v", err)
		default:
		}
		resp, err := client.Get("http://" + endpoint + "/minio/health/ready")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("no answer to /minio/health/ready within " + startTimeout.String())
}

// stop ends the server gracefully, or kills it after ten seconds.
func stop(t testing.TB, cmd *exec.Cmd, exited chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		t.Logf("minio stopped: %v", err)
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Logf("minio did not stop within 10 s of SIGTERM; killed: %v", <-exited)
	}
}

// freeAddr is a loopback address with a port nothing listened on a moment ago.
func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
