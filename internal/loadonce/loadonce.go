// Package loadonce shares a value that is expensive to load (a listing read
// from the service) among concurrent readers: the first reader that finds it
// missing loads it, readers arriving meanwhile wait for that load, later
// readers take the kept result, and a write that makes it stale invalidates
// it, even while it loads.
//
// It has no Terraform imports: the API client's clip listings and the
// provider's collection listings both use it.
package loadonce

import (
	"context"
	"errors"
	"sync"
)

// Value is one value loaded once and shared. The zero Value is empty and
// ready to use; a Value must not be copied after first use.
//
// Each Invalidate starts a new generation: a load that began before it is
// answered to the readers that waited for it but is neither kept nor joined
// by later readers, since it may have missed the write that invalidated it.
// Errors are not kept; the next reader loads again.
type Value[T any] struct {
	mu      sync.Mutex
	gen     uint64 // bumped by Invalidate
	valid   bool   // value is the result of a load of generation gen
	value   T
	loading *call[T] // the latest load started, if it is still running
}

// call is one load and the readers waiting for it.
type call[T any] struct {
	gen     uint64
	done    chan struct{} // closed when value and err are set
	value   T
	err     error
	waiters int // readers that chose to wait for it, so tests can tell they arrived
}

// Get returns the value, loading it with load unless it is kept or a load of
// the current generation is running, in which case Get waits for that load
// (or for ctx to end). A load that ended because its reader's context ended
// says nothing about the readers that waited for it: a waiter whose own
// context is still live loads again.
func (v *Value[T]) Get(ctx context.Context, load func(context.Context) (T, error)) (T, error) {
	for {
		v.mu.Lock()
		if v.valid {
			val := v.value
			v.mu.Unlock()
			return val, nil
		}
		c := v.loading
		lead := c == nil || c.gen != v.gen
		if lead {
			c = &call[T]{gen: v.gen, done: make(chan struct{})}
			v.loading = c
		} else {
			c.waiters++
		}
		v.mu.Unlock()

		if lead {
			v.run(ctx, c, load)
			return c.value, c.err
		}
		select {
		case <-c.done:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
		if ctx.Err() == nil && cancelled(c.err) {
			continue
		}
		return c.value, c.err
	}
}

// run loads c and records its result; the deferred finish wakes the waiters
// even if load panics, so none of them hangs.
func (v *Value[T]) run(ctx context.Context, c *call[T], load func(context.Context) (T, error)) {
	c.err = errLoadPanicked
	defer v.finish(c)
	c.value, c.err = load(ctx)
}

// errLoadPanicked is what the waiters of a load that panicked get.
var errLoadPanicked = errors.New("loadonce: the load panicked")

// finish keeps c's result if it succeeded and nothing invalidated it since it
// began, and wakes its waiters.
func (v *Value[T]) finish(c *call[T]) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.loading == c {
		v.loading = nil
	}
	if c.err == nil && c.gen == v.gen {
		v.value, v.valid = c.value, true
	}
	close(c.done)
}

// Invalidate drops the kept value and starts a new generation.
func (v *Value[T]) Invalidate() {
	v.mu.Lock()
	defer v.mu.Unlock()
	var zero T
	v.gen++
	v.valid, v.value = false, zero
}

// Map is a Value per key, each loaded and invalidated on its own. The zero
// Map is empty and ready to use; a Map must not be copied after first use.
type Map[K comparable, T any] struct {
	mu     sync.Mutex
	values map[K]*Value[T]
}

// Get returns key's value as Value.Get does.
func (m *Map[K, T]) Get(ctx context.Context, key K, load func(context.Context) (T, error)) (T, error) {
	return m.entry(key).Get(ctx, load)
}

func (m *Map[K, T]) entry(key K) *Value[T] {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.values == nil {
		m.values = map[K]*Value[T]{}
	}
	v, ok := m.values[key]
	if !ok {
		v = &Value[T]{}
		m.values[key] = v
	}
	return v
}

// Invalidate drops key's value, including a load of it in progress. The key
// is forgotten: a Map invalidated as often as it is filled does not grow.
func (m *Map[K, T]) Invalidate(key K) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.values[key]; ok {
		// Readers that took v before this point may still load into it: the
		// new generation keeps their result out of v, and v is out of the map.
		v.Invalidate()
		delete(m.values, key)
	}
}

// InvalidateAll drops every key's value, including loads in progress.
func (m *Map[K, T]) InvalidateAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range m.values {
		v.Invalidate()
		delete(m.values, k)
	}
}

// cancelled reports whether err is a context's end rather than an answer.
func cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
