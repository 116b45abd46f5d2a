#!/bin/sh
# A step-mode agent: drives a run with jj-kaisen's step commands only,
# starting the workers itself the way a dispatching agent would.
# usage: step-agent.sh PLAN WORKER TEST
set -eu
plan=$1 worker=$2 test=$3
waves=$(jj-kaisen start "$plan" --test "$test" --yes --json | grep -c '"wave":')
w=1
while [ "$w" -le "$waves" ]; do
	jj-kaisen fan-out --wave "$w" > "$WORK/fanout-$w.txt"
	pids=
	task= path= brief= report=
	while IFS= read -r line; do
		case "$line" in
		"task "*) task=${line#task }; task=${task%%:*} ;;
		"  path:"*) path=$(echo "${line#*:}" | sed 's/^ *//') ;;
		"  brief:"*) brief=$(echo "${line#*:}" | sed 's/^ *//') ;;
		"  report:"*)
			report=$(echo "${line#*:}" | sed 's/^ *//')
			(cd "$path" && SPECSTACK_WORKSPACE=$path SPECSTACK_BRIEF=$brief SPECSTACK_REPORT=$report \
				SPECSTACK_TASK=$task SPECSTACK_ROLE=implementer sh "$worker" < /dev/null) &
			pids="$pids $!"
			;;
		esac
	done < "$WORK/fanout-$w.txt"
	for p in $pids; do wait "$p"; done
	jj-kaisen collect --wave "$w" > "$WORK/collect-$w.txt"
	for t in $(sed -n 's/^task \([0-9]*\): .*/\1/p' "$WORK/collect-$w.txt"); do
		jj-kaisen review record --task "$t" --passed
	done
	jj-kaisen fan-in --wave "$w"
	w=$((w + 1))
done
jj-kaisen gate
