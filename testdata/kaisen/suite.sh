#!/bin/sh
# Test suite: logs where it ran (to $KAISEN_SUITE_LOG) and fails when any
# file holds the word BROKEN, or when two files hold the word CLASH (a
# combination no single task's workspace has).
[ -n "${KAISEN_SUITE_LOG:-}" ] && pwd >> "$KAISEN_SUITE_LOG"
if grep -rq BROKEN --exclude-dir=.jj . 2>/dev/null; then
	echo "suite: BROKEN found" >&2
	exit 1
fi
if [ "$(grep -rl CLASH --exclude-dir=.jj . 2>/dev/null | wc -l)" -gt 1 ]; then
	echo "suite: CLASH in more than one file" >&2
	exit 1
fi
exit 0
