#!/usr/bin/env bash
# startup.sh — what one call of each binary costs, side by side, in one run:
#  1. `--version` of each binary against a minimal Go program built here
#     (ceilings: within 2.5x, gh-specstack within 3.5x);
#  2. jj-openspec `list --json`, `validate CHANGE --strict`, OpenSpec's
#     `status --change CHANGE --json`, `show CHANGE`, `show CHANGE --json`,
#     `show SPEC --type spec --json --no-scenarios` (OpenSpec's skills'
#     form), `instructions ARTIFACT --change CHANGE --json` and
#     `instructions apply --change CHANGE --json` against the
#     real openspec CLI on a generated repository of ~600 OpenSpec files
#     (target: at least 60x faster), jj-openspec run 10 times a round;
#  3. jj-kaisen's polled step verbs, `status --json` and `collect`, in a
#     jj repository with a fanned-out wave, next to one bare jj call.
# Times are wall clock, measured by testdata/bench/timeit with the commands
# interleaved round by round; ratios compare the fastest runs (a loaded
# machine only ever adds time), medians are printed alongside.
# Run by `make bench`; needs jj (and openspec for part 2) on PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${BENCH_RUNS:-200}"     # --version rounds
big_runs="${BENCH_BIG_RUNS:-10}" # rounds against the openspec CLI
tags="${TAGS:-$(sed -n 's/^TAGS *:*= *//p' "$root/Makefile")}"
cgo="${CGO:-$(sed -n 's/^CGO *:*= *//p' "$root/Makefile")}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/bin"
mkdir -p "$bin" "$tmp/hello"
(cd "$root" && go build -o "$bin/timeit" ./testdata/bench/timeit &&
  CGO_ENABLED="$cgo" go build -trimpath -tags "$tags" -o "$bin/" ./cmd/...)
# The floor: a Go program that prints one line, as --version does.
cat > "$tmp/hello/main.go" <<'EOF'
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Fprintln(os.Stdout, "hello version 1") }
EOF
printf 'module hello\n\ngo 1.22\n' > "$tmp/hello/go.mod"
(cd "$tmp/hello" && GOWORK=off GOFLAGS=-mod=mod go build -trimpath -o "$bin/minimal-go" .)
# Keep every tool away from the user's configuration (after the builds,
# which need the user's Go caches).
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share"
export JJ_CONFIG="$tmp/jj.toml" JJ_USER=bench JJ_EMAIL=bench@example.com TMPDIR="$tmp"
export OPENSPEC_TELEMETRY=0 DO_NOT_TRACK=1 OPENSPEC_NO_UPDATE_CHECK=1 CI=1 NO_COLOR=1
mkdir -p "$HOME"
: > "$JJ_CONFIG"

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 1; printf "%.1f", a / b }'; }
# row LABEL MIN MEDIAN BASE_MIN BASE_MEDIAN: one line of a table.
row() { printf '  %-28s %9s %9s %8sx %8sx\n' "$1" "$(ms "$2")" "$(ms "$3")" "$(ratio "$2" "$4")" "$(ratio "$3" "$5")"; }
header() { printf '  %-28s %9s %9s %9s %9s\n' "command" "min ms" "med ms" "min/$1" "med/$1"; }
get() { awk -v l="$1" -F'\t' '$1 == l { print $2, $3 }' "$2"; }

# 1. --version against the minimal Go program.
"$bin/timeit" -n "$runs" -C "$tmp" \
  minimal "$bin/minimal-go" -- \
  jj-openspec "$bin/jj-openspec" --version -- \
  jj-kaisen "$bin/jj-kaisen" --version -- \
  gh-specstack "$bin/gh-specstack" --version > "$tmp/version.tsv"
