#!/usr/bin/env bash
# Benchmark: specstack's own time per agent job, with the real Claude Code
# CLI on the fake model (internal/fakemodel), beside a hand-written POSIX sh
# script doing the same provisioning and squashing around the same agent.
# Goal: no slower than the hand script. Two sizes, 8 and 32 independent
# tasks (one wave), interleaved round by round with the two sides, so load
# on the machine falls on both alike; each task's agent writes one file (a
# Write turn) and ends with the text "Status: DONE" (two model requests).
#
#   specstack:   jj-kaisen run plan.md --worker claude --skip-review --yes
#                --max-parallel P
#   hand script: per task `jj workspace add --no-colocate`; the agents P at
#                a time (xargs -P), each `claude -p --output-format json
#                --permission-mode acceptEdits < prompt` in its workspace,
#                its JSON checked for "is_error":false, then `jj status`
#                there (the snapshot that records the file); then per task
#                `jj squash --from tN@ --into @`, `jj workspace forget`,
#                the folder removed.
#
# P is 4 (BENCH_AGENTS_PARALLEL), on both sides: a usual number of agents
# at once, and not 32 Claude Code processes of 220 MB each on two cores.
#
# Method: both sides find `claude` first on PATH as testdata/bench/agenttime,
# which runs the real claude and logs each agent process's wall-clock start
# and end and its CPU time (a `--version` call is passed through untimed:
# jj-kaisen asks it once a run, which is its own cost). For each run:
#   overhead wall = (wall time of the run - time covered by at least one
#                    agent process, the union of their intervals) / jobs
#   overhead cpu  = (CPU time of the run and all it waited for - the
#                    agents' CPU time) / jobs
# so what is left is the orchestrator's: provisioning, starting, reading
# the agent's answer, snapshotting, squashing, cleaning up (and jj-kaisen's
# ledger, logs and checks). The wall figure is the time a user waits beyond
# the agents (work done while agents run is hidden, on both sides alike);
# the CPU figure counts all of it, and swings less with machine load. The
# shim's own start (a Go binary, a few ms a job) falls on both sides alike.
# It prints each round, then per size the mean of the rounds (and the
# median of the rounds' wall ratios), e.g.
#   agents 8 jobs: specstack 45 ms/job, hand script 60 ms/job (0.75x; ...
# It never fails on a ratio: timings on a shared machine are not a test.
# Without claude on PATH it says it skipped and exits 0, unless
# REQUIRE_AGENTS=1 (then it fails).
# Usage: testdata/bench/agents.sh [ROUNDS]   (run from the repository root;
# default 3 rounds)
set -eEuo pipefail
trap 'echo "agents: line $LINENO: $BASH_COMMAND failed" >&2' ERR

if [ "${1:-}" = --measure ]; then
	measure=1
	tmp=$2 rounds=$3
else
	measure=
	rounds=${1:-3}
fi
parallel=${BENCH_AGENTS_PARALLEL:-4}
sizes=(8 32)

if [ -z "$measure" ]; then
	if ! real=$(command -v claude); then
		if [ -n "${REQUIRE_AGENTS:-}" ]; then
			echo "agents: claude (Claude Code) is not on PATH and REQUIRE_AGENTS is set: install it with testdata/tools/install-agents" >&2
			exit 1
		fi
		echo "agents: skipped: claude (Claude Code) is not on PATH; testdata/tools/install-agents installs it (make bench provisions it when npm is present)"
		exit 0
	fi
	root=$(pwd)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tags=${TAGS:-$(sed -n 's/^TAGS *:*= *//p' "$root/Makefile")}
	go build -trimpath -tags "$tags" -o "$tmp/bin/jj-kaisen" "$root/cmd/jj-kaisen"
	go build -o "$tmp/bin/fakemodel" "$root/testdata/tools/fakemodel"
	go build -o "$tmp/shim/claude" "$root/testdata/bench/agenttime"
	# One rule per task: its agent writes its own file, then says done.
	{
		echo '{"rules": ['
		for i in $(seq 1 "${sizes[-1]}"); do
			[ "$i" = 1 ] || echo ','
			printf ' {"match": "`file-%d.txt`", "turns": [{"tool": "Write", "input": {"file_path": "{cwd}/file-%d.txt", "content": "task %d\\n"}}, {"text": "Wrote file-%d.txt.\\nStatus: DONE"}]}' "$i" "$i" "$i" "$i"
		done
		echo ']}'
	} > "$tmp/scenario.json"
	mkdir -p "$tmp/home"
	HOME=$tmp/home "$tmp/bin/fakemodel" run "$tmp/scenario.json" -- bash "$0" --measure "$tmp" "$rounds" "$real"
	exit
