#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mark: a filter with action mark 0x42/0xff in b's prerouting.  Packets of
# its flows arrive at b's input chain carrying the mark (nftables counters
# matching on the mark prove it), IPv4 and IPv6; mark bits outside the mask
# are kept; other packets keep the mark they had (none, or one set before).
# Marking passes the packet on: a socket receives it.  With a drop filter
# after the mark filter at the same hook, a packet is marked and then
# dropped, and a filter after the drop filter never sees it; with the drop
# filter disabled, the filter after it marks the packet, last.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 10

topo_pair
RDY=$SCRATCH/recv.ready
bg b "$SCRATCH/recv.out" recv -6 --port 5001 --count 13 --time 30 --ready "$RDY"
RECV=$BGPID

# pre runs before nf_cuckoo (-300) and sets a mark for the mask check.
nft_load b <<EOF
table inet t {
	counter m4 {}
	counter all4 {}
	counter m6 {}
	counter all6 {}
	counter masked {}
	counter keep {}
	counter none4 {}
	counter none6 {}
	counter other {}
	counter m99 {}
	chain pre {
		type filter hook prerouting priority -350;
		udp dport { 5002, 5003 } meta mark set 0xf00
	}
	chain in {
		type filter hook input priority 0;
		ip saddr $A4 udp sport 4001 udp dport 5001 meta mark 0x42 counter name m4
		ip saddr $A4 udp sport 4001 udp dport 5001 counter name all4
		ip saddr $A4 udp sport 4001 udp dport 5001 meta mark 0x99 counter name m99
		ip6 saddr $A6 udp sport 4001 udp dport 5001 meta mark 0x42 counter name m6
		ip6 saddr $A6 udp sport 4001 udp dport 5001 counter name all6
		udp sport 4002 udp dport 5002 meta mark 0xf42 counter name masked
		udp sport 4003 udp dport 5003 meta mark 0xf00 counter name keep
		ip saddr $A4 udp sport 4009 meta mark 0 counter name none4
		ip6 saddr $A6 udp sport 4009 meta mark 0 counter name none6
		udp sport 4009 counter name other
	}
}
EOF

check "create a mark filter (0x42/0xff) and add three flows" eval \
	'cfq b create mk action mark 0x42/0xff &&
	 cfq b add mk udp $A4:4001 $B4:5001, udp [$A6]:4001 [$B6]:5001, \
		udp $A4:4002 $B4:5002'

wait_file "$RDY" || bail "the receiver did not start"
pktr a seq "udp --dst $B4 --sport 4001 --dport 5001 -n 5" \
	"udp --dst $B6 --sport 4001 --dport 5001 -n 5" \
	"udp --dst $B4 --sport 4002 --dport 5002 -n 3" \
	"udp --dst $B4 --sport 4003 --dport 5003 -n 3" \
	"udp --dst $B4 --sport 4009 --dport 5001 -n 3" \
	"udp --dst $B6 --sport 4009 --dport 5001 -n 3"
counters b
check_all "listed IPv4 flow: all 5 arrive, each with mark 0x42" \
	"${R[0]:-}" = 5 "${CNT[all4]}" = 5 "${CNT[m4]}" = 5
check_all "listed IPv6 flow: all 5 arrive, each with mark 0x42" \
	"${R[1]:-}" = 5 "${CNT[all6]}" = 5 "${CNT[m6]}" = 5
check_eq "mark 0xf00 set before the filter becomes 0xf42 (bits outside the mask kept)" \
	"${CNT[masked]}" 3
check_all "unlisted flows keep their mark: 0xf00, or none (IPv4 and IPv6)" \
	"${CNT[keep]}" = 3 "${CNT[none4]}" = 3 "${CNT[none6]}" = 3 \
	"${CNT[other]}" = 6
wait "$RECV"
check_eq "a socket on b received all 13 datagrams sent to its port" \
	"$(cat "$SCRATCH/recv.out")" 13
read -r look match drop mark <<<"$(pstats b mk)"
check_all "mk counters: matches = marked = 13, dropped 0, lookups >= 22" \
	"$match" = 13 "$mark" = 13 "$drop" = 0 "$look" -ge 22

# Same hook and priority: filters run in creation order.
cfq b create dr family ip && cfq b add dr udp $A4:4001 $B4:5001 &&
cfq b create mk2 family ip action mark 0x99 &&
cfq b add mk2 udp $A4:4001 $B4:5001 || bail "cannot create dr and mk2"
counters b
m4=${CNT[m4]}
all4=${CNT[all4]}
pktr a udp --dst $B4 --sport 4001 --dport 5001 -n 3
counters b
read -r look match drop mark2 <<<"$(pstats b mk)"
read -r dlook dmatch ddrop dmark <<<"$(pstats b dr)"
check_all "mark then drop: nothing arrives; mk marked 3 more, dr dropped 3" \
	"${R[0]:-}" = 3 "${CNT[all4]}" = "$all4" "${CNT[m4]}" = "$m4" \
	"$mark2" = 16 "$ddrop" = 3 "$dmatch" = 3
read -r look match drop mark <<<"$(pstats b mk2)"
check_all "a filter after the drop filter never sees the dropped packets" \
	"$look" = 0 "$mark" = 0

# The hook's list still holds dr, disabled: skipped, and mk2 comes last.
cfq b set dr disable || bail "cannot disable dr"
pktr a udp --dst $B4 --sport 4001 --dport 5001 -n 3
counters b
read -r look match drop mark <<<"$(pstats b mk2)"
read -r dlook2 dmatch2 ddrop2 dmark2 <<<"$(pstats b dr)"
check_all "dr disabled: mk then mk2 mark, all 3 arrive with 0x99; dr not looked up" \
	"${CNT[all4]}" = $((all4 + 3)) "${CNT[m99]}" = 3 "${CNT[m4]}" = "$m4" \
	"$mark" = 3 "$dlook2" = "$dlook"
finish
