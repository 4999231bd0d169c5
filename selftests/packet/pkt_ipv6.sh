#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host to host over IPv6, with extension headers in front of the L4
# header: a filter of family ip6 in b's prerouting drops its UDP and TCP
# flows whether they carry none, destination options, hop-by-hop options,
# both, a routing header, an authentication header, a fragment header
# (first fragment) or a chain of eight destination options headers; the
# same with another port passes, with its extension headers (nftables
# counters in b see them); ping6 passes; IPv4 on the listed ports is not
# the filter's business.  The drop counter adds up exactly.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 12

topo_pair
serve b 6001 -6

nft_load b <<EOF
table inet t {
	counter u_l {}
	counter u_o {}
	counter o_dst {}
	counter o_hbh {}
	counter o_ah {}
	counter t_l {}
	counter t_o {}
	counter ping6 {}
	counter v4 {}
	chain in {
		type filter hook input priority 0;
		ip6 saddr $A6 udp sport 4001 udp dport 5001 counter name u_l
		ip6 saddr $A6 udp sport 4001 udp dport 5002 counter name u_o
		exthdr dst exists ip6 saddr $A6 udp dport 5002 counter name o_dst
		exthdr hbh exists ip6 saddr $A6 udp dport 5002 counter name o_hbh
		# nftables takes AH for the transport header: no ports to match.
		ip6 saddr $A6 meta l4proto ah counter name o_ah
		ip6 saddr $A6 tcp sport 4101 tcp dport 6001 counter name t_l
		ip6 saddr $A6 tcp sport 4102 tcp dport 6001 counter name t_o
		icmpv6 type echo-request counter name ping6
		ip saddr $A4 udp sport 4001 udp dport 5001 counter name v4
	}
}
EOF
nft_load a <<EOF
table inet t {
	counter n_syn {}
	chain out {
		type filter hook output priority 0;
		tcp sport 4101 tcp flags & (syn | ack) == syn counter name n_syn
	}
}
EOF

cfq b create blk6 family ip6 || bail "cannot create blk6"
pktr a seq "udp --dst $B6 --sport 4001 --dport 5001 -n 3 --dstopts" \
	"tcp --dst $B6 --sport 4101 --dport 6001"
check_all "before they are listed, the flows pass (with destination options)" \
	"$(count b u_l)" = 3 "${R[1]:-}" = ok
counters b
declare -A PRE
for k in "${!CNT[@]}"; do PRE[$k]=${CNT[$k]}; done
d() { echo $((${CNT[$1]:-0} - ${PRE[$1]:-0})); }
syn0=$(count a n_syn)

check "add a UDP and a TCP flow" cfq b add blk6 \
	udp [$A6]:4001 [$B6]:5001, tcp [$A6]:4101 [$B6]:6001

L="v=6,src=$A6,dst=$B6,sport=4001,dport=5001,n=2"
U="v=6,src=$A6,dst=$B6,sport=4001,dport=5002,n=2"
O="--dst $B6 --sport 4001"
pktr a seq "udp $O --dport 5001 -n 5" \
	"udp $O --dport 5001 -n 5 --dstopts" \
	"udp $O --dport 5001 -n 5 --hopopts" \
	"udp $O --dport 5001 -n 3 --hopopts --dstopts" \
	"tcp --dst $B6 --sport 4101 --dport 6001 --timeout 0.8" \
	"tcp --dst $B6 --sport 4101 --dport 6001 --timeout 0.8 --dstopts" \
	"tcp --dst $B6 --sport 4102 --dport 6001 --dstopts" \
	"ping --dst $B6 -n 2" \
	"udp $O --dport 5002 -n 3" \
	"udp $O --dport 5002 -n 3 --dstopts" \
	"craft --pkt $L,ext=hop+dst+rt+dst --pkt $L,ext=ah --pkt $L,ext=frag,mf=1
	       --pkt $L,chain=8 --pkt $U,ext=hop+dst+rt --pkt $U,ext=ah" \
	"udp --dst $B4 --sport 4001 --dport 5001 -n 3"
[ ${#R[@]} = 12 ] || diag "nfcpkt printed ${#R[@]} lines:" "${R[@]}" "$(agent_log a)"
counters b

check_all "listed UDP flow: 18 sent (none, dst, hbh, both options), none arrives" \
	"${R[0]:-}" = 5 "${R[1]:-}" = 5 "${R[2]:-}" = 5 "${R[3]:-}" = 3 \
	"$(d u_l)" = 0
check_all "listed TCP connection, plain and with destination options: times out" \
	"${R[4]:-}" = timeout "${R[5]:-}" = timeout "$(d t_l)" = 0
check_all "TCP from another source port, with destination options, connects" \
	"${R[6]:-}" = ok "$(d t_o)" -ge 3
check_all "ping6 gets through" "${R[7]:-}" = 2 "$(d ping6)" = 2
check_all "crafted: routing, AH, first fragment, 8 dst headers: listed dropped" \
	"${R[10]:-}" = 12 "$(d u_l)" = 0
check_all "another port passes: plain, dst options, hbh+dst+routing, AH" \
	"$(d u_o)" = 8 "$(d o_ah)" = 2
check_all "... and nftables sees their extension headers (dst 5, hbh 2)" \
	"$(d o_dst)" = 5 "$(d o_hbh)" = 2
check_all "IPv4 on the listed ports passes a filter of family ip6" \
	"${R[11]:-}" = 3 "$(d v4)" = 3

syns=$(($(count a n_syn) - syn0))
want=$((18 + syns + 8))
read -r look match drop mark <<<"$(pstats b blk6)"
check_all "blk6: dropped = matches = $want (18 UDP, $syns SYN, 8 crafted)" \
	"$drop" = "$want" "$match" = "$want" "$mark" = 0 "$syns" -ge 2
check_eq "items: 2" "$(fstat b blk6 .stats.items)" 2
finish
