#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run selftests and print one TAP stream.
#
#   runner.sh [--kselftest | --flat] [--start N] [--no-plan]
#             [--count-file FILE] TEST...
#
# --kselftest (the default, for `make run_tests`): as the kernel's
#   kselftest/runner.sh, one test point per program ("ok N selftests:
#   nf_cuckoo: NAME"), the program's own output indented as "# ...".
# --flat (for the VM run): every program's own test points at column 0,
#   renumbered into one stream from N (default 1); a program that skips as
#   a whole (exit 4, "1..0 # SKIP") becomes one "ok ... # SKIP" point, one
#   that fails or times out without a "not ok" of its own one "not ok".
# --no-plan: leave the "1..N" line to the caller; --count-file: write the
#   last test point's number there.
#
# Each program gets CFT_TIMEOUT seconds (default 1800).  Exit status: 0 if
# no test point failed, 1 otherwise.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODE=kselftest
START=1
PLAN=1
COUNT_FILE=
while [ $# -gt 0 ]; do
	case $1 in
	--kselftest) MODE=kselftest; shift ;;
	--flat) MODE=flat; shift ;;
	--start) START=$2; shift 2 ;;
	--no-plan) PLAN=0; shift ;;
	--count-file) COUNT_FILE=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "runner.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
TIMEOUT=${CFT_TIMEOUT:-1800}
STATE=$(mktemp)
trap 'rm -f "$STATE" "$STATE.rc"' EXIT

n=$((START - 1))
failed=0
[ "$PLAN" = 1 ] && [ "$START" = 1 ] && echo "TAP version 13"
[ "$MODE" = kselftest ] && [ "$PLAN" = 1 ] && echo "1..$#"

point() {	# point ok|not_ok TEXT
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}

for t in "$@"; do
	name=$(basename "$t")
	path=$t
	[[ $path = /* ]] || path=$HERE/$t
	if [ ! -x "$path" ]; then
		if [ "$MODE" = kselftest ]; then
			point ok "selftests: nf_cuckoo: $name # SKIP not built ($path)"
		else
			point ok "- $name # SKIP not built ($path)"
		fi
		continue
	fi
	if [ "$MODE" = kselftest ]; then
		echo "# selftests: nf_cuckoo: $name"
		{ (cd "$(dirname "$path")" && timeout "$TIMEOUT" "$path" 2>&1)
		  echo $? >"$STATE.rc"; } | sed -u 's/^/# /'
		rc=$(cat "$STATE.rc")
		case $rc in
		0) point ok "selftests: nf_cuckoo: $name" ;;
		4) point ok "selftests: nf_cuckoo: $name # SKIP" ;;
		124) point not_ok "selftests: nf_cuckoo: $name # TIMEOUT $TIMEOUT seconds" ;;
		*) point not_ok "selftests: nf_cuckoo: $name # exit=$rc" ;;
		esac
		continue
	fi
	t0=$SECONDS
	{ (cd "$(dirname "$path")" && timeout "$TIMEOUT" "$path" 2>&1)
	  echo $? >"$STATE.rc"; } |
	awk -v g="$n" -v name="$name" -v state="$STATE" '
		BEGIN { points = 0; bad = 0; skip = "" }
		/^TAP version/ { next }
		/^1\.\.0([^0-9]|$)/ {
			skip = $0
			sub(/^1\.\.0 *(# *[Ss][Kk][Ii][Pp] *)?/, "", skip)
			if (skip == "") skip = "skipped"
			next
		}
		/^1\.\.[0-9]+/ { print "# " name ": plan " $0; fflush(); next }
		/^ok [0-9]+/ { g++; points++; sub(/^ok [0-9]+/, "ok " g); print; fflush(); next }
		/^not ok [0-9]+/ {
			g++; points++; bad++
			sub(/^not ok [0-9]+/, "not ok " g); print; fflush(); next
		}
		/^#/ { print; fflush(); next }
		{ print "# " $0; fflush() }
		END { printf "%d %d %d\n%s\n", g, points, bad, skip > state }'
	rc=$(cat "$STATE.rc")
	{ read -r n points bad; read -r skip; } <"$STATE"
	# Where the suite's time goes (`make check` has 45 minutes in all).
	echo "# $name: $((SECONDS - t0)) s"
	failed=$((failed + bad))
	if [ "$points" = 0 ] && [ "$rc" = 4 ]; then
		point ok "- $name # SKIP ${skip:-skipped}"
	elif [ "$rc" = 124 ]; then
		point not_ok "- $name timed out after $TIMEOUT s"
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$bad" = 0 ]; then
		point not_ok "- $name exited with status $rc"
	elif [ "$points" = 0 ]; then
		point not_ok "- $name printed no test result"
	fi
done
[ "$MODE" = flat ] && [ "$PLAN" = 1 ] && echo "1..$n"
[ -n "$COUNT_FILE" ] && echo "$n" >"$COUNT_FILE"
[ "$failed" = 0 ]
