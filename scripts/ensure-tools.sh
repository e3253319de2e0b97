#!/usr/bin/env bash
# Installs what `make demo` and `make test` need on a fresh machine, or says
# exactly what to install where it cannot. Usage: ensure-tools.sh TOOL...
# Tools: ffmpeg fonts espeak-ng festival pocketsphinx tesseract chromium terraform golangci-lint
#        postgres minio (the scale-out tests' real servers)
set -euo pipefail

GOBIN="$(go env GOPATH)/bin"
export PATH="$GOBIN:$PATH"
TERRAFORM_VERSION=v1.5.7
GOLANGCI_VERSION=v2.15.0
# MinIO publishes no module versions, only commits: pinned to one. AGPL: a
# test server the scale-out tests start, never linked into clipperd.
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
# The role and database the PostgreSQL tests use (CLIPPERD_TEST_POSTGRES).
PG_TEST_URL="postgres://clipper:clipper@127.0.0.1:5432/clipper_test?sslmode=disable"
apt_updated=""

need_apt() { # package...
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    if [ -z "$apt_updated" ]; then
      echo ">> apt-get update" >&2
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
      apt_updated=1
    fi
    echo ">> apt-get install -y $*" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
  elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
  else
    echo "missing: $*. Install it and run again, e.g.: sudo apt-get install -y $*" >&2
    exit 1
  fi
}

terraform_ok() {
  command -v terraform >/dev/null || return 1
  local v
  v="$(terraform version 2>/dev/null | head -n1 | sed -n 's/^Terraform v\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')"
  [ -n "$v" ] || return 1
  set -- $v
  [ "$1" -gt 1 ] || { [ "$1" -eq 1 ] && [ "$2" -ge 5 ]; }
}

fonts_ok() {
  command -v fc-list >/dev/null || return 1
  local f
  for f in "DejaVu Sans" "Liberation Sans" "Open Sans" Lato Roboto "Noto Color Emoji"; do
    [ -n "$(fc-list ":family=$f" family)" ] || return 1
  done
}

for tool in "$@"; do
  case "$tool" in
    ffmpeg)
      command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || need_apt ffmpeg ;;
    fonts)
      # Caption fonts brand templates name (docs/guides/service-behaviour.md lists them),
      # and the colour emoji renderPref.enableEmoji draws.
      fonts_ok || need_apt fontconfig fonts-dejavu-core fonts-liberation2 fonts-open-sans fonts-lato fonts-roboto-unhinted fonts-noto-color-emoji ;;
    espeak-ng)
      command -v espeak-ng >/dev/null || need_apt espeak-ng ;;
    festival)
      # The HTS voice the test videos speak with: a recogniser understands it.
      { command -v festival >/dev/null && [ -d /usr/share/festival/voices/us/cmu_us_slt_arctic_hts ]; } ||
        need_apt festival festvox-us-slt-hts ;;
    pocketsphinx)
      { command -v pocketsphinx_continuous >/dev/null && [ -d /usr/share/pocketsphinx/model/en-us ]; } ||
        need_apt pocketsphinx pocketsphinx-en-us ;;
    tesseract)
      # OCR reads burnt-in captions back in the render tests.
      command -v tesseract >/dev/null || need_apt tesseract-ocr ;;
    chromium)
      # The gallery's browser tests drive a headless Chromium (chromedp).
      command -v chromium >/dev/null || need_apt chromium ;;
    terraform)
      # The acceptance tests use import blocks: Terraform 1.5 or later.
      if ! terraform_ok; then
        echo ">> go install github.com/hashicorp/terraform@$TERRAFORM_VERSION" >&2
        go install "github.com/hashicorp/terraform@$TERRAFORM_VERSION" >&2 || {
          echo "missing: terraform >= 1.5. Install it and put it on PATH." >&2; exit 1; }
      fi ;;
    golangci-lint)
      # Pinned: a golangci-lint built by an older Go refuses this module.
      if ! golangci-lint version 2>/dev/null | grep -q "version ${GOLANGCI_VERSION#v} "; then
        echo ">> go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_VERSION" >&2
        go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_VERSION" >&2 || {
          echo "missing: golangci-lint v2. See https://golangci-lint.run/welcome/install/" >&2; exit 1; }
      fi ;;
    postgres)
      # Debian's PostgreSQL, a cluster started with pg_ctlcluster (nothing
      # runs one for us) and a test role that may create the per-test
      # databases. Prints nothing else: the URL is $PG_TEST_URL.
      command -v pg_lsclusters >/dev/null && [ -n "$(pg_lsclusters -h 2>/dev/null)" ] || need_apt postgresql
      if [ "$(id -u)" = 0 ]; then as_pg="runuser -u postgres --"; else as_pg="sudo -n -u postgres"; fi
      read -r pg_ver pg_cluster pg_port pg_status _ <<<"$(pg_lsclusters -h | head -n1)"
      if [ "$pg_status" != online ]; then
        echo ">> pg_ctlcluster $pg_ver $pg_cluster start" >&2
        if [ "$(id -u)" = 0 ]; then pg_ctlcluster "$pg_ver" "$pg_cluster" start >&2; else sudo -n pg_ctlcluster "$pg_ver" "$pg_cluster" start >&2; fi
      fi
      [ "$pg_port" = 5432 ] || { echo "ensure-tools: PostgreSQL cluster listens on $pg_port, the tests expect 5432" >&2; exit 1; }
      $as_pg psql -qtAc "SELECT 1 FROM pg_roles WHERE rolname='clipper'" | grep -q 1 ||
        $as_pg psql -qc "CREATE ROLE clipper LOGIN CREATEDB PASSWORD 'clipper'" >&2
      $as_pg psql -qtAc "SELECT 1 FROM pg_database WHERE datname='clipper_test'" | grep -q 1 ||
        $as_pg psql -qc "CREATE DATABASE clipper_test OWNER clipper" >&2 ;;
    minio)
      # Built once per machine (about 7 minutes and 1.5 GB); the tests start
      # it on a loopback port with a temporary directory.
      if ! command -v minio >/dev/null; then
        echo ">> go install github.com/minio/minio@$MINIO_VERSION" >&2
        go install "github.com/minio/minio@$MINIO_VERSION" >&2 || {
          echo "missing: minio. Install it and put it on PATH." >&2; exit 1; }
      fi ;;
    *) echo "ensure-tools: unknown tool $tool" >&2; exit 2 ;;
  esac
done
