package loadonce

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

var errBoom = errors.New("boom")

// shared is what the sequential cases run against: a Value, or one key of a
// Map, so both keep the same rules.
type shared interface {
	get(ctx context.Context, load func(context.Context) (string, error)) (string, error)
	invalidate()
}

type value struct{ v Value[string] }

func (s *value) get(ctx context.Context, load func(context.Context) (string, error)) (string, error) {
	return s.v.Get(ctx, load)
}
func (s *value) invalidate() { s.v.Invalidate() }

type mapKey struct{ m Map[string, string] }

func (s *mapKey) get(ctx context.Context, load func(context.Context) (string, error)) (string, error) {
	return s.m.Get(ctx, "k", load)
}
func (s *mapKey) invalidate() { s.m.Invalidate("k") }

type mapAll struct{ m Map[string, string] }

func (s *mapAll) get(ctx context.Context, load func(context.Context) (string, error)) (string, error) {
	return s.m.Get(ctx, "k", load)
}
func (s *mapAll) invalidate() { s.m.InvalidateAll() }

// step is one Get (expecting want or wantErr) or an Invalidate.
type step struct {
	invalidate bool
	want       string
	wantErr    error
}

func get(want string) step         { return step{want: want} }
func getErr(err error) step        { return step{wantErr: err} }
func invalidateStep() step         { return step{invalidate: true} }
func answers(a ...answer) []answer { return a }

type answer struct {
	v   string
	err error
}

func TestSequential(t *testing.T) {
	cases := []struct {
		name    string
		answers []answer // what each load returns, in order
		steps   []step
		loads   int
	}{
		{"kept after one load", answers(answer{v: "a"}),
			[]step{get("a"), get("a"), get("a")}, 1},
		{"an error is not kept", answers(answer{err: errBoom}, answer{v: "a"}),
			[]step{getErr(errBoom), get("a"), get("a")}, 2},
		{"a cancelled load is not kept", answers(answer{err: context.Canceled}, answer{v: "a"}),
			[]step{getErr(context.Canceled), get("a"), get("a")}, 2},
		{"invalidate loads again", answers(answer{v: "a"}, answer{v: "b"}),
			[]step{get("a"), invalidateStep(), get("b"), get("b")}, 2},
		{"invalidate of nothing kept", answers(answer{v: "a"}),
			[]step{invalidateStep(), get("a"), invalidateStep(), invalidateStep(), get("a")}, 2},
		{"the zero value is kept", answers(answer{v: ""}),
			[]step{get(""), get("")}, 1},
	}
	kinds := map[string]func() shared{
		"Value":             func() shared { return &value{} },
		"Map.Invalidate":    func() shared { return &mapKey{} },
		"Map.InvalidateAll": func() shared { return &mapAll{} },
	}
	for kind, mk := range kinds {
		for _, tc := range cases {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				s := mk()
				loads := 0
				load := func(context.Context) (string, error) {
					a := tc.answers[loads%len(tc.answers)]
					loads++
					return a.v, a.err
				}
				for i, st := range tc.steps {
					if st.invalidate {
						s.invalidate()
						continue
					}
					got, err := s.get(t.Context(), load)
					if !errors.Is(err, st.wantErr) || (st.wantErr == nil && err != nil) || got != st.want {
						t.Fatalf("step %d: got %q, %v; want %q, %v", i, got, err, st.want, st.wantErr)
					}
				}
				if loads != tc.loads {
					t.Fatalf("%d loads, want %d", loads, tc.loads)
				}
			})
		}
	}
}

