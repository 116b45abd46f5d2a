#!/bin/sh
# Test worker: applies the brief's "EDIT <path>: <text>" lines by appending
# <text> to <path> in its workspace, then reports. It logs every start to
# $KAISEN_LOG (one line: role task) so scripts can count runs.
# A fixer applies the "FIX <path>: <text>" lines instead.
set -eu
[ -n "${KAISEN_LOG:-}" ] && echo "$SPECSTACK_ROLE $SPECSTACK_TASK" >> "$KAISEN_LOG"
cd "$SPECSTACK_WORKSPACE"
want=EDIT
[ "$SPECSTACK_ROLE" = fixer ] && want=FIX
while IFS= read -r line; do
	case "$line" in
	"$want "*:*)
		rest=${line#"$want "}
		path=${rest%%:*}
		text=${rest#*: }
		mkdir -p "$(dirname "$path")"
		printf '%s\n' "$text" >> "$path"
		;;
	esac
done < "$SPECSTACK_BRIEF"
[ -n "${KAISEN_SLEEP:-}" ] && sleep "$KAISEN_SLEEP"
printf 'Status: DONE\n\nApplied the %s lines of the brief.\n' "$want" >> "$SPECSTACK_REPORT"
