#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One million entries through `cfctl restore`, in large netlink batches:
# prints the rate.  Then the same filter saved and restored from its raw
# table (no keys), and its rate.  TAP output.
#
#   CFT_1M_ENTRIES   entries (default 1000000)
#   CFT_1M_MAX_S     seconds the restore of the entries may take (default
#                    300: a VM without KVM emulates every instruction)

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

N=${CFT_1M_ENTRIES:-1000000}
MAX_S=${CFT_1M_MAX_S:-300}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

plan 8

# Distinct 5-tuples: i gives the source address and port.
t0=$(now)
require_genflows
{
	echo "# $N entries"
	echo "create big family ip capacity $N"
	"$GENFLOWS" -p "add big " 0 "$N" 192.0.2.1
} >"$TMP/stream"
diag "generated $N add lines ($(wc -c <"$TMP/stream") bytes) in $(elapsed "$t0") s"

t0=$(now)
run "$CFCTL" -v restore -f "$TMP/stream"
secs=$(elapsed "$t0")
rate=$(awk -v n="$N" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
if [ "$RC" = 0 ]; then
	ok "restore of $N entries: $secs s, $rate entries/s"
else
	not_ok "restore of $N entries" "status $RC" "$OUT"
fi
diag "$OUT"
reqs=$(sed -n 's/.* \([0-9]*\) requests in .*/\1/p' <<<"$OUT")
[ -n "$reqs" ] && [ "$reqs" -le $((N / 2000 + 10)) ] &&
	ok "in large batches ($reqs requests for $N entries)" ||
	not_ok "in large batches" "requests: ${reqs:-?}" "$OUT"
awk -v s="$secs" -v m="$MAX_S" 'BEGIN { exit !(s <= m) }' &&
	ok "within ${MAX_S} s" || not_ok "within ${MAX_S} s" "took $secs s"

[ "$(jfield big 'f["stats"]["items"]')" = "$N" ] && ok "items = $N" ||
	not_ok "items = $N" "$("$CFCTL" show big 2>&1)"
diag "$("$CFCTL" show big | grep -E '^(Items|Load|Size|Bits)')"

# A sample of what was added is present (every 97th line).
awk 'NR > 2 && NR % 97 == 0 { $1 = ""; $2 = ""; print }' "$TMP/stream" >"$TMP/sample"
expect "a sample of $(wc -l <"$TMP/sample") added entries is present" 0 \
	"([0-9]+) of \\1 entries present" "$CFCTL" test -f "$TMP/sample" big

# The raw table: save and restore without the keys.
t0=$(now)
check "save the filter" "$CFCTL" save -f "$TMP/saved" big
diag "save: $(elapsed "$t0") s, $(wc -c <"$TMP/saved") bytes"
"$CFCTL" destroy big
t0=$(now)
check "restore it from its table" "$CFCTL" restore -f "$TMP/saved"
diag "restore of the table: $(elapsed "$t0") s"
run "$CFCTL" test -f "$TMP/sample" big
[ "$RC" = 0 ] && out_matches "([0-9]+) of \\1 entries present" &&
	[ "$(jfield big 'f["stats"]["items"]')" = "$N" ] &&
	ok "after the table restore: items = $N, the sample is present" ||
	not_ok "after the table restore: items = $N, the sample is present" "$OUT" \
		"$("$CFCTL" show big 2>&1)"

finish