// A Map keeps each key on its own.
func TestMapKeysAreIndependent(t *testing.T) {
	var m Map[string, string]
	loads := map[string]int{}
	getKey := func(k string) string {
		t.Helper()
		v, err := m.Get(t.Context(), k, func(context.Context) (string, error) {
			loads[k]++
			return fmt.Sprintf("%s%d", k, loads[k]), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		do   func()
		key  string
		want string
	}{
		{nil, "a", "a1"},
		{nil, "b", "b1"},
		{func() { m.Invalidate("a") }, "a", "a2"},
		{nil, "b", "b1"}, // b was not invalidated
		{func() { m.Invalidate("missing") }, "a", "a2"},
		{m.InvalidateAll, "b", "b2"},
		{nil, "a", "a3"},
	} {
		if c.do != nil {
			c.do()
		}
		if got := getKey(c.key); got != c.want {
			t.Fatalf("%s: got %q, want %q", c.key, got, c.want)
		}
	}
	m.InvalidateAll()
	if n := len(m.values); n != 0 {
		t.Fatalf("%d keys held after InvalidateAll", n)
	}
}

// loader hands each load to the test, which answers it; a load also ends
// when its context does.
type loader struct {
	started chan *pending
	count   atomic.Int32
}

type pending struct {
	answer chan answer
}

// errPanicNow, as an answer's error, makes the load panic.
var errPanicNow = errors.New("panic")

func newLoader() *loader { return &loader{started: make(chan *pending, 16)} }

func (l *loader) load(ctx context.Context) (string, error) {
	l.count.Add(1)
	p := &pending{answer: make(chan answer, 1)}
	l.started <- p
	select {
	case a := <-p.answer:
		if errors.Is(a.err, errPanicNow) {
			panic("load failed")
		}
		return a.v, a.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// next is the next load started.
func (l *loader) next(t *testing.T) *pending {
	t.Helper()
	select {
	case p := <-l.started:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no load started")
		return nil
	}
}

type got struct {
	v   string
	err error
}

// getAsync runs Get in its own goroutine; a panic of the load is recovered
// there and reported as an error.
func getAsync(ctx context.Context, v *Value[string], l *loader) <-chan got {
	ch := make(chan got, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- got{err: fmt.Errorf("panicked: %v", r)}
			}
		}()
		s, err := v.Get(ctx, l.load)
		ch <- got{s, err}
	}()
	return ch
}

func receive(t *testing.T, ch <-chan got) got {
	t.Helper()
	select {
	case g := <-ch:
		return g
	case <-time.After(10 * time.Second):
		t.Fatal("Get did not return")
		return got{}
	}
}

func expect(t *testing.T, ch <-chan got, want string, wantErr error) {
	t.Helper()
	g := receive(t, ch)
	if g.v != want || !errors.Is(g.err, wantErr) || (wantErr == nil && g.err != nil) {
		t.Fatalf("got %q, %v; want %q, %v", g.v, g.err, want, wantErr)
	}
}

// awaitWaiters checks, once every goroutine of the test's synctest bubble
// is blocked, that n readers wait for v's running load.
func awaitWaiters(t *testing.T, v *Value[string], n int) {
	t.Helper()
	synctest.Wait()
	v.mu.Lock()
	w := 0
	if v.loading != nil {
		w = v.loading.waiters
	}
	v.mu.Unlock()
	if w < n {
		t.Fatalf("%d readers wait, want %d", w, n)
	}
}

// leadAndWait starts a reader that loads (its load is p) and, once that load
// runs, one that waits for it.
func leadAndWait(t *testing.T, v *Value[string], l *loader, leadCtx, waitCtx context.Context) (lead <-chan got, p *pending, waiter <-chan got) {
	t.Helper()
	lead = getAsync(leadCtx, v, l)
	p = l.next(t)
	waiter = getAsync(waitCtx, v, l)
	awaitWaiters(t, v, 1)
	return lead, p, waiter
}

// loadsAnew checks that the next reader loads, and answers its load with want.
func loadsAnew(t *testing.T, v *Value[string], l *loader, want string) {
	t.Helper()
	ch := getAsync(t.Context(), v, l)
	l.next(t).answer <- answer{v: want}
	expect(t, ch, want, nil)
}

func TestConcurrent(t *testing.T) {
	cases := []struct {
		name  string
		run   func(t *testing.T, v *Value[string], l *loader)
		loads int32
	}{
		{"readers arriving during a load wait for it", func(t *testing.T, v *Value[string], l *loader) {
			lead, p, first := leadAndWait(t, v, l, t.Context(), t.Context())
			waiters := []<-chan got{first}
			for range 2 {
				waiters = append(waiters, getAsync(t.Context(), v, l))
			}
			awaitWaiters(t, v, 3)
			p.answer <- answer{v: "a"}
			expect(t, lead, "a", nil)
			for _, w := range waiters {
				expect(t, w, "a", nil)
			}
			expect(t, getAsync(t.Context(), v, l), "a", nil)
		}, 1},
		{"an invalidated load answers its readers, is not kept, and is not joined", func(t *testing.T, v *Value[string], l *loader) {
			old, pOld, oldWaiter := leadAndWait(t, v, l, t.Context(), t.Context())
			v.Invalidate()
			loadsAnew(t, v, l, "new")       // its own load, while the old one still runs
			pOld.answer <- answer{v: "old"} // ends last: must not replace "new"
			expect(t, old, "old", nil)
			expect(t, oldWaiter, "old", nil)
			expect(t, getAsync(t.Context(), v, l), "new", nil)
		}, 2},
		{"a load invalidated with no reader after it is dropped", func(t *testing.T, v *Value[string], l *loader) {
			old := getAsync(t.Context(), v, l)
			p := l.next(t)
			v.Invalidate()
			p.answer <- answer{v: "old"}
			expect(t, old, "old", nil)
			loadsAnew(t, v, l, "new")
		}, 2},
		{"a leader whose context ends does not fail its waiters", func(t *testing.T, v *Value[string], l *loader) {
			ctx, cancel := context.WithCancel(t.Context())
			lead, _, waiter := leadAndWait(t, v, l, ctx, t.Context())
			cancel()
			expect(t, lead, "", context.Canceled)
			l.next(t).answer <- answer{v: "a"} // the waiter loads itself
			expect(t, waiter, "a", nil)
			expect(t, getAsync(t.Context(), v, l), "a", nil)
		}, 2},
		{"a waiter whose context ends returns at once; the load goes on", func(t *testing.T, v *Value[string], l *loader) {
			ctx, cancel := context.WithCancel(t.Context())
			lead, p, waiter := leadAndWait(t, v, l, t.Context(), ctx)
			cancel()
			expect(t, waiter, "", context.Canceled)
			p.answer <- answer{v: "a"}
			expect(t, lead, "a", nil)
			expect(t, getAsync(t.Context(), v, l), "a", nil)
		}, 1},
		{"waiters share the leader's error, which is not kept", func(t *testing.T, v *Value[string], l *loader) {
			lead, p, waiter := leadAndWait(t, v, l, t.Context(), t.Context())
			p.answer <- answer{err: errBoom}
			expect(t, lead, "", errBoom)
			expect(t, waiter, "", errBoom)
			loadsAnew(t, v, l, "a")
		}, 2},
		{"a load that panics releases its waiters", func(t *testing.T, v *Value[string], l *loader) {
			lead, p, waiter := leadAndWait(t, v, l, t.Context(), t.Context())
			p.answer <- answer{err: errPanicNow}
			if g := receive(t, lead); g.err == nil {
				t.Fatal("the leader's panic was lost")
			}
			expect(t, waiter, "", errLoadPanicked)
			loadsAnew(t, v, l, "a")
		}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var v Value[string]
				l := newLoader()
				tc.run(t, &v, l)
				if n := l.count.Load(); n != tc.loads {
					t.Fatalf("%d loads, want %d", n, tc.loads)
				}
			})
		})
	}
}

// Map.Invalidate during a load: the running load is not kept, and a reader
// after it loads anew instead of joining it.
func TestMapInvalidateDuringLoad(t *testing.T) {
	for _, inv := range []struct {
		name string
		do   func(*Map[string, string])
	}{
		{"Invalidate", func(m *Map[string, string]) { m.Invalidate("k") }},
		{"InvalidateAll", func(m *Map[string, string]) { m.InvalidateAll() }},
	} {
		t.Run(inv.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var m Map[string, string]
				l := newLoader()
				getK := func() <-chan got {
					ch := make(chan got, 1)
					go func() {
						s, err := m.Get(t.Context(), "k", l.load)
						ch <- got{s, err}
					}()
					return ch
				}
				old := getK()
				pOld := l.next(t)
				inv.do(&m)
				fresh := getK()
				l.next(t).answer <- answer{v: "new"}
				expect(t, fresh, "new", nil)
				pOld.answer <- answer{v: "old"}
				expect(t, old, "old", nil)
				expect(t, getK(), "new", nil)
				if n := l.count.Load(); n != 2 {
					t.Fatalf("%d loads, want 2", n)
				}
			})
		})
	}
}
