package server

import (
	"context"
	"fmt"
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
	return nil
}

// describeMedia names the media store for the log, without credentials.
func describeMedia(m blob.Store) string {
	switch m := m.(type) {
	case *s3blob.Store:
		return m.Config().String()
	case *blob.Dir:
		return m.Root()
	}
	return fmt.Sprintf("%T", m)
}
