#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl: add, test, del; duplicates; partial keys; bidirectional keys;
# files of entries; batches larger than one netlink message; a full
# filter; all-or-nothing batches.
#
# Filters that must answer "absent" have a fixed seed and 32-bit
# fingerprints, so that a false positive (at most 2b/2^32) cannot make the
# test flaky.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

items() {
	jfield "$1" 'f["stats"]["items"]'
}

plan 40

"$CFCTL" create ft fingerprint 32 seed 1 capacity 100000 || true

check "add a 5-tuple IPv4 entry" "$CFCTL" add ft udp 10.0.0.1:5353 10.0.0.2:53
expect "test: present, exit 0" 0 "is in ft" \
	"$CFCTL" test ft udp 10.0.0.1:5353 10.0.0.2:53
expect "test: another port is absent, exit 1" 1 "is NOT in ft" \
	"$CFCTL" test ft udp 10.0.0.1:5353 10.0.0.2:54
expect "test: the same flow over tcp is absent" 1 "NOT" \
	"$CFCTL" test ft tcp 10.0.0.1:5353 10.0.0.2:53
expect "test -q prints nothing" 1 "^$" "$CFCTL" -q test ft udp 10.0.0.9:1 10.0.0.2:53

check "add an IPv6 entry" "$CFCTL" add ft tcp "[2001:db8::1]:443" "[2001:db8::2]:50000"
expect "the IPv6 entry is present" 0 "" \
	"$CFCTL" test ft "tcp [2001:db8::1]:443 [2001:db8::2]:50000"
check "add an ICMP entry (no ports)" "$CFCTL" add ft icmp 10.0.0.1 10.0.0.2
expect "the ICMP entry is present" 0 "" "$CFCTL" test ft icmp 10.0.0.1 10.0.0.2

check "del the IPv4 entry" "$CFCTL" del ft udp 10.0.0.1:5353 10.0.0.2:53
expect "after del it is absent" 1 "NOT" "$CFCTL" test ft udp 10.0.0.1:5353 10.0.0.2:53
expect "del of an absent entry: the kernel's reason, exit 3" 3 \
	"^cfctl: del: entry 1 \(udp 10.0.0.1:5353 10.0.0.2:53\): .*not in the filter.*\(No such file or directory\)" \
	"$CFCTL" del ft udp 10.0.0.1:5353 10.0.0.2:53

# Duplicates: stored twice, deleted twice.
"$CFCTL" flush ft
"$CFCTL" add ft udp 10.1.1.1:1 10.1.1.2:2
check "add the same entry again" "$CFCTL" add ft udp 10.1.1.1:1 10.1.1.2:2
[ "$(items ft)" = 2 ] && ok "a duplicate is stored twice (items 2)" ||
	not_ok "a duplicate is stored twice (items 2)" "items $(items ft)"
"$CFCTL" del ft udp 10.1.1.1:1 10.1.1.2:2
expect "after one del the duplicate is still present" 0 "" \
	"$CFCTL" test ft udp 10.1.1.1:1 10.1.1.2:2
"$CFCTL" del ft udp 10.1.1.1:1 10.1.1.2:2
expect "after the second del it is absent" 1 "" "$CFCTL" test ft udp 10.1.1.1:1 10.1.1.2:2
"$CFCTL" add ft udp 10.1.1.1:1 10.1.1.2:2
run "$CFCTL" -exist -v add ft udp 10.1.1.1:1 10.1.1.2:2 udp 10.1.1.1:1 10.1.1.2:3
[ "$RC" = 0 ] && [ "$(items ft)" = 2 ] && grep -q "1 entries added, 1 skipped" <<<"$OUT" &&
	ok "-exist add skips what is already present" ||
	not_ok "-exist add skips what is already present" "status $RC items $(items ft)" "$OUT"
expect "-exist del skips what is missing" 0 "" \
	"$CFCTL" -exist del ft udp 10.9.9.9:1 10.1.1.2:2 udp 10.1.1.1:1 10.1.1.2:3
[ "$(items ft)" = 1 ] && ok "... and deleted what was there (items 1)" ||
	not_ok "... and deleted what was there (items 1)" "items $(items ft)"

# A batch is all or nothing.
"$CFCTL" flush ft
"$CFCTL" add ft udp 10.2.0.1:1 10.2.0.2:2
expect "del of [present, absent] fails on the second entry" 3 \
	"entry 2 .*not in the filter.*nothing was applied" \
	"$CFCTL" del ft udp 10.2.0.1:1 10.2.0.2:2 , udp 10.2.0.9:1 10.2.0.2:2
expect "the present entry was not deleted (the batch was undone)" 0 "" \
	"$CFCTL" test ft udp 10.2.0.1:1 10.2.0.2:2

# Partial keys.
"$CFCTL" create srcs family ip key src fingerprint 32 seed 2
check "source-only key: add src ADDR" "$CFCTL" add srcs src 192.0.2.1 src 192.0.2.2
expect "src 192.0.2.1 present, 192.0.2.3 absent" 1 "192.0.2.3 is NOT in srcs" \
	"$CFCTL" test srcs src 192.0.2.1 src 192.0.2.3
