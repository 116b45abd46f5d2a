#!/bin/sh
# Test suite: logs where it ran (to $KAISEN_SUITE_LOG) and fails when any
# file holds the word BROKEN.
[ -n "${KAISEN_SUITE_LOG:-}" ] && pwd >> "$KAISEN_SUITE_LOG"
if grep -rq BROKEN --exclude-dir=.jj . 2>/dev/null; then
	echo "suite: BROKEN found" >&2
	exit 1
fi
exit 0