fi

# --- inside `fakemodel run`: the agents' base URL and key are set ---
export AGENTTIME_PROGRAM=$4
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config JJ_CONFIG=$tmp/jjconfig.toml
export JJ_USER=bench JJ_EMAIL=bench@example.com TMPDIR=$tmp
printf '[user]\nname = "bench"\nemail = "bench@example.com"\n' > "$JJ_CONFIG"
export PATH=$tmp/shim:$tmp/bin:$PATH

task() { # task I: the task's section, as the plan has it and the hand script's prompt
	printf '### Task %d: file %d\n**Files:**\n- Create: `file-%d.txt`\n\nWrite file-%d.txt saying "task %d".\n' "$1" "$1" "$1" "$1" "$1"
}
for n in "${sizes[@]}"; do
	{
		echo "# bench"
		for i in $(seq 1 "$n"); do echo; task "$i"; done
	} > "$tmp/plan-$n.md"
done
mkdir -p "$tmp/prompts"
for i in $(seq 1 "${sizes[-1]}"); do
	{
		task "$i"
		printf '\nWork in the current directory. End your answer with a line "Status: DONE".\n'
	} > "$tmp/prompts/$i.md"
done

# The hand-written script: plain jj around the same agent.
cat > "$tmp/hand.sh" <<'HAND'
# hand.sh REPO WSDIR TASKS PARALLEL PROMPTS
set -eu
repo=$1 ws=$2 n=$3 p=$4 prompts=$5
cd "$repo"
i=1
while [ "$i" -le "$n" ]; do
	jj workspace add --name "t$i" -m "Task $i" --no-colocate "$ws/t$i" >/dev/null 2>&1
	i=$((i + 1))
done
i=1
while [ "$i" -le "$n" ]; do echo "$i"; i=$((i + 1)); done |
	xargs -P "$p" -I{} sh -c 'cd "$1/t$2" &&
		claude -p --output-format json --permission-mode acceptEdits < "$3/$2.md" > "$1/out-$2.json" &&
		grep -q "\"is_error\":false" "$1/out-$2.json" &&
		jj status >/dev/null 2>&1' sh "$ws" {} "$prompts"
i=1
while [ "$i" -le "$n" ]; do
	jj squash --from "t$i@" --into @ --use-destination-message >/dev/null 2>&1
	jj workspace forget "t$i" >/dev/null 2>&1
	rm -rf "$ws/t$i"
	i=$((i + 1))
done
HAND

newrepo() { # newrepo DIR: a repository of two files
	rm -rf "$1"
	jj git init --no-colocate "$1" >/dev/null 2>&1
	echo one > "$1/a.txt"
	echo two > "$1/b.txt"
	jj -R "$1" describe -m bench >/dev/null 2>&1
}

by_hand() { # by_hand REPO TASKS
	rm -rf "$tmp/hand-ws"
	mkdir -p "$tmp/hand-ws"
	sh "$tmp/hand.sh" "$1" "$tmp/hand-ws" "$2" "$parallel" "$tmp/prompts"
}

with_kaisen() { # with_kaisen REPO TASKS
	(cd "$1" && jj-kaisen run "$tmp/plan-$2.md" --worker claude --skip-review --yes --max-parallel "$parallel" >/dev/null 2>"$tmp/kaisen.err") ||
		{ cat "$tmp/kaisen.err" >&2; exit 1; }
}

