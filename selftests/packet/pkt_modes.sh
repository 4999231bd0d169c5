#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Filter modes, each proven by traffic and counters:
#  - bidirectional: an entry written in one direction drops the other
#    one too (b drops a's datagrams listed as b -> a; a drops b's replies
#    to a TCP connection listed as a -> b), a non-bidirectional filter
#    with the same entry does not match, swapping the ports alone does not;
#  - invert: an allow list drops everything of its family but its flow;
#  - count only: matching packets are counted and all arrive;
#  - key subsets: dport+proto (one entry for IPv4 and IPv6, any source),
#    and the source address alone.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 12

topo_pair
# b's SYN-ACKs that bia drops are not sent again: a's RSTs to late ones
# would be stray packets in the invert test.
ns b sysctl -qw net.ipv4.tcp_synack_retries=0
serve b 6001 -6
nft_load b <<EOF
table inet t {
	counter bi4 {}
	counter bi6 {}
	counter swapped {}
	counter syn4 {}
	counter syn6 {}
	counter allowed {}
	counter denied {}
	counter ping4 {}
	counter ping6 {}
	counter cnt4 {}
	counter cnt6 {}
	counter cnt_o {}
	counter p5005 {}
	counter p5006 {}
	counter tcp5005 {}
	counter src6 {}
	counter all4 {}
	chain pre {
		type filter hook prerouting priority -350;
		meta nfproto ipv4 counter name all4
	}
	chain in {
		type filter hook input priority 0;
		ip saddr $A4 udp sport 4001 udp dport 5001 counter name bi4
		ip6 saddr $A6 udp sport 4001 udp dport 5001 counter name bi6
		udp sport 5001 udp dport 4001 counter name swapped
		ip saddr $A4 tcp sport 4101 tcp dport 6001 tcp flags & (syn | ack) == syn counter name syn4
		ip6 saddr $A6 tcp sport 4101 tcp dport 6001 tcp flags & (syn | ack) == syn counter name syn6
		udp sport 4001 udp dport 5002 counter name allowed
		udp sport 4001 udp dport 5003 counter name denied
		icmp type echo-request counter name ping4
		icmpv6 type echo-request counter name ping6
		ip saddr $A4 udp sport 4004 udp dport 5004 counter name cnt4
		ip6 saddr $A6 udp sport 4004 udp dport 5004 counter name cnt6
		udp sport 4005 udp dport 5004 counter name cnt_o
		udp dport 5005 counter name p5005
		udp dport 5006 counter name p5006
		tcp dport 5005 counter name tcp5005
		ip6 saddr $A6 udp dport 5007 counter name src6
	}
}
EOF

# Bidirectional.  uni comes first: it sees what bi drops.
cfq b create uni action count && cfq b add uni udp $B4:5001 $A4:4001 &&
cfq b create bi bidirectional &&
cfq b add bi udp $B4:5001 $A4:4001, udp [$B6]:5001 [$A6]:4001 &&
cfq a create bia bidirectional &&
cfq a add bia tcp $A4:4101 $B4:6001, tcp [$A6]:4101 [$B6]:6001 ||
	bail "cannot create the bidirectional filters"
pktr a seq "udp --dst $B4 --sport 4001 --dport 5001 -n 3" \
	"udp --dst $B6 --sport 4001 --dport 5001 -n 3" \
	"udp --dst $B4 --sport 5001 --dport 4001 -n 3" \
	"tcp --dst $B4 --sport 4101 --dport 6001 --timeout 0.8" \
	"tcp --dst $B6 --sport 4101 --dport 6001 --timeout 0.8" \
	"tcp --dst $B4 --sport 4102 --dport 6001"
counters b
check_all "bidirectional: a -> b datagrams listed as b -> a are dropped (IPv4, IPv6)" \
	"${R[0]:-}" = 3 "${R[1]:-}" = 3 "${CNT[bi4]}" = 0 "${CNT[bi6]}" = 0
check_all "bidirectional: swapping the ports alone is another flow: passes" \
	"${R[2]:-}" = 3 "${CNT[swapped]}" = 3
read -r look match drop mark <<<"$(pstats b uni)"
check_all "the same entry in a non-bidirectional filter matches nothing" \
	"$match" = 0 "$look" -ge 9
