#!/usr/bin/env bash
# Benchmark: jj-openspec apply fanned out over G groups of a change (two
# tasks each, one file per task), the worker sleeping 1 s, timed side by
# side with a plain shell script doing the jj part by hand (workspace add
# per group, the workers in the background with a `jj status` each, squash
# each, forget each, one conflicts() check). jj-openspec does more than the
# script: it validates the change, checks the ticks against the files,
# runs the verify gate and archives the change natively (--no-push); the
# ratio is what that costs over the jj work alone. Two configurations,
# interleaved round by round so load falls on both sides alike:
#   4 groups in a repository of 2 files
#   8 groups in a repository of 2,000 files
# It prints each round, then per configuration the ratio of the mean wall
# times, the median of the rounds' ratios and the CPU ratio (jj-openspec
# and jj against the script's jj). It never fails on a ratio.
# Usage: testdata/bench/apply-run.sh [ROUNDS]   (run from the repository root)
set -euo pipefail
rounds=${1:-3}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -trimpath -tags "${TAGS:-$(sed -n 's/^TAGS *:*= *//p' "$root/Makefile")}" -o "$tmp/bin/jj-openspec" "$root/cmd/jj-openspec"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config JJ_CONFIG=$tmp/jjconfig.toml
export JJ_USER=bench JJ_EMAIL=bench@example.com TMPDIR=$tmp
mkdir -p "$HOME"
printf '[user]\nname = "bench"\nemail = "bench@example.com"\n' > "$JJ_CONFIG"
export PATH=$tmp/bin:$PATH

# The worker writes each unticked task's file named in its brief and ticks
# the box (the hand script's worker gets the group's two task ids).
cat > "$tmp/worker.sh" <<'W'
sleep 1
for id in $(sed -n 's/^- \[ \] \([0-9.]*\) .*/\1/p' "$SPECSTACK_BRIEF"); do
	echo "task $id" > "src/t$id.txt"
	sed -i "s/^- \[ \] $id /- [x] $id /" openspec/changes/bench/tasks.md
done
echo 'Status: DONE' > "$SPECSTACK_REPORT"
W
cat > "$tmp/hand-worker.sh" <<'W'
sleep 1
for id in "$@"; do echo "task $id" > "src/t$id.txt"; done
W

# newrepo DIR FILES GROUPS: a repository whose one commit holds FILES files
# and the change "bench" with GROUPS groups of two tasks.
newrepo() {
	local d=$1 c
	rm -rf "$d"
	jj git init --no-colocate "$d" >/dev/null 2>&1
	mkdir -p "$d/src"
	for i in $(seq 1 "$2"); do echo "line $i" > "$d/src/f$i.txt"; done
	c=$d/openspec/changes/bench
	mkdir -p "$c/specs/bench"
	printf '# Bench\n\n## Why\nA benchmark.\n' > "$c/proposal.md"
	printf '## ADDED Requirements\n\n### Requirement: Bench\nThe system SHALL run.\n\n#### Scenario: Runs\n- **WHEN** run\n- **THEN** it runs\n' > "$c/specs/bench/spec.md"
	for g in $(seq 1 "$3"); do
		printf '## %d. Group %d\n- [ ] %d.1 Write `src/t%d.1.txt`\n- [ ] %d.2 Write `src/t%d.2.txt`\n\n' "$g" "$g" "$g" "$g" "$g" "$g"
	done > "$c/tasks.md"
	jj -R "$d" describe -m bench >/dev/null 2>&1
	jj -R "$d" new >/dev/null 2>&1
}

# by_hand REPO GROUPS: the tightest script an agent could type.
by_hand() {
	local repo=$1 groups=$2 ws=$tmp/hand-ws
	rm -rf "$ws"
	mkdir -p "$ws"
	cd "$repo"
	for g in $(seq 1 "$groups"); do
		jj workspace add --name "g$g" -r @- -m "Group $g" --no-colocate "$ws/g$g" >/dev/null 2>&1
	done
	for g in $(seq 1 "$groups"); do
		(cd "$ws/g$g" && sh "$tmp/hand-worker.sh" "$g.1" "$g.2" && jj status >/dev/null 2>&1) &
	done
	wait
	for g in $(seq 1 "$groups"); do
		jj squash --from "g$g@" --into @ --use-destination-message >/dev/null 2>&1
		jj workspace forget "g$g" >/dev/null 2>&1
		rm -rf "$ws/g$g"
	done
	[ "$(jj log -r 'conflicts()' --no-graph -T 'change_id')" = "" ]
	cd "$root"
}

