#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A router: client c, router r, server s (c -- r -- s, IPv4 and IPv6).  A
# filter of family inet on r's forward hook drops the listed UDP and TCP
# flows from c to s, both families; other ports, ping, traffic to the
# router itself and the reverse direction of a listed flow pass.  A second
# filter on r's postrouting hook drops its own flow.  Every forwarded
# packet is looked up exactly once.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 11

topo_router
serve s 6001 -6

nft_load s <<EOF
table inet t {
	counter u4_l {}
	counter u4_o {}
	counter u6_l {}
	counter u6_o {}
	counter t4_l {}
	counter t4_o {}
	counter t6_l {}
	counter t6_o {}
	counter p4 {}
	counter p6 {}
	counter post_l {}
	chain in {
		type filter hook input priority 0;
		ip saddr $C4 udp sport 4001 udp dport 5001 counter name u4_l
		ip saddr $C4 udp sport 4001 udp dport 5003 counter name u4_o
		ip6 saddr $C6 udp sport 4001 udp dport 5001 counter name u6_l
		ip6 saddr $C6 udp sport 4001 udp dport 5003 counter name u6_o
		ip saddr $C4 tcp sport 4101 tcp dport 6001 counter name t4_l
		ip saddr $C4 tcp sport 4102 tcp dport 6001 counter name t4_o
		ip6 saddr $C6 tcp sport 4101 tcp dport 6001 counter name t6_l
		ip6 saddr $C6 tcp sport 4102 tcp dport 6001 counter name t6_o
		icmp type echo-request counter name p4
		icmpv6 type echo-request counter name p6
		udp sport 4002 udp dport 5002 counter name post_l
	}
}
EOF
# fwd_all counts before nf_cuckoo (-350): every forwarded packet.
nft_load r <<EOF
table inet t {
	counter fwd_all {}
	chain forwarded {
		type filter hook forward priority -350;
		counter name fwd_all
	}
}
EOF
nft_load c <<EOF
table inet t {
	counter n_syn {}
	counter rev {}
	chain out {
		type filter hook output priority 0;
		tcp sport 4101 tcp flags & (syn | ack) == syn counter name n_syn
	}
	chain in {
		type filter hook input priority 0;
		udp sport 5001 udp dport 4001 counter name rev
	}
}
EOF

cfq r create fw hook forward && cfq r create post family ip hook postrouting ||
	bail "cannot create the router's filters"
pktr c seq "udp --dst $S4 --sport 4001 --dport 5001 -n 2" \
	"udp --dst $S6 --sport 4001 --dport 5001 -n 2"
counters s
check_all "before they are listed, the flows pass the router" \
	"${CNT[u4_l]}" = 2 "${CNT[u6_l]}" = 2
check "list UDP and TCP flows c -> s, IPv4 and IPv6; one at postrouting" eval \
	'cfq r add fw udp $C4:4001 $S4:5001, tcp $C4:4101 $S4:6001, \
		udp [$C6]:4001 [$S6]:5001, tcp [$C6]:4101 [$S6]:6001 &&
	 cfq r add post udp $C4:4002 $S4:5002'

pktr s udp --dst $C4 --sport 5001 --dport 4001 -n 3
rev=${R[0]:-}
pktr c seq "udp --dst $S4 --sport 4001 --dport 5001 -n 5" \
	"udp --dst $S4 --sport 4001 --dport 5003 -n 3" \
	"udp --dst $S6 --sport 4001 --dport 5001 -n 5" \
	"udp --dst $S6 --sport 4001 --dport 5003 -n 3" \
	"tcp --dst $S4 --sport 4101 --dport 6001 --timeout 0.8" \
	"tcp --dst $S4 --sport 4102 --dport 6001" \
	"tcp --dst $S6 --sport 4101 --dport 6001 --timeout 0.8" \
	"tcp --dst $S6 --sport 4102 --dport 6001" \
	"ping --dst $S4 -n 2" "ping --dst $S6 -n 2" \
	"ping --dst $R4C -n 2" \
	"udp --dst $S4 --sport 4002 --dport 5002 -n 3"
[ ${#R[@]} = 12 ] || diag "nfcpkt printed ${#R[@]} lines:" "${R[@]}" "$(agent_log c)"
counters s

check_all "listed UDP flows, IPv4 and IPv6: none of the 10 reaches s" \
	"${CNT[u4_l]}" = 2 "${CNT[u6_l]}" = 2
check_all "another port, IPv4 and IPv6: arrives" \
	"${CNT[u4_o]}" = 3 "${CNT[u6_o]}" = 3
check_all "listed TCP connections time out; another source port connects" \
	"${R[4]:-}" = timeout "${R[6]:-}" = timeout "${CNT[t4_l]}" = 0 \
	"${CNT[t6_l]}" = 0 "${R[5]:-}" = ok "${R[7]:-}" = ok
check_all "ping s (IPv4, IPv6) and ping the router itself" \
	"${R[8]:-}" = 2 "${R[9]:-}" = 2 "${R[10]:-}" = 2 \
	"${CNT[p4]}" = 2 "${CNT[p6]}" = 2
check_all "the reverse direction of a listed flow passes (not bidirectional)" \
	"$rev" = 3 "$(count c rev)" = 3
check_all "postrouting filter: its flow is dropped after forwarding" \
	"${R[11]:-}" = 3 "${CNT[post_l]}" = 0

syns=$(count c n_syn)
want=$((10 + syns))
read -r look match drop mark <<<"$(pstats r fw)"
check_all "fw: dropped = matches = $want (10 UDP, $syns SYN)" \
	"$drop" = "$want" "$match" = "$want" "$syns" -ge 2
check_eq "every forwarded packet was looked up once (lookups = nft's count)" \
	"$look" "$(count r fwd_all)"
read -r look match drop mark <<<"$(pstats r post)"
check_all "post: dropped 3, looked up every IPv4 packet leaving r" \
	"$drop" = 3 "$match" = 3 "$look" -ge 10
finish
