#!/usr/bin/env bash
# Benchmark: one-wave jj-kaisen runs whose worker sleeps 1 s and writes one
# file, each timed side by side with a plain shell script doing the same jj
# commands by hand (workspace add each, the workers in the background with
# a `jj status` each, squash each, forget each, one conflicts() check).
# Two configurations in one run, interleaved round by round so load on the
# machine falls on both sides alike:
#   8 tasks in a repository of 2 files       target <= 0.90x the script
#   32 tasks in a repository of 2,000 files  target <= 1.00x the script
# It prints each round, then one line per configuration: the ratio of the
# mean wall times, the median of the rounds' ratios, and the ratio of the
# CPU time (jj-kaisen and jj, against the script's jj). It never fails on
# a ratio: timings on a shared machine are not a test.
# Usage: testdata/bench/kaisen-run.sh [ROUNDS]   (run from the repository root)
set -euo pipefail
rounds=${1:-3}
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

plan() { # plan TASKS
	{
		echo "# bench"
		for i in $(seq 1 "$1"); do
			printf '\n### Task %d: file %d\n**Files:** `file-%d.txt`\n' "$i" "$i" "$i"
		done
	} > "$tmp/plan-$1.md"
}

# newrepo DIR FILES: a repository whose one commit holds FILES files.
newrepo() {
	rm -rf "$1"
	jj git init --no-colocate "$1" >/dev/null 2>&1
	mkdir -p "$1/src"
	for i in $(seq 1 "$2"); do echo "line $i" > "$1/src/f$i.txt"; done
	jj -R "$1" describe -m bench >/dev/null 2>&1
}

# by_hand REPO TASKS: the tightest script an agent could type.
by_hand() {
	local repo=$1 tasks=$2 ws=$tmp/hand-ws
	rm -rf "$ws"
	mkdir -p "$ws"
	cd "$repo"
	for i in $(seq 1 "$tasks"); do
		jj workspace add --name "t$i" -r @- -m "Task $i" --no-colocate "$ws/t$i" >/dev/null 2>&1
	done
	for i in $(seq 1 "$tasks"); do
		(cd "$ws/t$i" && SPECSTACK_TASK=$i SPECSTACK_REPORT=$ws/r$i sh "$tmp/worker.sh" && jj status >/dev/null 2>&1) &
	done
	wait
	for i in $(seq 1 "$tasks"); do
		jj squash --from "t$i@" --into @ --use-destination-message >/dev/null 2>&1
		jj workspace forget "t$i" >/dev/null 2>&1
		rm -rf "$ws/t$i"
	done
	[ "$(jj log -r 'conflicts()' --no-graph -T 'change_id')" = "" ]
	cd "$root"
}

with_kaisen() {
	local repo=$1 tasks=$2
	jj-kaisen -R "$repo" run "$tmp/plan-$tasks.md" --worker "sh $tmp/worker.sh" --skip-review --yes >/dev/null 2>"$tmp/kaisen.err" || { cat "$tmp/kaisen.err" >&2; exit 1; }
}

# timed VAR CMD...: runs CMD in a subshell; VAR gets "wall cpu", in
# seconds, cpu being the user and system time of CMD and every process it
# waited for (jj's work, less sensitive to other load than the wall time).
timed() {
	local var=$1 out
	shift
	exec 3>&2
	out=$( { TIMEFORMAT='%R %U %S'; time "$@" 2>&3; } 2>&1 ) || exit 1
	exec 3>&-
	read -r wall user sys <<<"$out"
	printf -v "$var" '%s %s' "$wall" "$(echo "$user + $sys" | bc)"
}

# One configuration per line: tasks, files in the repository, target ratio.
configs=("8 2 0.90" "32 2000 1.00")
declare -A hand_wall kaisen_wall hand_cpu kaisen_cpu ratios
for c in "${configs[@]}"; do
	read -r tasks _ _ <<<"$c"
	plan "$tasks"
	hand_wall[$tasks]=0 kaisen_wall[$tasks]=0 hand_cpu[$tasks]=0 kaisen_cpu[$tasks]=0 ratios[$tasks]=
done
for r in $(seq 1 "$rounds"); do
	for c in "${configs[@]}"; do
		read -r tasks files _ <<<"$c"
		newrepo "$tmp/hand" "$files"
		timed hand by_hand "$tmp/hand" "$tasks"
		newrepo "$tmp/kaisen" "$files"
		timed kaisen with_kaisen "$tmp/kaisen" "$tasks"
		n=$(ls "$tmp/kaisen"/file-*.txt | wc -l)
		[ "$n" = "$tasks" ] || { echo "kaisen round $r merged $n/$tasks files" >&2; exit 1; }
		read -r hw hc <<<"$hand"
		read -r kw kc <<<"$kaisen"
		printf 'round %d, %d tasks, %d files: by hand %.2fs (cpu %.2fs), jj-kaisen %.2fs (cpu %.2fs), ratio %.2fx, load %s\n' \
			"$r" "$tasks" "$files" "$hw" "$hc" "$kw" "$kc" "$(echo "scale=3; $kw / $hw" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
		hand_wall[$tasks]=$(echo "${hand_wall[$tasks]} + $hw" | bc) kaisen_wall[$tasks]=$(echo "${kaisen_wall[$tasks]} + $kw" | bc)
		hand_cpu[$tasks]=$(echo "${hand_cpu[$tasks]} + $hc" | bc) kaisen_cpu[$tasks]=$(echo "${kaisen_cpu[$tasks]} + $kc" | bc)
		ratios[$tasks]+="$(echo "scale=3; $kw / $hw" | bc) "
	done
done
for c in "${configs[@]}"; do
	read -r tasks files target <<<"$c"
	median=$(printf '%s\n' ${ratios[$tasks]} | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	printf 'kaisen-run: %d tasks x 1s, %d files, %d rounds: by hand %.2fs, jj-kaisen %.2fs: ratio %.2fx (median of rounds %.2fx; target <= %.2fx); cpu by hand %.2fs, jj-kaisen %.2fs: %.2fx\n' \
		"$tasks" "$files" "$rounds" "$(echo "${hand_wall[$tasks]} / $rounds" | bc -l)" "$(echo "${kaisen_wall[$tasks]} / $rounds" | bc -l)" \
		"$(echo "scale=3; ${kaisen_wall[$tasks]} / ${hand_wall[$tasks]}" | bc)" "$median" "$target" \
		"$(echo "${hand_cpu[$tasks]} / $rounds" | bc -l)" "$(echo "${kaisen_cpu[$tasks]} / $rounds" | bc -l)" \
		"$(echo "scale=3; ${kaisen_cpu[$tasks]} / ${hand_cpu[$tasks]}" | bc)"
done
printf 'kaisen-run: load average %s (%d cores shared): wall times swing with it; the rounds interleave the two sides\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