with_apply() {
	jj-openspec -R "$1" apply bench --worker "sh $tmp/worker.sh" --verify true --no-push >/dev/null 2>"$tmp/apply.err" || { cat "$tmp/apply.err" >&2; exit 1; }
}

# timed VAR CMD...: as in kaisen-run.sh, "wall cpu" in seconds.
timed() {
	local var=$1 out
	shift
	exec 3>&2
	out=$( { TIMEFORMAT='%R %U %S'; time "$@" 2>&3; } 2>&1 ) || exit 1
	exec 3>&-
	read -r wall user sys <<<"$out"
	printf -v "$var" '%s %s' "$wall" "$(echo "$user + $sys" | bc)"
}

configs=("4 2" "8 2000")
declare -A hand_wall apply_wall hand_cpu apply_cpu ratios
for c in "${configs[@]}"; do
	read -r groups _ <<<"$c"
	hand_wall[$groups]=0 apply_wall[$groups]=0 hand_cpu[$groups]=0 apply_cpu[$groups]=0 ratios[$groups]=
done
for r in $(seq 1 "$rounds"); do
	for c in "${configs[@]}"; do
		read -r groups files <<<"$c"
		newrepo "$tmp/hand" "$files" "$groups"
		timed hand by_hand "$tmp/hand" "$groups"
		newrepo "$tmp/apply" "$files" "$groups"
		timed applied with_apply "$tmp/apply"
		n=$(ls "$tmp/apply"/src/t*.txt | wc -l)
		[ "$n" = "$((groups * 2))" ] || { echo "apply round $r wrote $n/$((groups * 2)) files" >&2; exit 1; }
		ls -d "$tmp/apply"/openspec/changes/archive/*-bench >/dev/null || { echo "apply round $r did not archive" >&2; exit 1; }
		read -r hw hc <<<"$hand"
		read -r aw ac <<<"$applied"
		printf 'round %d, %d groups, %d files: by hand %.2fs (cpu %.2fs), jj-openspec apply %.2fs (cpu %.2fs), ratio %.2fx, load %s\n' \
			"$r" "$groups" "$files" "$hw" "$hc" "$aw" "$ac" "$(echo "scale=3; $aw / $hw" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
		hand_wall[$groups]=$(echo "${hand_wall[$groups]} + $hw" | bc) apply_wall[$groups]=$(echo "${apply_wall[$groups]} + $aw" | bc)
		hand_cpu[$groups]=$(echo "${hand_cpu[$groups]} + $hc" | bc) apply_cpu[$groups]=$(echo "${apply_cpu[$groups]} + $ac" | bc)
		ratios[$groups]+="$(echo "scale=3; $aw / $hw" | bc) "
	done
done
for c in "${configs[@]}"; do
	read -r groups files <<<"$c"
	median=$(printf '%s\n' ${ratios[$groups]} | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	printf 'apply-run: %d groups x 1s, %d files, %d rounds: by hand %.2fs, jj-openspec apply %.2fs: ratio %.2fx (median of rounds %.2fx); cpu by hand %.2fs, jj-openspec %.2fs: %.2fx\n' \
		"$groups" "$files" "$rounds" "$(echo "${hand_wall[$groups]} / $rounds" | bc -l)" "$(echo "${apply_wall[$groups]} / $rounds" | bc -l)" \
		"$(echo "scale=3; ${apply_wall[$groups]} / ${hand_wall[$groups]}" | bc)" "$median" \
		"$(echo "${hand_cpu[$groups]} / $rounds" | bc -l)" "$(echo "${apply_cpu[$groups]} / $rounds" | bc -l)" \
		"$(echo "scale=3; ${apply_cpu[$groups]} / ${hand_cpu[$groups]}" | bc)"
done
printf 'apply-run: load average %s (%d cores shared): wall times swing with it; the rounds interleave the two sides\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