read -r base_min base_med < <(get minimal "$tmp/version.tsv")
printf '\nStart-up: --version against a minimal Go program (%s interleaved runs each)\n' "$runs"
header "go"
row "minimal Go program" "$base_min" "$base_med" "$base_min" "$base_med"
# Ceilings: jj-openspec and jj-kaisen within 2.5x; gh-specstack, which links
# net/http, TLS, go-gh and go-git, within 3.5x.
missed=0
for b in jj-openspec:2.5 jj-kaisen:2.5 gh-specstack:3.5; do
  read -r a m < <(get "${b%%:*}" "$tmp/version.tsv")
  row "${b%%:*} --version" "$a" "$m" "$base_min" "$base_med"
  awk -v a="$a" -v b="$base_min" -v x="${b#*:}" 'BEGIN { exit !(a > x * b) }' && missed=1
done
if [ "$missed" = 1 ]; then echo "  MISSED target: --version within 2.5x (gh-specstack 3.5x) of the minimal Go program"; else echo "  ok: every --version within 2.5x (gh-specstack 3.5x) of the minimal Go program"; fi

# 2. jj-openspec against the openspec CLI on ~600 files.
if command -v openspec >/dev/null 2>&1; then
  repo="$tmp/openspec-repo"
  bash "$here/openspec-repo" "$repo" 150 8 90
  files=$(find "$repo/openspec" -type f | wc -l)
  # Both must agree before their times mean anything.
  (cd "$repo" && openspec list --json) > "$tmp/os-list.json"
  (cd "$repo" && "$bin/jj-openspec" list --json) > "$tmp/jj-list.json"
  n_os=$(grep -c '"name"' "$tmp/os-list.json" || true)
  n_jj=$(grep -c '"name"' "$tmp/jj-list.json" || true)
  if [ "$n_os" != 90 ] || [ "$n_jj" != 90 ]; then
    echo "startup.sh: list --json: openspec listed $n_os changes, jj-openspec $n_jj; want 90 each" >&2; exit 1
  fi
  # Each round runs the CLI once and jj-openspec $per_round times back to
  # back: ten of its runs take a tenth of the time of one of the CLI's,
  # and a minimum over 10 samples of a 10 ms process is mostly noise.
  per_round=10
  # same_doc WANT ARGS...: the CLI and jj-openspec print the same output
  # for ARGS, which holds WANT (so it is the document asked for).
  same_doc() {
    local want=$1; shift
    (cd "$repo" && openspec "$@") > "$tmp/os.out"
    (cd "$repo" && "$bin/jj-openspec" "$@") > "$tmp/jj.out"
    if ! grep -q -- "$want" "$tmp/os.out" || ! cmp -s "$tmp/os.out" "$tmp/jj.out"; then
      echo "startup.sh: $*: not the same output" >&2
      diff "$tmp/os.out" "$tmp/jj.out" >&2 || true
      exit 1
    fi
  }
  same_doc '"changeName": "change-45"' status --change change-45 --json
  same_doc '' show change-45
  same_doc '"id": "cap-075"' show cap-075 --type spec --json --no-scenarios
  same_doc '"id": "change-45"' show change-45 --json
  same_doc '"artifactId": "tasks"' instructions tasks --change change-45 --json
  same_doc '"taskTrackingConfigured": true' instructions apply --change change-45 --json
  jj_list=() jj_validate=() jj_status=() jj_show=() jj_showjson=() jj_showspec=() jj_instr=() jj_apply=()
  for _ in $(seq "$per_round"); do
    jj_list+=(jj-list "$bin/jj-openspec" list --json --)
    jj_validate+=(jj-validate "$bin/jj-openspec" validate change-45 --strict --)
    jj_status+=(jj-status "$bin/jj-openspec" status --change change-45 --json --)
    jj_show+=(jj-show "$bin/jj-openspec" show change-45 --)
    jj_showjson+=(jj-showjson "$bin/jj-openspec" show change-45 --json --)
    jj_instr+=(jj-instr "$bin/jj-openspec" instructions tasks --change change-45 --json --)
    jj_apply+=(jj-apply "$bin/jj-openspec" instructions apply --change change-45 --json --)
    jj_showspec+=(jj-showspec "$bin/jj-openspec" show cap-075 --type spec --json --no-scenarios --)
  done
  "$bin/timeit" -n "$big_runs" -C "$repo" \
    os-list openspec list --json -- \
    "${jj_list[@]}" \
    os-validate openspec validate change-45 --strict -- \
    "${jj_validate[@]}" \
    os-status openspec status --change change-45 --json -- \
    "${jj_status[@]}" \
    os-show openspec show change-45 -- \
    "${jj_show[@]}" \
    os-showjson openspec show change-45 --json -- \
    "${jj_showjson[@]}" \
    os-showspec openspec show cap-075 --type spec --json --no-scenarios -- \
    "${jj_showspec[@]}" \
    os-instr openspec instructions tasks --change change-45 --json -- \
    "${jj_instr[@]}" \
    os-apply openspec instructions apply --change change-45 --json -- \
    "${jj_apply[@]}" > "$tmp/openspec.tsv"
  printf '\njj-openspec against openspec %s on %s files (%s interleaved rounds: the CLI once a round, jj-openspec %s times)\n' "$(openspec --version)" "$files" "$big_runs" "$per_round"
  printf '  %-46s %9s %9s %9s %9s\n' "command" "cli min" "ours min" "speed-up" "(median)"
  missed=0
  for v in "list:list --json" "validate:validate change-45 --strict" "status:status --change change-45 --json" "show:show change-45" "showjson:show change-45 --json" "showspec:show cap-075 --type spec --json --no-scenarios" "instr:instructions tasks --change change-45 --json" "apply:instructions apply --change change-45 --json"; do
    read -r oa om < <(get "os-${v%%:*}" "$tmp/openspec.tsv")
    read -r ja jm < <(get "jj-${v%%:*}" "$tmp/openspec.tsv")
    printf '  %-46s %9s %9s %8sx %8sx\n' "${v#*:}" "$(ms "$oa")" "$(ms "$ja")" "$(ratio "$oa" "$ja")" "$(ratio "$om" "$jm")"
    awk -v o="$oa" -v j="$ja" 'BEGIN { exit !(o < 60 * j) }' && missed=1
  done
  if [ "$missed" = 1 ]; then echo "  MISSED target: jj-openspec at least 60x faster than the CLI"; else echo "  ok: jj-openspec at least 60x faster than the CLI"; fi
