#!/bin/sh
# Test reviewer: logs the diff it was given ($SPECSTACK_DIFF) to
# $KAISEN_REVIEW_LOG, and reports an important finding for every added line
# holding the word BUG, a suggestion for every added line holding NIT.
set -eu
if [ -n "${KAISEN_REVIEW_LOG:-}" ]; then
	{ echo "=== review of tasks $SPECSTACK_TASK"; cat "$SPECSTACK_DIFF"; } >> "$KAISEN_REVIEW_LOG"
	cp "$SPECSTACK_BRIEF" "$KAISEN_REVIEW_LOG.brief-$SPECSTACK_TASK"
fi
{
	printf '['
	sep= file=
	while IFS= read -r line; do
		case "$line" in
		"+++ b/"*) file=${line#+++ b/}; continue ;;
		"+++"*) continue ;;
		"+"*BUG*) sev=important ;;
		"+"*NIT*) sev=suggestion ;;
		*) continue ;;
		esac
		printf '%s{"severity": "%s", "file": "%s", "message": "added line mentions %s"}' "$sep" "$sev" "$file" "$sev"
		sep=,
	done < "$SPECSTACK_DIFF"
	printf ']\n'
} > "$SPECSTACK_FINDINGS"