check_all "bidirectional in a: b's replies to a listed connection are dropped" \
	"${R[3]:-}" = timeout "${R[4]:-}" = timeout "${CNT[syn4]}" -ge 1 \
	"${CNT[syn6]}" -ge 1 "${R[5]:-}" = ok
read -r look match drop mark <<<"$(pstats b bi)"
read -r alook amatch adrop amark <<<"$(pstats a bia)"
check_all "counters: bi dropped 6 datagrams, bia at least 2 SYN-ACKs" \
	"$drop" = 6 "$match" = 6 "$adrop" -ge 2 "$amatch" = "$adrop"
cfq b destroy uni bi && cfq a destroy bia || bail "cannot destroy"

# Invert: an allow list of one flow, IPv4 only.
cfq b create al family ip invert && cfq b add al udp $A4:4001 $B4:5002 ||
	bail "cannot create al"
counters b
declare -A PRE
for k in "${!CNT[@]}"; do PRE[$k]=${CNT[$k]}; done
d() { echo $((${CNT[$1]:-0} - ${PRE[$1]:-0})); }
pktr a seq "udp --dst $B4 --sport 4001 --dport 5002 -n 3" \
	"udp --dst $B4 --sport 4001 --dport 5003 -n 3" \
	"ping --dst $B4 -n 1 --timeout 0.5" "ping --dst $B6 -n 1"
counters b
check_eq "invert: the allowed flow arrives" "$(d allowed)" 3
check_all "invert: everything else IPv4 is dropped (UDP, ping); IPv6 is not" \
	"$(d denied)" = 0 "$(d ping4)" = 0 "${R[2]:-}" = 0 \
	"${R[3]:-}" = 1 "$(d ping6)" = 1
# all4 counts every IPv4 packet b gets: all but the 3 allowed match.
read -r look match drop mark <<<"$(pstats b al)"
check_all "invert counters: all but the 3 allowed match and are dropped (at least 4)" \
	"$look" = "$(d all4)" "$match" = $((look - 3)) "$drop" = "$match" \
	"$match" -ge 4
cfq b destroy al || bail "cannot destroy al"

# Count only.
cfq b create cn action count &&
cfq b add cn udp $A4:4004 $B4:5004, udp [$A6]:4004 [$B6]:5004 ||
	bail "cannot create cn"
pktr a seq "udp --dst $B4 --sport 4004 --dport 5004 -n 3" \
	"udp --dst $B6 --sport 4004 --dport 5004 -n 3" \
	"udp --dst $B4 --sport 4005 --dport 5004 -n 2"
counters b
check_all "count only: every packet arrives, listed or not" \
	"${CNT[cnt4]}" = 3 "${CNT[cnt6]}" = 3 "${CNT[cnt_o]}" = 2
read -r look match drop mark <<<"$(pstats b cn)"
check_all "count only: matches 6, dropped 0, marked 0, lookups >= 8" \
	"$match" = 6 "$drop" = 0 "$mark" = 0 "$look" -ge 8
cfq b destroy cn || bail "cannot destroy cn"

# Key subsets.
cfq b create ports key dport,proto && cfq b add ports proto udp dport 5005 &&
cfq b create srcs family ip6 key src && cfq b add srcs src $A6 ||
	bail "cannot create ports/srcs"
counters b
for k in "${!CNT[@]}"; do PRE[$k]=${CNT[$k]}; done
pktr a seq "udp --dst $B4 --sport 4007 --dport 5005 -n 2" \
	"udp --dst $B4 --sport 4008 --dport 5005 -n 2" \
	"udp --dst $B4 --sport 4007 --dport 5006 -n 2" \
	"tcp --dst $B4 --sport 4007 --dport 5005" \
	"udp --dst $B6 --sport 4007 --dport 5007 -n 2" \
	"ping --dst $B6 -n 1 --timeout 0.5" "ping --dst $B4 -n 1"
counters b
read -r look match drop mark <<<"$(pstats b ports)"
check_all "key dport,proto: UDP to 5005 from any port dropped; 5006, TCP pass" \
	"$(d p5005)" = 0 "$(d p5006)" = 2 "${R[3]:-}" = refused \
	"$(d tcp5005)" = 1 "$drop" = 4
read -r look match drop mark <<<"$(pstats b srcs)"
check_all "key src (ip6): everything IPv6 from a is dropped, IPv4 passes" \
	"$(d src6)" = 0 "${R[5]:-}" = 0 "${R[6]:-}" = 1 "$drop" -ge 3
finish