elif [ -n "${REQUIRE_OPENSPEC:-}" ]; then
  echo "startup.sh: openspec not on PATH (run make tools)" >&2; exit 1
else
  echo "startup.sh: part 2 skipped: openspec not on PATH (make tools installs it when npm is present)"
fi

# 3. jj-kaisen's polled step verbs in a run with a fanned-out wave.
krepo="$tmp/kaisen-repo"
jj git init --no-colocate "$krepo" >/dev/null 2>&1
jj -R "$krepo" describe -m bench >/dev/null 2>&1
{
  echo "# bench"
  for i in 1 2 3 4; do printf '\n### Task %d: file %d\n**Files:** `file-%d.txt`\n' "$i" "$i" "$i"; done
} > "$tmp/plan.md"
(
  cd "$krepo"
  "$bin/jj-kaisen" start "$tmp/plan.md" --yes >/dev/null 2>&1
  "$bin/jj-kaisen" fan-out --wave 1 > "$tmp/fanout.txt" 2>/dev/null
  path='' report=''
  while IFS= read -r line; do
    case "$line" in
    "  path:"*) path=$(echo "${line#*:}" | sed 's/^ *//') ;;
    "  report:"*)
      report=$(echo "${line#*:}" | sed 's/^ *//')
      (cd "$path" && echo work > "file-$(basename "$path" | sed 's/.*-//').txt" && printf 'Status: DONE\n' > "$report")
      ;;
    esac
  done < "$tmp/fanout.txt"
  "$bin/jj-kaisen" collect --wave 1 >/dev/null 2>&1
)
"$bin/timeit" -n "$(( big_runs * 2 ))" -C "$krepo" \
  minimal "$bin/minimal-go" -- \
  version "$bin/jj-kaisen" --version -- \
  jj "$(command -v jj)" --ignore-working-copy log -r @ --no-graph -T commit_id -- \
  status "$bin/jj-kaisen" status --json -- \
  collect "$bin/jj-kaisen" collect --wave 1 > "$tmp/kaisen.tsv"
