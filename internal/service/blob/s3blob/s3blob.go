// Package s3blob is the blob.Store of an S3-compatible bucket (AWS S3,
// MinIO, and others speaking the S3 API), through minio-go: keys are object
// names under an optional prefix, reads are ranged GETs pinned to the
// version opened, writes are streamed multipart uploads completed at
// Commit, copies are server-side, and Presign hands out the bucket's own
// presigned GET URLs. It passes the one suite, blobtest.Run, against a real
// MinIO (package miniotest).
package s3blob

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// partSize is the size of one part of a streamed upload, and the most a
// writer holds in memory: below it an object is sent in one PUT at Commit.
// 10,000 parts of 16 MiB hold 156 GiB, above the 30 GB source limit.
const partSize = 16 << 20

// maxPresign is the longest life of a presigned URL (SigV4's limit).
const maxPresign = 7 * 24 * time.Hour

// Store is a bucket, or the part of it under a prefix.
type Store struct {
	c      *minio.Client
	cfg    Config
	prefix string // "" or the configured prefix with a trailing "/"
}

// New connects to the bucket cfg names and checks that it exists, so a
// wrong bucket, endpoint or credential fails at start, not at the first clip.
func New(ctx context.Context, cfg Config) (*Store, error) {
	creds := credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	if cfg.AccessKey == "" {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.FileAWSCredentials{},
		})
	}
	region := cfg.Region
	if region == "" {
		region = os.Getenv("AWS_REGION")
	}
	c, err := minio.New(cfg.Endpoint, &minio.Options{Creds: creds, Secure: cfg.Secure, Region: region})
	if err != nil {
		return nil, fmt.Errorf("blob: %s: %w", cfg, err)
	}
	s := &Store{c: c, cfg: cfg}
	if cfg.Prefix != "" {
		s.prefix = cfg.Prefix + "/"
	}
	ok, err := c.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("blob: %s: cannot reach the bucket (check the endpoint and the credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY): %w", cfg, err)
	}
	if !ok {
		return nil, fmt.Errorf("blob: %s: bucket %q does not exist at %s: create it first", cfg, cfg.Bucket, cfg.Endpoint)
	}
	return s, nil
}

// Config is what the store was opened with.
func (s *Store) Config() Config { return s.cfg }

// name is the object name of key.
func (s *Store) name(key string) string { return s.prefix + key }

// checkKey refuses what blob.ValidKey refuses.
func checkKey(key string) error {
	if !blob.ValidKey(key) {
		return fmt.Errorf("%w: %q", blob.ErrInvalidKey, key)
	}
	return nil
}

// checkPrefix refuses a prefix that is not a valid key followed by "/".
func checkPrefix(prefix string) error {
	p, ok := strings.CutSuffix(prefix, "/")
	if !ok || !blob.ValidKey(p) {
		return fmt.Errorf("%w: prefix %q must be a key ending in /", blob.ErrInvalidKey, prefix)
	}
	return nil
}

// fail maps a missing object to blob.ErrNotFound, naming the key.
func fail(key string, err error) error {
	r := minio.ToErrorResponse(err)
	if r.Code == minio.NoSuchKey || (r.StatusCode == http.StatusNotFound && r.Code != minio.NoSuchBucket) {
		return fmt.Errorf("%w: %s", blob.ErrNotFound, key)
	}
	return fmt.Errorf("blob: %s: %w", key, err)
}

// Stat describes key.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	if err := checkKey(key); err != nil {
		return blob.Info{}, err
	}
	oi, err := s.c.StatObject(ctx, s.cfg.Bucket, s.name(key), minio.StatObjectOptions{})
	if err != nil {
		return blob.Info{}, fail(key, err)
	}
	return blob.Info{Key: key, Size: oi.Size, ModTime: oi.LastModified}, nil
}

