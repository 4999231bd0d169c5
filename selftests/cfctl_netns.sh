#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Filters live per network namespace: one made in a namespace is invisible
# in another, names do not clash across namespaces, and a filter goes
# away with its namespace (its memory is given back).  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
command -v ip >/dev/null || skip_all "ip (iproute2) missing"
isolate "$@"

A=cft-a-$$
B=cft-b-$$
cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$A" || skip_all "cannot create network namespaces"
ip netns add "$B"

in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# A counter of the kernel's memory that a large filter's table moves.
vmalloc_kb() {
	awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo
}
avail_kb() {
	awk '/^MemAvailable:/ { print $2 }' /proc/meminfo
}

plan 11

check "create x in netns A" in_ns "$A" "$CFCTL" create x family ip key src fingerprint 32 seed 7
run "$CFCTL" list -n
[ "$RC" = 0 ] && [ -z "$OUT" ] && ok "this namespace does not see it" ||
	not_ok "this namespace does not see it" "$OUT"
run in_ns "$B" "$CFCTL" list -n
[ "$RC" = 0 ] && [ -z "$OUT" ] && ok "netns B does not see it" || not_ok "netns B does not see it" "$OUT"
expect "show x from netns B: no such filter" 3 "no filter" in_ns "$B" "$CFCTL" show x
check "the same name in netns B is another filter" \
	in_ns "$B" "$CFCTL" create x family ip key src fingerprint 32 seed 8
in_ns "$A" "$CFCTL" add x src 10.0.0.1
expect "an entry added in A is not in B's x" 1 "NOT" in_ns "$B" "$CFCTL" test x src 10.0.0.1
expect "... and is in A's x" 0 "" in_ns "$A" "$CFCTL" test x src 10.0.0.1

# A large filter in A, then A goes away.
sleep 1
v0=$(vmalloc_kb)
m0=$(avail_kb)
check "a large filter in netns A" in_ns "$A" "$CFCTL" create large capacity 40M
bytes=$(in_ns "$A" "$CFCTL" -j show large | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["bytes"])')
v1=$(vmalloc_kb)
m1=$(avail_kb)
diag "large: $bytes bytes; VmallocUsed +$((v1 - v0)) kB, MemAvailable -$((m0 - m1)) kB"
ip netns del "$A"
back=0
for i in $(seq 1 60); do
	v2=$(vmalloc_kb)
	m2=$(avail_kb)
	# Given back: at least 3/4 of the filter's bytes, by either counter.
	if [ $((v1 - v2)) -ge $((bytes * 3 / 4 / 1024)) ] ||
	   [ $((m2 - m1)) -ge $((bytes * 3 / 4 / 1024)) ]; then
		back=1
		break
	fi
	sleep 0.5
done
diag "after ip netns del: VmallocUsed -$((v1 - v2)) kB, MemAvailable +$((m2 - m1)) kB"
[ "$back" = 1 ] && ok "deleting netns A gave the filter's memory back" ||
	not_ok "deleting netns A gave the filter's memory back" \
		"VmallocUsed $v0 -> $v1 -> $v2 kB, MemAvailable $m0 -> $m1 -> $m2 kB"
expect "netns B's filter is still there" 0 "" in_ns "$B" "$CFCTL" show x
run "$CFCTL" list -n
[ "$RC" = 0 ] && [ -z "$OUT" ] && ok "and this namespace still has none" ||
	not_ok "and this namespace still has none" "$OUT"

finish
