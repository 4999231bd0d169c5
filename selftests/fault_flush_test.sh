#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TEST_ENTRIES of prefix keys against FLUSH of a grown filter (issue 30):
# a test of a prefix key asks every stage, and a flush drops every stage
# but the first, waits for a grace period and frees them.  A test that
# counted the stages before the flush must not look into those it freed.
#
# A filter keyed on src, capacity 300 factor 8 stages 16: its stages past
# the first are tables of 4.3 KB and 35 KB, vmalloc'ed (a read of one
# freed faults even without KASAN; and the flush sets their pointers to
# NULL).  For NFC_UAF_SECONDS (default 10) one process grows it and
# flushes it again and again ({ADD_ENTRIES of 2900 sources: 3 stages,
# counted with GET; FLUSH}), while NFC_UAF_TESTERS (default 4) others,
# at nice 19, send TEST_ENTRIES of 4096 prefix keys (src 10.A.B.0/24)
# back to back: nfc_nl.py growloop and testloop, each on one socket
# (cfctl, a process per request, would spend most of the time starting
# and parsing, and leave the race a small part of it).  Pass: every add
# grew the filter to 3 stages and every flush succeeded, every tester
# exited normally (not killed by an oops), the filter still grows and
# answers (a prefix added tests present with `cfctl test`, an address
# under it too), and the kernel log has no BUG, WARNING, Oops or KASAN
# report.
#
# Under QEMU's TCG the race is likely only if a test can stay between
# counting the stages and reading them for as long as a grace period
# takes: for the test the kernel's preemption is set to full
# (/sys/kernel/debug/sched/preempt, on a kernel built with
# PREEMPT_DYNAMIC, as Debian's are) and grace periods are expedited
# (/sys/kernel/rcu_expedited), both put back at the end.  Then the
# unfixed module oopses within seconds (a NULL pointer dereference in
# cf_prefetch_hash() or cf_contains_hash(), or a page fault on a freed
# vmalloc address, under nfcf_filter_test()); without those settings it
# seldom does.  NFC_UAF_PREEMPT=keep and NFC_UAF_EXPEDITED=0 leave them
# as they are.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
command -v python3 >/dev/null || skip_all "python3 missing"
isolate "$@"

SECS=${NFC_UAF_SECONDS:-10}
TESTERS=${NFC_UAF_TESTERS:-4}
NFCNL=$SELFTESTS/nfc_nl.py
PREEMPT=/sys/kernel/debug/sched/preempt
EXPEDITED=/sys/kernel/rcu_expedited
# 2900 sources: more than the first two stages hold (300 + 2400 and a
# few), so 3 stages.
FILL=2900
MINST=3
TMP=$(mktemp -d)
PIDS=()
OLD_PREEMPT=
OLD_EXPEDITED=
cleanup() {
	[ ${#PIDS[@]} -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null
	[ -n "$OLD_PREEMPT" ] && echo "$OLD_PREEMPT" >"$PREEMPT"
	[ -n "$OLD_EXPEDITED" ] && echo "$OLD_EXPEDITED" >"$EXPEDITED"
	rm -rf "$TMP"
}
trap cleanup EXIT

plan 5
kmsg_mark

check "create a growing filter keyed on src (capacity 300 factor 8 stages 16)" \
	"$CFCTL" create g family ip key src capacity 300 factor 8 stages 16 seed 7

if [ "${NFC_UAF_PREEMPT:-full}" != keep ] && [ -w "$PREEMPT" ]; then
	# "none (voluntary) full": the mode in brackets
	OLD_PREEMPT=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$PREEMPT")
	if [ -n "$OLD_PREEMPT" ] && echo full >"$PREEMPT" 2>/dev/null; then
		diag "preemption for the test: $(cat "$PREEMPT") (was $OLD_PREEMPT)"
	else
		OLD_PREEMPT=
	fi
fi
[ -n "$OLD_PREEMPT" ] ||
	diag "preemption left as it is: $(cat "$PREEMPT" 2>/dev/null || echo "no $PREEMPT")"
if [ "${NFC_UAF_EXPEDITED:-1}" = 1 ] && [ -w "$EXPEDITED" ]; then
	OLD_EXPEDITED=$(cat "$EXPEDITED")
	echo 1 >"$EXPEDITED" &&
		diag "expedited grace periods for the test (rcu_expedited was $OLD_EXPEDITED)"
fi

t0=$(now)
{ "$NFCNL" growloop g "$SECS" $FILL $MINST; echo "STATUS $?"; } >"$TMP/grower" 2>&1 &
PIDS+=($!)
for ((i = 0; i < TESTERS; i++)); do
	{ nice -n 19 "$NFCNL" testloop g "$SECS" 4096 24; echo "STATUS $?"; } \
		>"$TMP/tester.$i" 2>&1 &
	PIDS+=($!)
done
# Each ends by itself (a tester killed by an oops too).
wait "${PIDS[@]}"
PIDS=()
diag "they ran $(elapsed "$t0") s"

rounds=$(sed -n 's/^rounds \([0-9]*\) .*/\1/p' "$TMP/grower")
if grep -qx 'STATUS 0' "$TMP/grower" && [ "${rounds:-0}" -ge 2 ]; then
	ok "$rounds flushes of the filter, each grown by an add of $FILL entries ($(sed -n 's/^rounds [0-9]* //p' "$TMP/grower"))"
else
	not_ok "flushes of the filter, each grown by an add of $FILL entries to $MINST stages or more" \
		"$(cat "$TMP/grower")"
fi
reqs=$(awk '/^requests/ { n += $2 } END { print n + 0 }' "$TMP"/tester.*)
good=$(grep -lx 'STATUS 0' "$TMP"/tester.* | wc -l)
[ "$good" = "$TESTERS" ] && [ "$reqs" -ge "$TESTERS" ] &&
	ok "meanwhile $TESTERS processes made $reqs requests to test 4096 prefix keys, and exited normally" ||
	not_ok "meanwhile $TESTERS processes made requests to test 4096 prefix keys, and exited normally" \
		"$good of $TESTERS exited with status 0, $reqs requests" \
		"$(for f in "$TMP"/tester.*; do tail -n 2 "$f"; done)"

# The filter still grows and answers: a prefix in a filter of 3 stages.
awk -v n=$FILL 'BEGIN { for (i = 0; i < n; i++)
	printf "add g src 10.64.%d.%d\n", int(i / 256) % 256, i % 256 }' >"$TMP/fill"
"$CFCTL" flush g
"$CFCTL" add g src 10.200.0.0/16
"$CFCTL" restore -f "$TMP/fill"
n=$("$CFCTL" show g 2>/dev/null | sed -n 's/^Stages: \([0-9]*\) .*/\1/p')
run "$CFCTL" test g src 10.200.0.0/16 src 10.200.7.9
if [ "${n:-0}" -ge $MINST ] && [ "$RC" = 0 ] && [ "$(grep -c 'is in g' <<<"$OUT")" = 2 ]; then
	ok "then, grown to $n stages again, a prefix added tests present, an address under it too"
else
	not_ok "then, grown to 3 stages again, a prefix added tests present, an address under it too" \
		"$n stages" "status $RC: $OUT"
fi

check_klog
finish
