#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh NAME PROGRAM [ARGS...]
#
# Runs one test program with its stderr merged into its stdout, so that
# everything it says reaches the project's runner, which counts the "ok" and
# "not ok" lines at column 0.  A program that crashes, times out or exits
# non-zero without having printed a "not ok" line of its own gets one here,
# and so does one that printed fewer (or more) results than its "1..N" plan.
# Exits 0 if the program passed, 1 otherwise.
#
# RUN_TIMEOUT (seconds, default 600) bounds each program.
set -u

name=$1
shift
limit=${RUN_TIMEOUT:-600}

if [ ! -x "$1" ]; then
	echo "not ok - $name was not built"
	exit 1
fi

log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

start=$(date +%s%N)
timeout -k 10 "$limit" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
ms=$((($(date +%s%N) - start) / 1000000))

plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | head -n 1)
results=$(grep -cE '^(not )?ok ' "$log")
failed=$(grep -c '^not ok' "$log")
rc=0

if [ "$status" -ne 0 ]; then
	rc=1
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		echo "not ok - $name timed out after $limit s"
	elif [ "$failed" -eq 0 ]; then
		echo "not ok - $name exited with status $status"
	else
		echo "# $name exited with status $status"
	fi
fi
if [ -z "$plan" ]; then
	echo "not ok - $name printed no TAP plan"
	rc=1
elif [ "$results" -ne "$plan" ]; then
	echo "not ok - $name printed $results of the $plan results it planned"
	rc=1
fi
[ "$failed" -eq 0 ] || rc=1
printf '# %s: %d.%03d s, exit status %d\n' "$name" $((ms / 1000)) \
	$((ms % 1000)) "$status"
exit $rc