// Open describes key and returns a reader of that version: its GETs,
// made under ctx, carry the ETag opened (If-Match), so an object replaced
// meanwhile fails the read instead of mixing two versions.
func (s *Store) Open(ctx context.Context, key string) (blob.Reader, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	oi, err := s.c.StatObject(ctx, s.cfg.Bucket, s.name(key), minio.StatObjectOptions{})
	if err != nil {
		return nil, fail(key, err)
	}
	return &reader{s: s, ctx: ctx, etag: oi.ETag, info: blob.Info{Key: key, Size: oi.Size, ModTime: oi.LastModified}}, nil
}

// reader reads one version of an object by ranged GETs: sequential reads
// share one open-ended GET from the offset, Seek drops it, ReadAt makes a
// GET of its own (so concurrent ReadAt calls are safe).
type reader struct {
	s    *Store
	ctx  context.Context
	etag string
	info blob.Info
	off  int64
	body io.ReadCloser // the GET from off; nil until a Read needs one
}

func (r *reader) Info() blob.Info { return r.info }

// get opens the bytes from start to end inclusive; end < 0: to the end.
func (r *reader) get(start, end int64) (io.ReadCloser, error) {
	var opts minio.GetObjectOptions
	if err := opts.SetMatchETag(r.etag); err != nil {
		return nil, err
	}
	var err error
	switch {
	case end >= 0:
		err = opts.SetRange(start, end)
	case start > 0:
		err = opts.SetRange(start, 0) // bytes=start-
	} // else the whole object: SetRange(0, 0) would be its first byte
	if err != nil {
		return nil, err
	}
	body, _, _, err := minio.Core{Client: r.s.c}.GetObject(r.ctx, r.s.cfg.Bucket, r.s.name(r.info.Key), opts)
	if minio.ToErrorResponse(err).Code == minio.PreconditionFailed {
		return nil, fmt.Errorf("blob: %s was replaced while it was read", r.info.Key)
	}
	if err != nil {
		return nil, fail(r.info.Key, err)
	}
	return body, nil
}

func (r *reader) Read(p []byte) (int, error) {
	if r.off >= r.info.Size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if r.body == nil {
		body, err := r.get(r.off, -1)
		if err != nil {
			return 0, err
		}
		r.body = body
	}
	n, err := r.body.Read(p)
	r.off += int64(n)
	switch {
	case err == io.EOF && r.off < r.info.Size:
		err = io.ErrUnexpectedEOF
	case err == io.EOF:
		err = nil // the next Read answers EOF
	}
	if err != nil {
		r.dropBody()
	}
	return n, err
}

func (r *reader) Seek(offset int64, whence int) (int64, error) {
	abs := offset
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		abs += r.off
	case io.SeekEnd:
		abs += r.info.Size
	default:
		return r.off, errors.New("blob: Seek: invalid whence")
	}
	if abs < 0 {
		return r.off, errors.New("blob: Seek: negative position")
	}
	if abs != r.off {
		r.dropBody()
		r.off = abs
	}
	return abs, nil
}

func (r *reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("blob: ReadAt: negative offset")
	}
	if off >= r.info.Size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	end := min(off+int64(len(p)), r.info.Size)
	body, err := r.get(off, end-1)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	n, err := io.ReadFull(body, p[:end-off])
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}

func (r *reader) Close() error {
	r.dropBody()
	return nil
}

func (r *reader) dropBody() {
	if r.body != nil {
		_ = r.body.Close()
		r.body = nil
	}
}

// putOptions are the options of every upload of key: its content type, so
// a presigned URL serves a clip as a video, and the part size.
func putOptions(key string) minio.PutObjectOptions {
	return minio.PutObjectOptions{ContentType: contentType(key), PartSize: partSize}
}

