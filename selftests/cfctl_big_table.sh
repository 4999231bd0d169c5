#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A table of 400 MB (capacity 256M, the namespace's ceiling raised for it)
# is flushed, saved and restored: the loops over the whole table (the
# flush's clear, LOAD_END's recount) yield as they go (cf_resched(); the
# unit test tests/test_cuckoo.c counts the yields), so the kernel log has
# no soft lockup or RCU stall, and the entry added after the flush is
# found after the restore.  The times are printed.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
P=/sys/module/nf_cuckoo/parameters
isolate "$@"

plan 6

TMP=$(mktemp -d)
OLD_NETNS=$(cat $P/netns_mem_max_mb)
OLD_MAX=$(cat $P/mem_max_mb 2>/dev/null)
cleanup() {
	echo "$OLD_NETNS" >$P/netns_mem_max_mb
	[ -n "$OLD_MAX" ] && echo "$OLD_MAX" >$P/mem_max_mb
	rm -rf "$TMP"
}
trap cleanup EXIT
echo 512 >$P/netns_mem_max_mb
[ -n "$OLD_MAX" ] && echo 1024 >$P/mem_max_mb
MARK="cfctl_big_table $$ $(date +%s%N)"
echo "$MARK" >/dev/kmsg

# secs CMD...: run, and print how long it took.
secs() {
	local t0

	t0=$(now)
	run "$@"
	diag "$(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }') s: $*"
	[ "$RC" = 0 ] || diag "status $RC: $OUT"
	return "$RC"
}

secs "$CFCTL" create big family ip key src capacity 256M &&
	ok "a filter of 256M entries (400 MB)" ||
	not_ok "a filter of 256M entries (400 MB)"
"$CFCTL" add big src 10.0.0.1 >/dev/null
secs "$CFCTL" flush big && ok "flush" || not_ok "flush"
"$CFCTL" add big src 10.0.0.2 >/dev/null
secs "$CFCTL" save -f "$TMP/big" big && ok "save" || not_ok "save"
"$CFCTL" destroy big
secs "$CFCTL" restore -f "$TMP/big" && ok "restore" || not_ok "restore"
expect "the entry added after the flush is there, the one before is not" 0 "" \
	bash -c "'$CFCTL' test big src 10.0.0.2 && ! '$CFCTL' test big src 10.0.0.1"
run bash -c "dmesg | sed -n '/$MARK/,\$p' | grep -iE 'soft lockup|rcu.*stall|hung task'"
[ -z "$OUT" ] && ok "no soft lockup, RCU stall or hung task in the kernel log" ||
	not_ok "no soft lockup, RCU stall or hung task in the kernel log" "$OUT"

finish
