#!/bin/sh
# Test worker. Reads its brief ($SPECSTACK_BRIEF) line by line and obeys:
#   EDIT <path>: <text>     append <text> to <path> in its workspace
#   TICK <path>: <id>       tick task <id> ("- [ ] 1.2" -> "- [x] 1.2")
#   REPLACE <path>: <a> => <b>   replace the word <a> with <b>
#   LEAK <path>: <text>     append <text> to <path> in $KAISEN_ORCH (a worker
#                           that failed to stay in its workspace)
#   DIE                     describe the change, remove the workspace and
#                           kill itself (a worker that crashed)
#   FAIL                    exit 3 without a report
#   SLEEP <seconds>         sleep (a slow worker)
#   FLAG                    create the file $KAISEN_FLAG (tells a script the worker started)
#   LINES <path>: <n>       append n numbered lines to <path>
#   DIVERGE                 rewrite its change twice from one operation (divergence)
#   COMMIT <message>        jj commit: the task's work spans several changes
#   STATUS <word>           report that status instead of DONE
# A fixer ($SPECSTACK_ROLE=fixer) obeys the FIX-prefixed forms instead
# (FIX-EDIT, ...). Every start is logged to $KAISEN_LOG as "role task", and
# how many waves $SPECSTACK_PRIOR_WAVES summarizes to $KAISEN_PRIOR_LOG.
set -eu
[ -n "${KAISEN_LOG:-}" ] && echo "$SPECSTACK_ROLE $SPECSTACK_TASK" >> "$KAISEN_LOG"
if [ -n "${KAISEN_PRIOR_LOG:-}" ]; then
	if [ -n "${SPECSTACK_PRIOR_WAVES:-}" ]; then
		echo "task $SPECSTACK_TASK read $(grep -c '^## Wave' "$SPECSTACK_PRIOR_WAVES") prior waves" >> "$KAISEN_PRIOR_LOG"
	else
		echo "task $SPECSTACK_TASK has no prior waves" >> "$KAISEN_PRIOR_LOG"
	fi
fi
cd "$SPECSTACK_WORKSPACE"
prefix=
[ "$SPECSTACK_ROLE" = fixer ] && prefix=FIX-
status=DONE
while IFS= read -r line; do
	case "$line" in
	"$prefix"*) line=${line#"$prefix"} ;;
	*) continue ;;
	esac
	case "$line" in
	FIX-*) continue ;;
	esac
	verb=${line%% *}
	rest=${line#* }
	path=${rest%%:*}
	arg=${rest#*: }
	case "$verb" in
	EDIT)
		mkdir -p "$(dirname "$path")"
		printf '%s\n' "$arg" >> "$path"
		;;
	TICK)
		sed -i "s/^- \[ \] $arg /- [x] $arg /" "$path"
		;;
	REPLACE)
		from=${arg%% => *}
		to=${arg#* => }
		sed -i "s/$from/$to/" "$path"
		;;
	LEAK)
		printf '%s\n' "$arg" >> "$KAISEN_ORCH/$path"
		;;
	DIE)
		jj describe -m "Task $SPECSTACK_TASK: died halfway" >/dev/null 2>&1
		cd /
		rm -rf "$SPECSTACK_WORKSPACE"
		kill -9 $$
		;;
	FAIL)
		exit 3
		;;
	SLEEP)
		sleep "$rest"
		;;
	FLAG)
		: > "$KAISEN_FLAG"
		;;
	LINES)
		count=${arg%% *}
		seq 1 "$count" | sed "s/^/line /" >> "$path"
		;;
	DIVERGE)
		op=$(jj op log -n1 --no-graph -T 'id.short()')
		jj describe -m "Task $SPECSTACK_TASK: one side" >/dev/null 2>&1
		jj --at-op "$op" describe -m "Task $SPECSTACK_TASK: other side" >/dev/null 2>&1
		;;
	COMMIT)
		jj commit -m "Task $SPECSTACK_TASK: $rest" >/dev/null 2>&1
		;;
	STATUS)
		status=$rest
		;;
	esac
done < "$SPECSTACK_BRIEF"
[ -n "${KAISEN_SLEEP:-}" ] && sleep "$KAISEN_SLEEP"
printf 'Status: %s\n\nApplied the %s lines of the brief.\n' "$status" "${prefix:-plain}" >> "$SPECSTACK_REPORT"