# side LABEL FN REPO TASKS: runs FN with the agents' times logged and sets
# over_wall and over_cpu, the orchestrator's ms per job.
side() {
	local label=$1 fn=$2 repo=$3 n=$4 out wall user sys agents
	export AGENTTIME_LOG=$tmp/agents-$label.log
	rm -f "$AGENTTIME_LOG"
	exec 3>&2
	out=$( { TIMEFORMAT='%3R %3U %3S'; time "$fn" "$repo" "$n" 2>&3; } 2>&1 ) || exit 1
	exec 3>&-
	read -r wall user sys <<<"$out"
	local got
	got=$(ls "$repo"/file-*.txt 2>/dev/null | wc -l)
	[ "$got" = "$n" ] || { echo "agents: $label left $got of $n files in @" >&2; exit 1; }
	agents=$(wc -l < "$AGENTTIME_LOG")
	[ "$agents" = "$n" ] || { echo "agents: $label ran $agents agent processes for $n tasks" >&2; exit 1; }
	# The union of the agents' intervals and the sum of their CPU, in ms.
	read -r covered agent_cpu agent_each < <(sort -n "$AGENTTIME_LOG" | awk '
		{ if (NR == 1 || $1 > e) { if (NR > 1) u += e - s; s = $1; e = $2 } else if ($2 > e) e = $2; c += $3 + $4 }
		{ d += $2 - $1 }
		END { u += e - s; printf "%.3f %.3f %.3f\n", u / 1e6, c / 1e6, d / 1e6 / NR }')
	over_wall=$(echo "scale=3; ($wall * 1000 - $covered) / $n" | bc)
	over_cpu=$(echo "scale=3; (($user + $sys) * 1000 - $agent_cpu) / $n" | bc)
	run_wall=$wall
}

declare -A sum_kw sum_hw sum_kc sum_hc ratios
for n in "${sizes[@]}"; do sum_kw[$n]=0 sum_hw[$n]=0 sum_kc[$n]=0 sum_hc[$n]=0 ratios[$n]=; done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for r in $(seq 1 "$rounds"); do
	for n in "${sizes[@]}"; do
		newrepo "$tmp/hand"
		side hand by_hand "$tmp/hand" "$n"
		hw=$over_wall hc=$over_cpu hwall=$run_wall heach=$agent_each
		newrepo "$tmp/kaisen"
		side kaisen with_kaisen "$tmp/kaisen" "$n"
		kw=$over_wall kc=$over_cpu kwall=$run_wall keach=$agent_each
		printf 'agents round %d, %d jobs (%d at once): specstack %.0f ms/job (cpu %.0f; run %.1fs, agents %.0f ms each), hand script %.0f ms/job (cpu %.0f; run %.1fs, agents %.0f ms each), load %s\n' \
			"$r" "$n" "$parallel" "$kw" "$kc" "$kwall" "$keach" "$hw" "$hc" "$hwall" "$heach" "$(cut -d' ' -f1 /proc/loadavg)"
		sum_kw[$n]=$(echo "${sum_kw[$n]} + $kw" | bc) sum_hw[$n]=$(echo "${sum_hw[$n]} + $hw" | bc)
		sum_kc[$n]=$(echo "${sum_kc[$n]} + $kc" | bc) sum_hc[$n]=$(echo "${sum_hc[$n]} + $hc" | bc)
		ratios[$n]+="$(echo "scale=3; $kw / $hw" | bc) "
	done
done
for n in "${sizes[@]}"; do
	printf 'agents %d jobs: specstack %.0f ms/job, hand script %.0f ms/job (%.2fx; median of rounds %.2fx); cpu specstack %.0f ms/job, hand script %.0f ms/job (%.2fx); mean of %d rounds, %d agents at once, goal <= 1.00x\n' \
		"$n" "$(echo "${sum_kw[$n]} / $rounds" | bc -l)" "$(echo "${sum_hw[$n]} / $rounds" | bc -l)" "$(echo "scale=3; ${sum_kw[$n]} / ${sum_hw[$n]}" | bc)" \
		"$(printf '%s\n' ${ratios[$n]} | median)" \
		"$(echo "${sum_kc[$n]} / $rounds" | bc -l)" "$(echo "${sum_hc[$n]} / $rounds" | bc -l)" "$(echo "scale=3; ${sum_kc[$n]} / ${sum_hc[$n]}" | bc)" \
		"$rounds" "$parallel"
done
printf 'agents: %s, claude %s; load average %s (%d cores shared): wall figures swing with it\n' \
	"$(jj --version)" "$("$AGENTTIME_PROGRAM" --version | head -n1)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
