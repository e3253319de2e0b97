package main

import (
	"slices"
	"testing"
	"time"
)

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// The joint bound against hand-computed cases at the default limits: 4
// slots, 30 calls a minute, 3 calls per project.
func TestJointBound(t *testing.T) {
	s := time.Second
	cases := []struct {
		name  string
		times []time.Duration
		want  time.Duration
	}{
		// 60 calls: the 30th needs 9 finished (4+3*8 = 28 < 30), which takes
		// 3 rounds of 15 s on 4 slots; the 60th comes a minute after it.
		// Each limit alone: max(75 s, 60 s) = 75 s.
		{"20 of 15 s: both limits together", repeat(15*s, 20), 105 * s},
		// 24 calls, one window: the cap alone, two rounds.
		{"8 of 15 s: the cap", repeat(15*s, 8), 30 * s},
		// The 30th call at 3 rounds (180 s) + 60 s is under 5 rounds.
		{"20 of 60 s: the cap decides", repeat(60*s, 20), 300 * s},
		// One slot runs two projects: 20 s, not sum/4 = 12.5 s.
		{"5 of 10 s: whole projects on a slot", repeat(10*s, 5), 20 * s},
		// The 30th call needs the 9 shortest (15 s each) finished, not the
		// two long ones: 45 s + 60 s. All 20 take 90 s on 4 slots.
		{"18 of 15 s and 2 of 40 s", append(repeat(15*s, 18), 40*s, 40*s), 105 * s},
		{"none", nil, 0},
	}
	for _, c := range cases {
		if got := jointBound(c.times, 4, 30, 3, 0, time.Minute); got != c.want {
			t.Errorf("%s: joint bound %v, want %v", c.name, got, c.want)
		}
	}
}

// Calls beyond the least: 20 projects of 15 s take 105 s with their 60
// calls, 120 s with 61 to 64 (call 61 goes two minutes after call 1, and
// the first four calls can all go at once), and still 120 s with 10 more,
// since the relaxation lets extra calls go at the start; 30 more make a
// third minute. 8 projects have room for 6 extra calls in one window.
func TestJointBoundWithExtraCalls(t *testing.T) {
	s := time.Second
	cases := []struct {
		name  string
		times []time.Duration
		extra int
		want  time.Duration
	}{
		{"20 of 15 s, 60 calls", repeat(15*s, 20), 0, 105 * s},
		{"20 of 15 s, 61 calls", repeat(15*s, 20), 1, 120 * s},
		{"20 of 15 s, 64 calls", repeat(15*s, 20), 4, 120 * s},
		{"20 of 15 s, 70 calls", repeat(15*s, 20), 10, 120 * s},
		{"20 of 15 s, 91 calls", repeat(15*s, 20), 31, 180 * s},
		{"8 of 15 s, 30 calls", repeat(15*s, 8), 6, 30 * s},
		// 31 calls: call 31 a minute after call 1, at 60 s.
		{"8 of 15 s, 31 calls", repeat(15*s, 8), 7, 60 * s},
	}
	for _, c := range cases {
		if got := jointBound(c.times, 4, 30, 3, c.extra, time.Minute); got != c.want {
			t.Errorf("%s: bound %v, want %v", c.name, got, c.want)
		}
	}
}

// The search finds schedules the greedy one misses: 3,3,2,2,2 on two slots
// is 7 longest first, 6 at best (3+3, 2+2+2).
func TestMakespanBeatsGreedy(t *testing.T) {
	s := time.Second
	times := []time.Duration{3 * s, 3 * s, 2 * s, 2 * s, 2 * s}
	if g := greedy(times, 2); g != 7*s {
		t.Fatalf("greedy %v, want 7s (the case needs greedy to miss)", g)
	}
	if got := makespan(times, 2); got != 6*s {
		t.Fatalf("makespan %v, want 6s", got)
	}
}

// Measured times are all different: the search agrees with trying every
// assignment of 9 of them to 3 slots.
func TestMakespanMatchesExhaustive(t *testing.T) {
	for seed := range 20 {
		var times []time.Duration
		for i := range 9 {
			times = append(times, time.Duration(10_000+(seed*7919+i*i*104_729)%9_000)*time.Millisecond)
		}
		if got, want := makespan(times, 3), exhaustiveMakespan(times, 3); got != want {
			t.Errorf("times %v: makespan %v, want %v", times, got, want)
		}
	}
}

func exhaustiveMakespan(times []time.Duration, slots int) time.Duration {
	best := time.Duration(1<<63 - 1)
	assign := make([]int, len(times))
	for {
		loads := make([]time.Duration, slots)
		for i, k := range assign {
			loads[k] += times[i]
		}
		best = min(best, slices.Max(loads))
		i := 0
		for i < len(assign) && assign[i] == slots-1 {
			assign[i] = 0
			i++
		}
		if i == len(assign) {
			return best
		}
		assign[i]++
	}
}
