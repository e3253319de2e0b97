package server

import (
	"context"
	"errors"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
)

// dependencyRetry is the retry of calls to the dependency name: for
// cfg.DependencyRetry (0: dependency.DefaultWindow; below 0: none),
// reported to health.
func dependencyRetry(cfg Config, name string, health *dependency.Health) *dependency.Retry {
	window := cfg.DependencyRetry
	if window == 0 {
		window = dependency.DefaultWindow
	}
	return &dependency.Retry{Name: name, Window: max(window, 0), Health: health}
}

// watchDependencies makes the media's calls ride out the bucket's blips
// (blob.WithRetry; the store's were made so at its Open) and starts
// probing the database and the media, for /readyz and the gauge. It is
// called once the start's own checks of the media are done: those must
// fail at once on a wrong setting, not after the retry window.
func (s *Server) watchDependencies(ctx context.Context, cfg Config) {
	s.media = blob.WithRetry(s.media, dependencyRetry(cfg, dependency.Bucket, s.health))
	s.health.Watch(dependency.Database, s.store.Ping)
	s.health.Watch(dependency.Bucket, func(ctx context.Context) error {
		// The installation's marker: one small object every process reads
		// at start. Missing, the bucket still answered.
		_, err := s.media.Stat(ctx, blob.InstallationMarkerKey)
		if errors.Is(err, blob.ErrNotFound) {
			return nil
		}
		return err
	})
	s.health.Start(context.WithoutCancel(ctx))
}
