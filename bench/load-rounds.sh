#!/usr/bin/env bash
# Puts several clipperd binaries under `bench load` one after the other,
# in rounds, so each is measured beside the others under the same load:
#   bench/load-rounds.sh ROUNDS NAME=BIN [NAME=BIN ...]
# Prints one line per run: GETs per second, clipperd's CPU time per GET and
# its CPU time over 10 s with no request. Shortened idle phase (50
# connections, held 1 s): the descriptors are not what it compares.
set -euo pipefail
rounds=$1
shift
cd "$(dirname "$0")/.."
go build -o "${TMPDIR:-/tmp}/clipper-bench" ./bench
for r in $(seq "$rounds"); do
	for pair in "$@"; do
		name=${pair%%=*} bin=${pair#*=}
		out=$("${TMPDIR:-/tmp}/clipper-bench" load --clipperd "$bin" --idle 50 --hold 1s 2>/dev/null)
		printf 'round %s %s: %s load %s\n' "$r" "$name" \
			"$(grep -E 'GET requests per second|CPU time per GET|idle for' <<<"$out" | awk -F'|' '{printf "%s=%s;", $2, $3}')" \
			"$(cut -d' ' -f1 /proc/loadavg)"
	done
done
