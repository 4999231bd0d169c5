#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reroute: a mark set at the output hook feeds policy routing.  a and b
# are joined by two veth pairs: va-vb (10.0.0.0/24, fd00::/64, the main
# table's route to b) and va2-vb2 (10.0.1.0/24, fd01::/64).  In a, rules
# send fwmark 0x42/0xff to table 100, whose routes to b's first addresses
# go through va2.  A filter in a's output hook marks the listed flows
# 0x42/0xff: by then the route was chosen without the mark, so nf_cuckoo
# must route the packet again, as iptables' mangle table does.  nftables
# counters at b's prerouting say which link each packet came in on: the
# listed flows only on vb2, the others only on vb, IPv4 and IPv6.  A
# filter that leaves the packet's mark as it was does not reroute; one
# whose mark leads to an unreachable route drops the packet, and the
# sender gets the routing error.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 7

topo_pair
link a va2 10.0.1.1/24 fd01::1/64 b vb2 10.0.1.2/24 fd01::2/64
for f in 4 6; do
	if [ $f = 4 ]; then dst=$B4/32 gw=10.0.1.2; else dst=$B6/128 gw=fd01::2; fi
	printf '%s\n' "rule add fwmark 0x42/0xff table 100" \
		"route add $dst via $gw dev va2 table 100" |
		ns a ip -$f -batch - || bail "cannot set up IPv$f policy routing in a"
done

nft_load b <<EOF
table inet t {
	counter l4_1 {}
	counter l4_2 {}
	counter o4_1 {}
	counter o4_2 {}
	counter l6_1 {}
	counter l6_2 {}
	counter o6_1 {}
	counter o6_2 {}
	counter k4_1 {}
	counter k4_2 {}
	counter u4 {}
	chain pre {
		type filter hook prerouting priority 0;
		iifname vb ip saddr $A4 udp sport 4001 udp dport 5001 counter name l4_1
		iifname vb2 ip saddr $A4 udp sport 4001 udp dport 5001 counter name l4_2
		iifname vb ip saddr $A4 udp sport 4002 udp dport 5001 counter name o4_1
		iifname vb2 ip saddr $A4 udp sport 4002 udp dport 5001 counter name o4_2
		iifname vb ip6 saddr $A6 udp sport 4001 udp dport 5001 counter name l6_1
		iifname vb2 ip6 saddr $A6 udp sport 4001 udp dport 5001 counter name l6_2
		iifname vb ip6 saddr $A6 udp sport 4002 udp dport 5001 counter name o6_1
		iifname vb2 ip6 saddr $A6 udp sport 4002 udp dport 5001 counter name o6_2
		iifname vb ip saddr $A4 udp sport 4003 udp dport 5001 counter name k4_1
		iifname vb2 ip saddr $A4 udp sport 4003 udp dport 5001 counter name k4_2
		ip saddr $A4 udp sport 4004 udp dport 5001 counter name u4
	}
}
EOF

check "create an output mark filter (0x42/0xff) with one IPv4 and one IPv6 flow" eval \
	'cfq a create rt hook output action mark 0x42/0xff &&
	 cfq a add rt udp $A4:4001 $B4:5001, udp [$A6]:4001 [$B6]:5001'

pktr a seq "udp --dst $B4 --sport 4001 --dport 5001 -n 5" \
	"udp --dst $B4 --sport 4002 --dport 5001 -n 5" \
	"udp --dst $B6 --sport 4001 --dport 5001 -n 5" \
	"udp --dst $B6 --sport 4002 --dport 5001 -n 5"
counters b
check_all "listed IPv4 flow: all 5 take table 100's route (vb2), none the main one (vb)" \
	"${CNT[l4_2]}" = 5 "${CNT[l4_1]}" = 0
check_all "listed IPv6 flow: all 5 take table 100's route (vb2), none the main one (vb)" \
	"${CNT[l6_2]}" = 5 "${CNT[l6_1]}" = 0
check_all "unlisted flows stay on the main route (vb), IPv4 and IPv6" \
	"${CNT[o4_1]}" = 5 "${CNT[o4_2]}" = 0 "${CNT[o6_1]}" = 5 "${CNT[o6_2]}" = 0
read -r look match drop mark <<<"$(pstats a rt)"
check_all "rt counters: 10 matched and marked, 20 or more looked up" \
	"$match" = 10 "$mark" = 10 "$look" -ge 20

# A mark that changes nothing is no reason to route again: nftables in a
# marks a third flow 0x42 before nf_cuckoo (a filter chain, which does not
# reroute), so it leaves on vb; a filter marking it 0x42 again must not
# move it to vb2.
nft_load a <<EOF
table inet t {
	chain out {
		type filter hook output priority -400;
		udp sport 4003 meta mark set 0x42
	}
}
EOF
cfq a create same hook output family ip action mark 0x42/0xff &&
cfq a add same udp $A4:4003 $B4:5001 || bail "cannot create filter same"
pktr a udp --dst $B4 --sport 4003 --dport 5001 -n 3
counters b
read -r look match drop mark <<<"$(pstats a same)"
check_all "a mark filter that leaves the mark as it was: marked 3, still on vb" \
	"$mark" = 3 "${CNT[k4_1]}" = 3 "${CNT[k4_2]}" = 0

# Mark 0x43 leads to table 101, where b is unreachable.
printf '%s\n' "rule add fwmark 0x43/0xff table 101" \
	"route add unreachable $B4/32 table 101" |
	ns a ip -batch - || bail "cannot set up table 101 in a"
cfq a create unr hook output family ip action mark 0x43/0xff &&
cfq a add unr udp $A4:4004 $B4:5001 || bail "cannot create filter unr"
pktr a udp --dst $B4 --sport 4004 --dport 5001 -n 3
counters b
read -r look match drop mark <<<"$(pstats a unr)"
check_all "marked onto an unreachable route: none sent (sendto fails), none arrives" \
	"${R[0]:-}" = 0 "${CNT[u4]}" = 0 "$mark" = 3
finish
