#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Netfilter takes at most 1024 hooks at one point of a family: with 1024
# filters at as many priorities of one hook, a filter at a 1025th priority
# cannot be made.  NEW says so; so does a restore, whose table was fine:
# LOAD_END reports the hook it could not register (not "saved table
# rejected") and leaves no filter behind.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

plan 8

"$CFCTL" create late family ip key src capacity 100 priority 5000
"$CFCTL" add late src 192.0.2.1
check "save a filter at priority 5000" "$CFCTL" save -f "$TMP/late" late
"$CFCTL" destroy late
for i in $(seq 1 1024); do
	echo "create h$i family ip key src capacity 1 priority $i"
done >"$TMP/many"
check "1024 filters at 1024 priorities of prerouting" "$CFCTL" restore -f "$TMP/many"
HOOK="cannot register the filter's netfilter hook"
expect "a filter at a 1025th priority: NEW says which hook failed" 3 \
	"$HOOK.*\(Argument list too long\)" \
	"$CFCTL" create x family ip key src capacity 1 priority 3000
run "$CFCTL" restore -f "$TMP/late"
if [ "$RC" = 3 ] && out_matches "$HOOK: load aborted, filter removed" &&
   ! out_matches "saved table rejected"; then
	ok "restoring one there: LOAD_END says the hook failed, not the table"
else
	not_ok "restoring one there: LOAD_END says the hook failed, not the table" \
		"status $RC (want 3)" "$OUT"
fi
[ "$(filters | grep -c .)" = 1024 ] && ! filters | grep -qx late &&
	ok "... and leaves no filter behind" ||
	not_ok "... and leaves no filter behind" "$(filters | grep -v '^h')"

# A disabled filter there needs no hook and can be made; enabling it
# needs one, and SET says that is what failed (it said "out of memory").
check "a disabled filter at a 1025th priority can be made" \
	"$CFCTL" create off family ip key src capacity 1 priority 3000 disabled
expect "enabling it: SET says which hook failed" 3 \
	"$HOOK.*\(Argument list too long\)" "$CFCTL" set off enable
[ "$(jfield off 'f["enabled"]')" = False ] &&
	ok "... and the filter stays disabled" ||
	not_ok "... and the filter stays disabled" "$(jfield off 'f')"

finish
