package server

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
)

// openMedia opens the media store spec names: "" is the data directory
// itself, an s3:// address a bucket, anything else a directory. The data
// directory's store is returned as is, so its uploads land nowhere else.
func openMedia(ctx context.Context, spec string, data *blob.Dir, links blob.Presigner) (blob.Store, error) {
	if spec == "" {
		return data, nil
	}
	m, err := OpenMedia(ctx, spec, links)
	if err != nil {
		return nil, err
	}
	if d, ok := m.(*blob.Dir); ok && d.Root() == data.Root() {
		return data, nil
	}
	return m, nil
}

// OpenMedia opens the media store a --media value names: a bucket for an
// s3:// address, else a directory (whose addresses links presigns, if set).
// `clipperd migrate` opens its --to-media with it.
func OpenMedia(ctx context.Context, spec string, links blob.Presigner) (blob.Store, error) {
	if s3blob.IsURL(spec) {
		cfg, err := s3blob.ParseURL(spec)
		if err != nil {
			return nil, fmt.Errorf("media: %w", err)
		}
		st, err := s3blob.New(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("media: %w", err)
		}
		return st, nil
	}
	d, err := blob.NewDir(spec, links)
	if err != nil {
		return nil, fmt.Errorf("media: %w", err)
	}
	return d, nil
}

// CheckMedia checks a --media value before anything starts: a directory
// path or an s3:// address ParseURL reads; another scheme is a mistake, not
// a directory named "gs:".
func CheckMedia(spec string) error {
	if s3blob.IsURL(spec) {
		_, err := s3blob.ParseURL(spec)
		return err
	}
	if scheme, _, ok := strings.Cut(spec, "://"); ok {
		return fmt.Errorf("%q: %s:// is no media store: give a directory or %s", spec, scheme, s3blob.URLForm)
	}
	// "s3:/clips/x" (one slash) or "s3:clips": a bucket address mistyped,
	// not a directory named "s3:"; so is any other "scheme:/..."
	if m := schemeLike.FindStringSubmatch(spec); m != nil {
		if m[1] != "" {
			return fmt.Errorf("%q: a bucket address is written s3://BUCKET/PREFIX, with two slashes (the form is %s)", spec, s3blob.URLForm)
		}
		return fmt.Errorf("%q: %s: is no media store: give a directory (write ./%s for a directory of that name) or %s", spec, m[2], spec, s3blob.URLForm)
	}
	return nil
}

// schemeLike is the start of an address with a scheme: "s3:" anyhow, or a
// scheme of two letters or more followed by ":/".
var schemeLike = regexp.MustCompile(`^(?i)(s3):|^([a-zA-Z][a-zA-Z0-9+.-]+):/`)

// DescribeMedia names the media store for logs and messages, without
// credentials.
func DescribeMedia(m blob.Store) string {
	if r, ok := m.(interface{ Unwrap() blob.Store }); ok {
		m = r.Unwrap() // the retrying store (blob.WithRetry) of the bucket
	}
	switch m := m.(type) {
	case *s3blob.Store:
		return m.Config().String()
	case *blob.Dir:
		return m.Root()
	}
	return fmt.Sprintf("%T", m)
}
