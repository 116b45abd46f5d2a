#!/usr/bin/env bash
# openspec.sh — jj-openspec against the real openspec CLI on the same
# repository, side by side: `archive CHANGE --yes` and `list --json`.
# Prints the mean wall time of each and the speed-up (target: >= 10x).
# Run by `make bench`; needs openspec on PATH (make tools installs it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${BENCH_RUNS:-10}"

if ! command -v openspec >/dev/null 2>&1; then
  if [ -n "${REQUIRE_OPENSPEC:-}" ]; then
    echo "openspec.sh: openspec not on PATH (run make tools)" >&2; exit 1
  fi
  echo "openspec.sh: skipped: openspec not on PATH (make tools installs it when npm is present)"
  exit 0
fi
export OPENSPEC_TELEMETRY=0 DO_NOT_TRACK=1 OPENSPEC_NO_UPDATE_CHECK=1 CI=1 NO_COLOR=1

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && CGO_ENABLED="${CGO:-$(sed -n 's/^CGO *:*= *//p' Makefile)}" go build -trimpath -tags "${TAGS:-$(sed -n 's/^TAGS *:*= *//p' Makefile)}" -o "$tmp/bin/jj-openspec" ./cmd/jj-openspec)
jjo="$tmp/bin/jj-openspec"
# Keep openspec away from the user's configuration (after the build, which
# needs the user's Go caches).
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share"
mkdir -p "$HOME"

# A repository with 30 capabilities of 12 requirements each and 10 changes,
# each change modifying, adding and removing requirements in 3 specs.
repo="$tmp/repo"
bash "$here/openspec-repo" "$repo" 30 12 10

now_ns() { date +%s%N; }

# time_archive CMD...: mean microseconds over $runs runs, each on a fresh copy.
time_archive() {
  local total=0 i start end
  for i in $(seq 1 "$runs"); do
    rm -rf "$tmp/run"; cp -r "$repo" "$tmp/run"
    start=$(now_ns)
    (cd "$tmp/run" && "$@" >/dev/null 2>&1)
    end=$(now_ns)
    total=$(( total + end - start ))
  done
  echo $(( total / runs / 1000 ))
}
time_list() {
  local total=0 i start end
  for i in $(seq 1 "$runs"); do
    start=$(now_ns)
    (cd "$repo" && "$@" >/dev/null 2>&1)
    end=$(now_ns)
    total=$(( total + end - start ))
  done
  echo $(( total / runs / 1000 ))
}

os_archive=$(time_archive openspec archive change-05 --yes)
jj_archive=$(time_archive "$jjo" archive change-05 --yes)
os_list=$(time_list openspec list --json)
jj_list=$(time_list "$jjo" list --json)

# Both must have produced the same specs for the comparison to mean anything.
rm -rf "$tmp/a" "$tmp/b"; cp -r "$repo" "$tmp/a"; cp -r "$repo" "$tmp/b"
(cd "$tmp/a" && openspec archive change-05 --yes >/dev/null 2>&1)
(cd "$tmp/b" && "$jjo" archive change-05 --yes >/dev/null 2>&1)
if ! diff -r "$tmp/a/openspec" "$tmp/b/openspec" >/dev/null; then
  echo "openspec.sh: jj-openspec and openspec archived change-05 differently" >&2
  diff -r "$tmp/a/openspec" "$tmp/b/openspec" >&2 || true
  exit 1
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 1; printf "%.1f", a / b }'; }
printf '\nOpenSpec parity benchmark (%s runs, 30 specs x 12 requirements, 10 changes; openspec %s)\n' "$runs" "$(openspec --version)"
printf '%-16s %14s %14s %9s\n' "command" "openspec (us)" "jj-openspec (us)" "speed-up"
for row in "archive --yes:$os_archive:$jj_archive" "list --json:$os_list:$jj_list"; do
  IFS=: read -r name a b <<<"$row"
  r=$(ratio "$a" "$b")
  verdict=$(awk -v r="$r" 'BEGIN { print (r >= 10 ? "ok (>= 10x)" : "MISSED target 10x") }')
  printf '%-16s %14s %14s %8sx  %s\n' "$name" "$a" "$b" "$r" "$verdict"
done
