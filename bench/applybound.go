package main

import (
	"slices"
	"time"
)

// The joint lower bound of an apply: the two limits together, not each alone.
//
// Every project needs three calls to the rate-limited routes at the least:
// its create, the poll that finds it COMPLETE and the listing of its clips.
// Number them in the order they go, call 1 to call 3N.
//
//   - The rate window: clipperd admits a request iff fewer than 30 were
//     admitted in the 60 s before it (a sliding window, (now-60s, now]), so
//     call j+30 cannot go before call j + 60 s, and call 3N not before call
//     3N-30m + m minutes, for every m.
//   - The concurrent cap: by time t at most C(t) projects can be COMPLETE,
//     C(t) being the most of the measured processing times that fit in 4
//     slots of length t (the n shortest fit if any n do). A create needs a
//     free slot (at most 4 + C(t) creates), a final poll and a listing need
//     a finished project (at most C(t) each): at most min(N, 4+C(t)) + 2C(t)
//     calls by t. Call j cannot go before F(j), the least t where that
//     reaches j, which is the shortest time the c(j) shortest projects take
//     on 4 slots (c(j) the fewest finished projects allowing j calls).
//
// Together: the apply cannot end before max over m of F(3N-30m) + m minutes.
// m = 0 is the cap's bound (all N on 4 slots), the largest m with a
// positive index is the rate window's alone. It is a relaxation (creates,
// polls and listings go the instant they may, processing times as measured),
// not a schedule, so no client can beat it; it is larger than either bound
// alone when short projects make the calls of the first minute wait for
// finishes: with 15 s projects, 20 of them, at most 8 are COMPLETE before
// 45 s, so the 30th call goes at 45 s at the earliest and the 60th at 105 s.
//
// extra counts calls beyond the least (a run's early polls, say), let go
// at any time, even before the first create: the bound is then the least
// time an apply making that many calls can take. It grows by up to a
// window per perWindow extra calls: with 20 projects of 15 s, 61 to 64
// calls take 120 s at the least, since call 61 goes two minutes after call 1.
func jointBound(times []time.Duration, slots, perWindow, callsPerProject, extra int, window time.Duration) time.Duration {
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	n := len(sorted)
	calls := n*callsPerProject + extra
	var bound time.Duration
	for m := 0; calls-m*perWindow >= 1; m++ {
		c := finishedFor(calls-m*perWindow-extra, n, slots, callsPerProject)
		bound = max(bound, makespan(sorted[:c], slots)+time.Duration(m)*window)
	}
	return bound
}

// finishedFor is the fewest finished projects out of n that allow j calls:
// creates up to the free slots, and the other calls of each finished project.
func finishedFor(j, n, slots, callsPerProject int) int {
	for c := 0; c < n; c++ {
		if min(n, slots+c)+(callsPerProject-1)*c >= j {
			return c
		}
	}
	return n
}

// makespanBudget caps the exact search; past it the simple bound of the
// cap, max(longest, sum/slots), is used, which is lower but still a bound.
const makespanBudget = 2_000_000

// makespan is the shortest time the given processing times take on slots
// running side by side (each slot one project after another): a branch and
// bound over the assignments, longest first, from the greedy schedule down
// to the simple bound.
func makespan(times []time.Duration, slots int) time.Duration {
	if len(times) == 0 {
		return 0
	}
	desc := slices.Clone(times)
	slices.SortFunc(desc, func(a, b time.Duration) int { return int(b - a) })
	var sum time.Duration
	for _, t := range desc {
		sum += t
	}
	simple := max(desc[0], (sum+time.Duration(slots)-1)/time.Duration(slots))
	s := makespanSearch{times: desc, loads: make([]time.Duration, slots), best: greedy(desc, slots), floor: simple}
	s.left = sum
	s.place(0, 0)
	if s.nodes > makespanBudget {
		return simple
	}
	return s.best
}

type makespanSearch struct {
	times       []time.Duration // longest first
	loads       []time.Duration // per slot
	left        time.Duration   // sum of times not yet placed
	best, floor time.Duration   // best schedule found; no schedule is shorter than floor
	nodes       int
}

// place puts times[i:] on the slots, worst being the longest load so far,
// looking only for schedules shorter than the best found.
func (s *makespanSearch) place(i int, worst time.Duration) {
	s.nodes++
	if s.best == s.floor || s.nodes > makespanBudget {
		return
	}
	if i == len(s.times) {
		s.best = min(s.best, worst)
		return
	}
	if !s.roomFor(s.times[len(s.times)-1]) {
		return
	}
	t := s.times[i]
	s.left -= t
	for k, load := range s.loads {
		if load+t >= s.best || slices.Contains(s.loads[:k], load) {
			continue // too long, or the same as a slot already tried
		}
		s.loads[k] = load + t
		s.place(i+1, max(worst, load+t))
		s.loads[k] = load
	}
	s.left += t
}

// roomFor reports whether what is left fits under the best schedule in
// the slots that can still take the shortest time left.
func (s *makespanSearch) roomFor(shortest time.Duration) bool {
	var room time.Duration
	for _, load := range s.loads {
		if load+shortest < s.best {
			room += s.best - 1 - load
		}
	}
	return room >= s.left
}

// greedy is the makespan of placing each time, longest first, on the
// least loaded slot: a schedule that exists, so the search starts there.
func greedy(desc []time.Duration, slots int) time.Duration {
	loads := make([]time.Duration, slots)
	for _, t := range desc {
		k := 0
		for j := range loads {
			if loads[j] < loads[k] {
				k = j
			}
		}
		loads[k] += t
	}
	return slices.Max(loads)
}