// contentType is the media type of key's extension.
func contentType(key string) string {
	switch ext := path.Ext(key); ext {
	case ".mp4":
		return "video/mp4"
	case ".srt":
		return "application/x-subrip; charset=utf-8"
	case ".vtt":
		return "text/vtt; charset=utf-8"
	case ".json":
		return "application/json"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}

// Create starts writing key. Up to partSize bytes wait in memory and go in
// one PUT at Commit; beyond that a multipart upload streams them part by
// part. Neither is visible before it completes, at Commit; Abort ends the
// multipart upload (minio-go aborts it on the reader's error).
func (s *Store) Create(ctx context.Context, key string) (blob.Writer, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	return &writer{s: s, ctx: ctx, key: key}, nil
}

// errAborted ends a streamed upload that Abort dropped.
var errAborted = errors.New("blob: write aborted")

type writer struct {
	s     *Store
	ctx   context.Context
	key   string
	buf   bytes.Buffer
	pw    *io.PipeWriter // the streamed upload's input, once started
	done  chan struct{}  // closed when the streamed upload ended, with err
	err   error
	ended bool
}

func (w *writer) Write(p []byte) (int, error) {
	if w.ended {
		return 0, errors.New("blob: write after Commit or Abort")
	}
	if w.pw == nil && w.buf.Len()+len(p) <= partSize {
		return w.buf.Write(p)
	}
	if w.pw == nil {
		w.stream()
	}
	return w.pw.Write(p)
}

// stream starts the multipart upload, fed what was buffered and then the pipe.
func (w *writer) stream() {
	pr, pw := io.Pipe()
	w.pw, w.done = pw, make(chan struct{})
	in := io.MultiReader(&w.buf, pr)
	go func() {
		_, err := w.s.c.PutObject(w.ctx, w.s.cfg.Bucket, w.s.name(w.key), in, -1, putOptions(w.key))
		// A failed upload fails the writer's next Write instead of blocking it.
		pr.CloseWithError(cmp.Or(err, io.ErrClosedPipe))
		w.err = err
		close(w.done)
	}()
}

func (w *writer) Commit() error {
	if w.ended {
		return errors.New("blob: writer already ended")
	}
	w.ended = true
	var err error
	if w.pw == nil {
		_, err = w.s.c.PutObject(w.ctx, w.s.cfg.Bucket, w.s.name(w.key), bytes.NewReader(w.buf.Bytes()), int64(w.buf.Len()), putOptions(w.key))
	} else {
		_ = w.pw.Close()
		<-w.done
		err = w.err
	}
	if err != nil {
		return fmt.Errorf("blob: commit %s: %w", w.key, err)
	}
	return nil
}

func (w *writer) Abort() error {
	if w.ended {
		return nil
	}
	w.ended = true
	if w.pw != nil {
		_ = w.pw.CloseWithError(errAborted)
		<-w.done // the upload ends with errAborted, or what failed it first
	}
	w.buf = bytes.Buffer{}
	return nil
}

// PutFile uploads the file at path as key (in parallel parts when large)
// and removes the file.
func (s *Store) PutFile(ctx context.Context, key, file string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if _, err := s.c.FPutObject(ctx, s.cfg.Bucket, s.name(key), file, putOptions(key)); err != nil {
		return fmt.Errorf("blob: put %s: %w", key, err)
	}
	return os.Remove(file)
}

// Copy copies src to dst inside the bucket (server-side; in parts above
// S3's 5 GiB limit of a single copy).
func (s *Store) Copy(ctx context.Context, dst, src string) error {
	if err := checkKey(dst); err != nil {
		return err
	}
	if err := checkKey(src); err != nil {
		return err
	}
	_, err := s.c.ComposeObject(ctx,
		minio.CopyDestOptions{Bucket: s.cfg.Bucket, Object: s.name(dst), ReplaceMetadata: true, ContentType: contentType(dst)},
		minio.CopySrcOptions{Bucket: s.cfg.Bucket, Object: s.name(src)})
	if err != nil {
		return fail(src, err)
	}
	return nil
}

// Compose joins srcs, in order, into dst inside the bucket (S3's
// multipart copy: no byte passes through clipperd).
func (s *Store) Compose(ctx context.Context, dst string, srcs []string) error {
	if err := checkKey(dst); err != nil {
		return err
	}
	opts := make([]minio.CopySrcOptions, len(srcs))
	for i, src := range srcs {
		if err := checkKey(src); err != nil {
			return err
		}
		opts[i] = minio.CopySrcOptions{Bucket: s.cfg.Bucket, Object: s.name(src)}
	}
	_, err := s.c.ComposeObject(ctx,
		minio.CopyDestOptions{Bucket: s.cfg.Bucket, Object: s.name(dst), ReplaceMetadata: true, ContentType: contentType(dst)}, opts...)
	if err != nil {
		return fmt.Errorf("blob: compose %s: %w", dst, err)
	}
	return nil
}

// Delete removes key; S3 answers a missing key with success too.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := s.c.RemoveObject(ctx, s.cfg.Bucket, s.name(key), minio.RemoveObjectOptions{}); err != nil {
		if errors.Is(fail(key, err), blob.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// List lists the objects under prefix, in key order (S3 lists names in
// byte order, as Go compares strings).
func (s *Store) List(ctx context.Context, prefix string) ([]blob.Info, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the lister's goroutine when an error ends the loop
	var out []blob.Info
	for oi := range s.c.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: s.name(prefix), Recursive: true}) {
		if oi.Err != nil {
			return nil, fmt.Errorf("blob: list %s: %w", prefix, oi.Err)
		}
		out = append(out, blob.Info{Key: strings.TrimPrefix(oi.Key, s.prefix), Size: oi.Size, ModTime: oi.LastModified})
	}
	return out, nil
}

