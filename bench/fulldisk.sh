#!/bin/bash
# bench/fulldisk.sh BIN OUTDIR [media-only]: clipperd serve on a full 48 MB tmpfs (root: it
# mounts one; media-only: the data on the disk, the media on the full tmpfs). IDLE seconds (60)
# full with nothing in flight, then BUSY seconds (120) full with a project in flight (filled at
# RENDER), a pending post and a pending webhook delivery (both to a closed port). OUTDIR/phases
# has each phase's times and clipperd's CPU in clock ticks; count lines with
# grep -E 'level=(ERROR|WARN)' OUTDIR/serve.log between those times.
set -u
bin=$1 out=$2 mode=${3:-all}
mkdir -p "$out"; mnt=/tmp/fd-mnt-$$; mm=/tmp/fd-media-$$
mkdir -p $mnt $mm; mount -t tmpfs -o size=48m tmpfs $mnt
data=$mnt/data; media=$data
if [ "$mode" = media-only ]; then data=/tmp/fd-data-$$; mount -t tmpfs -o size=48m tmpfs $mm; media=$mm/media; fi
mkdir -p $data $media
key=devkey-0123456789abcdef0123456789abcdef; port=$((20000 + $$ % 10000)); base=http://127.0.0.1:$port
"$bin" sample --out $out/talk.mp4 --duration 40s --width 320 --height 240 >/dev/null
dead=http://127.0.0.1:1
hookaccount=$("$bin" accounts connect --data "$data" --org org-dev --platform LINKEDIN --name feed --publish-to "webhook:$dead/posts" | awk '{print $NF}')
CLIPPERD_API_KEY=$key "$bin" serve --listen 127.0.0.1:$port --metrics-listen off --data $data --media $media --allow-private-webhooks --rate-limit 100000 2>$out/serve.log &
pid=$!
for _ in $(seq 100); do curl -sf $base/healthz >/dev/null && break; sleep 0.1; done
api() { curl -sS -X "$1" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' ${3:+--data "$3"} "$base$2"; }
cpu() { awk '{print $14+$15}' /proc/$pid/stat; }
fill() { dd if=/dev/zero of=$1/fill bs=1M 2>/dev/null; dd if=/dev/zero of=$1/fill2 bs=4k 2>/dev/null; true; }
upload() {
  link=$(api POST /api/upload-links '{"video":{"usecase":"LocalUpload"}}')
  up=$(jq -r .data.uploadId <<<"$link")
  sess=$(curl -sS -D - -o /dev/null -X POST -H 'x-store-resumable: start' "$(jq -r .data.url <<<"$link")" | tr -d '\r' | awk 'tolower($1)=="location:" {print $2}')
  size=$(stat -c %s $out/talk.mp4)
  curl -sS -X PUT -H "Content-Range: bytes 0-$((size - 1))/$size" -H 'Content-Type: application/octet-stream' --data-binary @$out/talk.mp4 "$sess" >/dev/null
  echo $up
}
project() { api POST /api/clip-projects "{\"videoUrl\":\"$1\",\"title\":\"t\",\"curationPref\":{\"clipDurations\":[[4,10]]},\"conclusionActions\":[{\"type\":\"WEBHOOK\",\"url\":\"$dead/hook\"}]}" | tee -a $out/creates | jq -r .id; }
stage() { api GET /api/clip-projects/$1 | jq -r .stage; }
# idle: full disk, nothing in flight
sleep 3; fill $mnt; [ "$mode" = media-only ] && fill $mm
echo "idle start $(date -u +%T) cpu=$(cpu)" >>$out/phases; sleep ${IDLE:-60}; echo "idle end $(date -u +%T) cpu=$(cpu)" >>$out/phases
rm -f $mnt/fill $mnt/fill2 $mm/fill $mm/fill2
# a finished project, a post to a dead webhook (pending), a second project in flight
u=$(upload); a=$(project $u)
for _ in $(seq 600); do s=$(stage $a); case $s in COMPLETE|FAILED|STALLED) break;; esac; sleep 0.5; done
echo "first project $a $s" >>$out/phases
for _ in $(seq 50); do cur=$(api GET "/api/exportable-clips?q=findByProjectId&projectId=$a" | jq -r '.[0].curationId // empty'); [ -n "$cur" ] && break; sleep 0.2; done
api POST /api/post-tasks "{\"projectId\":\"$a\",\"clipId\":\"$cur\",\"postAccountId\":\"$hookaccount\",\"postDetail\":{\"title\":\"p\",\"mediaType\":\"VIDEO\",\"custom\":{\"description\":\"d\"}}}" >>$out/phases; echo >>$out/phases
b=$(project $u); echo "create b: $b" >>$out/phases
for _ in $(seq 200); do s=$(stage $b); case $s in RENDER|COMPLETE|FAILED|STALLED) break;; esac; sleep 0.2; done
fill $mnt; [ "$mode" = media-only ] && fill $mm
echo "busy start $(date -u +%T) cpu=$(cpu) project=$b stage=$s" >>$out/phases; sleep ${BUSY:-120}; echo "busy end $(date -u +%T) cpu=$(cpu) stage=$(stage $b)" >>$out/phases
kill $pid; wait $pid
umount $mnt; [ "$mode" = media-only ] && umount $mm; rm -rf /tmp/fd-data-$$
