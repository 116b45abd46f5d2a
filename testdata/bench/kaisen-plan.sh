#!/usr/bin/env bash
# Benchmark: planning 2,000 tasks with 10 files each (target: under 50 ms).
# Prints the in-process figure (go test -bench BenchmarkPlanning: parse,
# waves, overlaps, parallelism, pre-flight scan) and the wall time of the
# whole `jj-kaisen plan --json` command in a jj repository (process start
# and the two `jj file list` calls of the Modify: check included).
# Usage: testdata/bench/kaisen-plan.sh   (run from the repository root)
set -euo pipefail
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -trimpath -tags "${TAGS:-$(sed -n 's/^TAGS *:*= *//p' "$root/Makefile")}" -o "$tmp/jj-kaisen" "$root/cmd/jj-kaisen"

go test -run '^$' -bench '^BenchmarkPlanning$' -benchtime 20x ./internal/engine | awk '
	/^BenchmarkPlanning/ { printf "kaisen-plan: in process: %.1f ms per plan of 2,000 tasks x 10 files (target < 50 ms)\n", $3 / 1e6 }'

{
	echo "# Generated plan"
	for i in $(seq 1 2000); do
		printf '\n### Task %d: generated %d\n**Files:**\n' "$i" "$i"
		for j in $(seq 0 9); do
			printf -- '- Modify: `pkg%d/file%d.go`\n' $(( (i * 7 + j * 13) % 300 )) "$j"
		done
	done
} > "$tmp/plan.md"
export HOME=$tmp JJ_CONFIG=$tmp/jj.toml
printf '[user]\nname = "bench"\nemail = "bench@example.com"\n' > "$JJ_CONFIG"
jj git init --no-colocate "$tmp/repo" >/dev/null 2>&1
best=
for r in 1 2 3 4 5; do
	t0=$(date +%s%N)
	"$tmp/jj-kaisen" -R "$tmp/repo" plan "$tmp/plan.md" --json > "$tmp/out.json"
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
done
grep -q '"total_tasks": 2000' "$tmp/out.json" || { echo "kaisen-plan: plan output lacks 2000 tasks" >&2; exit 1; }
echo "kaisen-plan: whole command: best of 5 runs ${best} ms (jj-kaisen plan --json, in a jj repository)"