// DeletePrefix lists the objects under prefix and removes them in batches
// (one request per thousand), returning the bytes of those removed.
func (s *Store) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	objects, err := s.List(ctx, prefix)
	if err != nil {
		return 0, err
	}
	size := make(map[string]int64, len(objects))
	for _, o := range objects {
		size[s.name(o.Key)] = o.Size
	}
	ch := make(chan minio.ObjectInfo)
	go func() {
		defer close(ch)
		for _, o := range objects {
			select {
			case ch <- minio.ObjectInfo{Key: s.name(o.Key)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var errs []error
	failed := map[string]bool{}
	for e := range s.c.RemoveObjects(ctx, s.cfg.Bucket, ch, minio.RemoveObjectsOptions{}) {
		failed[e.ObjectName] = true
		errs = append(errs, fmt.Errorf("%s: %w", e.ObjectName, e.Err))
	}
	var n int64
	for name, sz := range size {
		if !failed[name] {
			n += sz
		}
	}
	if err := errors.Join(append(errs, ctx.Err())...); err != nil {
		return n, fmt.Errorf("blob: delete %s: %w", prefix, err)
	}
	return n, nil
}

// Presign is the bucket's presigned GET URL of key, valid for ttl (at
// least a second, at most SigV4's seven days). It works with Range, and
// needs the endpoint to be reachable by whoever is handed it.
func (s *Store) Presign(ctx context.Context, key string, ttl time.Duration) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	u, err := s.c.PresignedGetObject(ctx, s.cfg.Bucket, s.name(key), min(max(ttl, time.Second), maxPresign), nil)
	if err != nil {
		return "", fmt.Errorf("blob: presign %s: %w", key, err)
	}
	return u.String(), nil
}

var (
	_ blob.Store      = (*Store)(nil)
	_ blob.FilePutter = (*Store)(nil)
	_ blob.Reader     = (*reader)(nil)
)

// retryCodes are the S3 error codes that ask the client to try again.
var retryCodes = map[string]bool{
	"SlowDown": true, "InternalError": true, "ServiceUnavailable": true, "RequestTimeout": true,
	"XMinioServerNotInitialized": true, "OperationTimedOut": true,
}

// Transient reports whether err is the bucket asking to try again (a 5xx,
// SlowDown) or no answer at all (a connection refused or cut): a
// retrying store (blob.WithRetry) repeats those. Any other answer (a 4xx:
// AccessDenied, NoSuchKey, NoSuchBucket) is final.
func (s *Store) Transient(err error) bool {
	var r minio.ErrorResponse
	if errors.As(err, &r) && (r.StatusCode != 0 || r.Code != "") {
		return retryCodes[r.Code] || r.StatusCode >= http.StatusInternalServerError
	}
	return dependency.NetworkError(err)
}

var _ blob.TransientClassifier = (*Store)(nil)
