#!/usr/bin/env bash
# Benchmark: a one-wave jj-kaisen run of 8 tasks whose worker sleeps 1 s and
# writes one file, timed side by side with a plain shell script doing the
# same jj commands by hand (workspace add, workers in background, squash,
# forget). Target: jj-kaisen within 1.2x of the hand-written script.
# Usage: testdata/bench/kaisen-run.sh [ROUNDS]   (run from the repository root)
set -euo pipefail
rounds=${1:-3}
tasks=8
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -trimpath -tags "${TAGS:-$(sed -n 's/^TAGS *:*= *//p' "$root/Makefile")}" -o "$tmp/bin/jj-kaisen" "$root/cmd/jj-kaisen"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config JJ_CONFIG=$tmp/jjconfig.toml
export JJ_USER=bench JJ_EMAIL=bench@example.com TMPDIR=$tmp
mkdir -p "$HOME"
printf '[user]\nname = "bench"\nemail = "bench@example.com"\n' > "$JJ_CONFIG"
export PATH=$tmp/bin:$PATH

cat > "$tmp/worker.sh" <<'W'
sleep 1
echo "task $SPECSTACK_TASK" > "file-$SPECSTACK_TASK.txt"
echo 'Status: DONE' > "$SPECSTACK_REPORT"
W
{
	echo "# bench"
	for i in $(seq 1 $tasks); do
		printf '\n### Task %d: file %d\n**Files:** `file-%d.txt`\n' "$i" "$i" "$i"
	done
} > "$tmp/plan.md"

newrepo() {
	rm -rf "$1"
	jj git init --no-colocate "$1" >/dev/null 2>&1
	jj -R "$1" describe -m bench >/dev/null 2>&1
}

by_hand() {
	local repo=$1 ws=$tmp/hand-ws
	mkdir -p "$ws"
	cd "$repo"
	for i in $(seq 1 $tasks); do
		jj workspace add --name "t$i" -r @- -m "Task $i" "$ws/t$i" >/dev/null 2>&1
	done
	for i in $(seq 1 $tasks); do
		(cd "$ws/t$i" && SPECSTACK_TASK=$i SPECSTACK_REPORT=$ws/r$i sh "$tmp/worker.sh" && jj status >/dev/null 2>&1) &
	done
	wait
	for i in $(seq 1 $tasks); do
		jj workspace forget "t$i" >/dev/null 2>&1
		jj squash --from "Task $i" --into @ --use-destination-message >/dev/null 2>&1 || \
			jj squash --from "description(substring:\"Task $i\")" --into @ --use-destination-message >/dev/null 2>&1
		rm -rf "$ws/t$i"
	done
	[ "$(jj log -r 'conflicts()' --no-graph -T 'change_id')" = "" ]
	cd "$root"
}

with_kaisen() {
	local repo=$1
	jj-kaisen -R "$repo" run "$tmp/plan.md" --worker "sh $tmp/worker.sh" --skip-review --yes >/dev/null 2>"$tmp/kaisen.err" || { cat "$tmp/kaisen.err" >&2; exit 1; }
}

now() { date +%s.%N; }
hand_total=0 kaisen_total=0
for r in $(seq 1 "$rounds"); do
	newrepo "$tmp/hand$r"
	t0=$(now); by_hand "$tmp/hand$r"; t1=$(now)
	newrepo "$tmp/kaisen$r"
	t2=$(now); with_kaisen "$tmp/kaisen$r"; t3=$(now)
	n=$(ls "$tmp/kaisen$r"/file-*.txt | wc -l)
	[ "$n" = "$tasks" ] || { echo "kaisen round $r merged $n/$tasks files" >&2; exit 1; }
	h=$(echo "$t1 - $t0" | bc) k=$(echo "$t3 - $t2" | bc)
	printf 'round %d: by hand %.2fs, jj-kaisen %.2fs\n' "$r" "$h" "$k"
	hand_total=$(echo "$hand_total + $h" | bc) kaisen_total=$(echo "$kaisen_total + $k" | bc)
done
ratio=$(echo "scale=3; $kaisen_total / $hand_total" | bc)
printf 'kaisen-run: %d tasks x 1s, %d rounds: by hand %.2fs, jj-kaisen %.2fs, ratio %.2fx (target <= 1.20x)\n' \
	"$tasks" "$rounds" "$(echo "$hand_total / $rounds" | bc -l)" "$(echo "$kaisen_total / $rounds" | bc -l)" "$ratio"
