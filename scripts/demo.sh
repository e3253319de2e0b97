#!/usr/bin/env bash
# make demo: build the provider and clipperd, start clipperd with a generated
# sample video, apply examples/quickstart through a dev_overrides CLI config
# (nothing is downloaded from a registry): clips and a collection; show the
# clips; connect a social account and apply again to schedule the first clip a
# minute ahead; wait for it to publish and show the post. clipperd keeps
# running for its gallery (/ui/) until `make demo-stop` (`demo.sh stop`), the
# next `make demo` or `make clean`; DEMO_STOP=1 stops it at the end instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.demo"
port="${CLIPPERD_PORT:-8787}"
metrics_port="${CLIPPERD_METRICS_PORT:-9787}"
duration="${DEMO_DURATION:-150s}"

# stop_previous stops the clipperd an earlier demo left running (its pid is
# in .demo/clipperd.pid), checking first that the pid is still a clipperd.
stop_previous() {
  local pidfile="$work/clipperd.pid" pid
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  # Only a clipperd serving this demo's data: a reused pid is left alone.
  if [ -n "$pid" ] && ps -p "$pid" -o args= 2>/dev/null | grep -qF -- "--data $work/data"; then
    kill "$pid" 2>/dev/null || true
    # Its graceful stop takes up to 10 s.
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "the demo's clipperd (pid $pid) did not stop; stop it, then run make demo again" >&2
      exit 1
    fi
    echo "stopped the demo's clipperd (pid $pid)"
  fi
  rm -f "$pidfile"
}

# port_busy reports whether something listens on 127.0.0.1:$1.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if [ "${1:-}" = stop ]; then
  stop_previous
  exit 0
fi

stop_previous
# The ports are checked before .demo is emptied: what holds them may be a
# clipperd started by hand on .demo/data, whose data must not vanish.
if port_busy "$port"; then
  echo "port $port is busy: stop what listens there (a clipperd serving .demo/data?) or run CLIPPERD_PORT=NNNN make demo" >&2
  exit 1
fi
if port_busy "$metrics_port"; then
  echo "port $metrics_port (metrics) is busy: stop what listens there or run CLIPPERD_METRICS_PORT=NNNN make demo" >&2
  exit 1
fi
rm -rf "$work" && mkdir -p "$work"
echo "== building the provider and clipperd"
make -s -C "$root" build

echo "== generating a $duration sample video with speech (festival, else espeak-ng) and scene cuts"
"$root/bin/clipperd" sample --out "$work/sample.mp4" --duration "$duration" --width 1280 --height 720

key="demo-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
echo "== starting clipperd on 127.0.0.1:$port (log: .demo/clipperd.log)"
CLIPPERD_API_KEY="$key" "$root/bin/clipperd" serve --listen "127.0.0.1:$port" --metrics-listen "127.0.0.1:$metrics_port" --data "$work/data" </dev/null >"$work/clipperd.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if port_busy "$port"; then break; fi
  kill -0 "$pid" 2>/dev/null || { cat "$work/clipperd.log"; exit 1; }
  sleep 0.1
done

cat >"$work/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "registry.terraform.io/clipperhq/clipper" = "$root/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc" TF_IN_AUTOMATION=1
export CLIPPER_API_KEY="$key" CLIPPER_BASE_URL="http://127.0.0.1:$port"

cp -r "$root/examples/quickstart" "$work/tf"
cd "$work/tf"
echo "== terraform apply examples/quickstart"
terraform apply -auto-approve -input=false -no-color -var "source_file=$work/sample.mp4"

echo
echo "== the clips clipperd made (each file probed with ffprobe to show it plays)"
# The addresses are signed (?expires=...&sig=...); JSON output writes their & as \u0026.
terraform output -json clips | grep -o '"uri_for_export":"[^"]*"' | cut -d'"' -f4 | sed 's/\\u0026/\&/g' | while read -r url; do
  [ -n "$url" ] || continue
  info="$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height,codec_name:format=duration \
    -of default=noprint_wrappers=1:nokey=1 "$url" | tr '\n' ' ')"
  echo "$url  ->  $info"
done
echo
echo "== connecting a YOUTUBE account that publishes to .demo/data/published"
account="$("$root/bin/clipperd" accounts connect --data "$work/data" --org org-dev --platform YOUTUBE --name "Demo channel" | awk '{print $NF}')"
# A minute from now, once the clips exist: the schedule's time must still be
# ahead when the apply creates it.
publish_at="$(date -u -d '+60 seconds' +%Y-%m-%dT%H:%M:%SZ)"
echo "== terraform apply again: schedule the first clip to $account at $publish_at"
terraform apply -auto-approve -input=false -no-color -var "source_file=$work/sample.mp4" \
  -var "post_account_id=$account" -var "publish_at=$publish_at"

echo
echo "== waiting for the schedule to publish the first clip at $publish_at"
published=""
for _ in $(seq 1 180); do
  published="$(ls -d "$work/data/published/$account"/*/ 2>/dev/null | head -n 1 || true)"
  [ -n "$published" ] && [ -f "$published/post.json" ] && break
  published=""
  sleep 1
done
if [ -z "$published" ]; then
  echo "nothing was published by $(date -u +%H:%M:%S); see .demo/clipperd.log" >&2
  exit 1
fi
echo "published to ${published#"$root"/}:"
cat "$published/post.json"; echo
echo "clip.mp4 -> $(ffprobe -v error -select_streams v:0 -show_entries stream=width,height,codec_name:format=duration \
  -of default=noprint_wrappers=1:nokey=1 "$published/clip.mp4" | tr '\n' ' ')"
echo
echo "State and files stay in .demo/ (clipperd data: .demo/data)."
echo
echo "== the gallery: http://127.0.0.1:$port/ui/"
echo "   log in with the API key $key"
echo "== its Prometheus metrics: http://127.0.0.1:$metrics_port/metrics"
if [ -n "${DEMO_STOP:-}" ] && [ "${DEMO_STOP}" != 0 ]; then
  echo "clipperd stops now (DEMO_STOP is set). To browse the gallery, start it again with:"
  echo "  bin/clipperd serve --listen 127.0.0.1:$port --metrics-listen 127.0.0.1:$metrics_port --data .demo/data"
  exit 0
fi
# clipperd outlives the script: no stop on exit from here on.
trap - EXIT
echo "$pid" >"$work/clipperd.pid"
echo "clipperd keeps running for it (pid $pid, log .demo/clipperd.log). Stop it with: make demo-stop"
echo "Later, start it again on the same data (the key is kept there) with:"
echo "  bin/clipperd serve --listen 127.0.0.1:$port --metrics-listen 127.0.0.1:$metrics_port --data .demo/data"