read -r base_min base_med < <(get minimal "$tmp/kaisen.tsv")
printf '\njj-kaisen step verbs, a wave of 4 fanned-out tasks (%s interleaved runs each)\n' "$(( big_runs * 2 ))"
header "go"
row "minimal Go program" "$base_min" "$base_med" "$base_min" "$base_med"
for v in version:"jj-kaisen --version" jj:"one jj log call (reference)" status:"jj-kaisen status --json" collect:"jj-kaisen collect --wave 1"; do
  read -r a m < <(get "${v%%:*}" "$tmp/kaisen.tsv")
  row "${v#*:}" "$a" "$m" "$base_min" "$base_med"
done

# 4. jj processes per command, counted through a wrapper that logs each
# call of the real jj: kaisen's collect of the wave above, and an apply of
# a one-task change (no verify gate, not pushed). Ceilings are held by
# testdata/script/jj_processes.txtar; before the jj version cache and the
# file-system workspace lookup: collect 6, apply 24.
mkdir -p "$tmp/shim"
realjj="$(command -v jj)"
printf '#!/bin/sh\necho x >> "$JJ_CALLS"\nexec %s "$@"\n' "'$realjj'" > "$tmp/shim/jj"
chmod +x "$tmp/shim/jj"
count() { # count LABEL DIR COMMAND...: jj processes COMMAND starts in DIR
  local label="$1" dir="$2"; shift 2
  : > "$tmp/calls"
  (cd "$dir" && PATH="$tmp/shim:$PATH" JJ_CALLS="$tmp/calls" "$@" >/dev/null 2>&1) || { echo "startup.sh: $label failed" >&2; exit 1; }
  printf '  %-34s %9s\n' "$label" "$(wc -l < "$tmp/calls")"
}
orepo="$tmp/apply-repo"
jj git init --no-colocate "$orepo" >/dev/null 2>&1
mkdir -p "$orepo/openspec/specs" "$orepo/openspec/changes/add-export/specs/export"
printf '# Add export\n\n## Why\nUsers need their data out.\n\n## What Changes\n- An export endpoint.\n' > "$orepo/openspec/changes/add-export/proposal.md"
printf '## 1. Export API\n- [ ] 1.1 Add `src/export.ts` endpoint\n' > "$orepo/openspec/changes/add-export/tasks.md"
printf '## ADDED Requirements\n\n### Requirement: Export\nThe system SHALL export data.\n\n#### Scenario: Export works\n- **WHEN** a user exports\n- **THEN** the data is returned\n' > "$orepo/openspec/changes/add-export/specs/export/spec.md"
printf 'mkdir -p src && echo x > src/export.ts\nsed -i "s/^- \\[ \\] 1.1 /- [x] 1.1 /" openspec/changes/add-export/tasks.md\necho "Status: DONE" > "$SPECSTACK_REPORT"\n' > "$tmp/apply-worker.sh"
jj -R "$orepo" commit -m base >/dev/null 2>&1
# The jj version cache is keyed by the binary: the wrapper is a new one,
# so one command first asks its version, as a user's first command does.
(cd "$krepo" && PATH="$tmp/shim:$PATH" JJ_CALLS=/dev/null "$bin/jj-kaisen" collect --wave 1 >/dev/null 2>&1)
printf '\njj processes per command (before this count: collect 6, apply 24)\n'
count "jj-kaisen collect --wave 1 (4 tasks)" "$krepo" "$bin/jj-kaisen" collect --wave 1
count "jj-openspec apply (1 task)" "$orepo" "$bin/jj-openspec" apply add-export --worker "sh $tmp/apply-worker.sh" --no-verify --no-push