"$CFCTL" create svc family inet key dport,proto fingerprint 32 seed 3
check "port+protocol key, no address, on an inet filter" "$CFCTL" add svc proto udp dport 53
expect "proto udp dport 53 present; tcp 53 absent" 1 "dport 53 proto tcp is NOT" \
	"$CFCTL" test svc proto udp dport 53 , proto tcp dport 53

# Bidirectional keys match both directions.
"$CFCTL" create bi key src,dst,sport,dport,proto bidirectional fingerprint 32 seed 4
"$CFCTL" add bi tcp 198.51.100.1:40000 198.51.100.2:80
expect "bidirectional: the reverse flow is present" 0 "" \
	"$CFCTL" test bi tcp 198.51.100.2:80 198.51.100.1:40000
"$CFCTL" add ft tcp 198.51.100.1:40000 198.51.100.2:80
expect "not bidirectional: the reverse flow is absent" 1 "" \
	"$CFCTL" test ft tcp 198.51.100.2:80 198.51.100.1:40000

# Files of entries, more than one netlink message.
{
	echo "# a comment, then a blank line"
	echo
	for i in $(seq 0 9999); do
		echo "udp 10.3.$((i / 256)).$((i % 256)):$((1024 + i)) 10.4.0.1:53"
	done
} >"$TMP/e"
"$CFCTL" flush ft
run "$CFCTL" -v add -f "$TMP/e" ft
[ "$RC" = 0 ] && grep -qE "10000 entries added .* [3-9] requests" <<<"$OUT" &&
	ok "add -f: 10000 entries in several batches" ||
	not_ok "add -f: 10000 entries in several batches" "status $RC" "$OUT"
[ "$(items ft)" = 10000 ] && ok "items 10000" || not_ok "items 10000" "items $(items ft)"
expect "test -f: all 10000 present" 0 "10000 of 10000 entries present" \
	"$CFCTL" test -f "$TMP/e" ft
sed 's/10.4.0.1:53/10.4.0.1:54/' "$TMP/e" >"$TMP/absent"
expect "test -f of absent entries: exit 1, counted" 1 "0 of 10000 entries present.*10000 absent" \
	"$CFCTL" test -f "$TMP/absent" ft
check "del -f: all 10000" "$CFCTL" del -f "$TMP/e" ft
[ "$(items ft)" = 0 ] && ok "items 0 again" || not_ok "items 0 again" "items $(items ft)"

# IPv4 and IPv6 lines in runs of 1 to 2999: cfctl packs each run into
# records of its family, so the families alternate within one message;
# the kernel must count an entry's index across them.
awk 'BEGIN {
	n = split("1 2 1 2999 3 1700 1 600 1693", run, " ")
	for (k = 1; k <= n; k++)
		for (j = 0; j < run[k]; j++) {
			if (k % 2)
				printf "udp 10.5.%d.%d:%d 10.6.0.1:53\n", int(i / 256), i % 256, 1024 + i
			else
				printf "tcp [2001:db8::%x]:%d [2001:db8:1::1]:443\n", i, 1024 + i
			i++
		}
}' >"$TMP/mixed"
run "$CFCTL" add -f "$TMP/mixed" ft
[ "$RC" = 0 ] && [ "$(items ft)" = 7000 ] &&
	ok "add -f: 7000 IPv4 and IPv6 entries in alternating runs" ||
	not_ok "add -f: 7000 IPv4 and IPv6 entries in alternating runs" "status $RC, items $(items ft)" "$OUT"
expect "test -f: all 7000 present" 0 "7000 of 7000 entries present" \
	"$CFCTL" test -f "$TMP/mixed" ft
sed '4001s/:443$/:444/' "$TMP/mixed" >"$TMP/mixed-bad"
expect "del -f with an absent IPv6 entry on line 4001: that line is named" 3 \
	"^cfctl: del: line 4001: .*not in the filter" \
	"$CFCTL" del -f "$TMP/mixed-bad" ft
[ "$(items ft)" = 7000 ] && ok "the failed del -f applied nothing" ||
	not_ok "the failed del -f applied nothing" "items $(items ft)"
check "del -f: all 7000" "$CFCTL" del -f "$TMP/mixed" ft

# A full filter: the batch that does not fit is undone entirely.
"$CFCTL" create tiny capacity 16 bucket 2 kicks 10 nogrow
expect "add -f of 10000 entries to a filter of 16" 3 \
	"^cfctl: add: line [0-9]+: .*full.*\(No space left on device\)" \
	"$CFCTL" add -f "$TMP/e" tiny
grep -q "nothing was applied" <<<"$OUT" && [ "$(items tiny)" = 0 ] &&
	ok "the error says nothing was applied, and items is 0" ||
	not_ok "the error says nothing was applied, and items is 0" "items $(items tiny)" "$OUT"

finish
