#!/usr/bin/env bash
# The long source on the single box, before and after (issue 30), side by
# side in one run:
#   bench/longsource.sh BEFORE_REV [AFTER_REV]
# builds `go run ./bench pipeline`'s binary of each git revision (a worktree
# of it under a temporary directory), makes the source once (a 60-minute
# 1280x720 talk with speech: the first build generates it, -keep-source),
# runs each build on that file (-source-file) with -pipeline-only, and
# prints both tables (create to COMPLETE, the plain ffmpeg commands making
# the same clips, the project's time in each stage) and the ratio of the
# create-to-COMPLETE times, AFTER over BEFORE. With BEFORE_REV alone it
# measures that one (the "before" half).
#
# Environment:
#   LONGSOURCE_MIN    the source's minutes (60)
#   LONGSOURCE_FILE   the source to use; when it does not exist, where to keep
#                     the one generated (default: in the temporary directory)
#   LONGSOURCE_PLAIN  0 skips the plain ffmpeg commands (clipperd alone)
#   LONGSOURCE_ASR    the in-process clipperd's recogniser (pocketsphinx; none)
#   LONGSOURCE_NICE   e.g. -10 (as root): each run in a session of its own
#                     whose scheduling group has that niceness, as
#                     CLIPPER_BENCH_NICE does for the worker benchmarks
# A revision whose bench has no -pipeline-only runs (a) once (-rounds 1).
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || {
	echo "usage: $0 BEFORE_REV [AFTER_REV]" >&2
	exit 2
}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clipper-longsource-XXXXXX")
worktrees=()
cleanup() {
	for w in "${worktrees[@]}"; do
		git -C "$repo" worktree remove --force "$w" || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

minutes=${LONGSOURCE_MIN:-60}
source=${LONGSOURCE_FILE:-$tmp/source-${minutes}m.mp4}
names=(before after)
revs=("$@")

# build REV NAME: the bench binary of REV at $tmp/bench-NAME.
build() {
	local dir=$tmp/src-$2
	git -C "$repo" worktree add --quiet --detach "$dir" "$1"
	worktrees+=("$dir")
	(cd "$dir" && go build -o "$tmp/bench-$2" ./bench)
}

# flags BIN: the pipeline flags of this run, on one line; it fails when
# BIN's bench lacks one the environment asks for.
flags() {
	local help out
	help=$("$1" pipeline -h 2>&1 || true)
	if grep -q -- -pipeline-only <<<"$help"; then
		out=-pipeline-only
	else
		out="-rounds 1"
	fi
	if [ "${LONGSOURCE_PLAIN:-1}" = 0 ]; then
		grep -q -- '-plain' <<<"$help" || { echo "$1: no -plain flag (LONGSOURCE_PLAIN=0)" >&2; return 1; }
		out+=" -plain=false"
	fi
	if [ -n "${LONGSOURCE_ASR:-}" ]; then
		grep -q -- '-asr' <<<"$help" || { echo "$1: no -asr flag (LONGSOURCE_ASR)" >&2; return 1; }
		out+=" -asr $LONGSOURCE_ASR"
	fi
	echo "$out"
}

# run BIN ARGS...: BIN pipeline ARGS, at LONGSOURCE_NICE when set.
run() {
	local bin=$1
	shift
	if [ -n "${LONGSOURCE_NICE:-}" ]; then
		# A new session is a new scheduling group (autogroup): its niceness
		# weighs it against the other sessions of a shared machine.
		setsid bash -c 'echo "$1" >/proc/self/autogroup && shift && exec "$@"' _ "$LONGSOURCE_NICE" "$bin" pipeline "$@"
	else
		"$bin" pipeline "$@"
	fi
}

for i in "${!revs[@]}"; do
	build "${revs[$i]}" "${names[$i]}"
done

for i in "${!revs[@]}"; do
	name=${names[$i]} bin=$tmp/bench-${names[$i]}
	if [ -f "$source" ]; then
		src=(-source-file "$source")
	else
		src=(-source "${minutes}m" -keep-source "$source")
	fi
	line=$(flags "$bin")
	read -ra args <<<"$line"
	echo "## ${name^^}: ${revs[$i]} ($(git -C "$repo" rev-parse --short "${revs[$i]}")), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "\$ bench pipeline ${args[*]} ${src[*]}"
	echo
	run "$bin" "${args[@]}" "${src[@]}" 2>&1 | tee "$tmp/out-$name"
	echo "(ended $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo
done

# pipelineTime OUT: the create-to-COMPLETE seconds of a run's table.
pipelineTime() {
	awk -F'|' '/clipperd pipeline, create to COMPLETE/ { gsub(/[ s]/, "", $3); print $3 }' "$1"
}
if [ ${#revs[@]} = 2 ]; then
	before=$(pipelineTime "$tmp/out-before") after=$(pipelineTime "$tmp/out-after")
	awk -v b="$before" -v a="$after" 'BEGIN { printf "create to COMPLETE: before %.1f s, after %.1f s, after/before **%.2f**\n", b, a, a / b }'
fi
