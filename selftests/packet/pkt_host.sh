#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host to host over IPv4: a and b joined by a veth pair, filters in b at
# prerouting (the default) and input, and in a at output.  Listed UDP,
# TCP, SCTP and DCCP flows are dropped (nothing arrives: nftables counters
# in b, after nf_cuckoo's hook, say so); the same hosts on other ports,
# other protocols on the listed ports, and ping get through; IPv4 options
# do not hide a flow; the filter counters add up, and every IPv4 packet
# b receives is looked up exactly once.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 19

topo_pair
serve b 6001

# all4 counts before nf_cuckoo (-350), the rest after it (input, 0).
nft_load b <<EOF
table inet t {
	counter all4 {}
	counter u_l {}
	counter u_dport {}
	counter u_sport {}
	counter lite {}
	counter t_l {}
	counter t_o {}
	counter t_r {}
	counter n_ping {}
	counter sctp_l {}
	counter sctp_o {}
	counter dccp_l {}
	counter dccp_o {}
	counter opt_l {}
	counter opt_o {}
	counter in_l {}
	counter out_l {}
	chain pre {
		type filter hook prerouting priority -350;
		meta nfproto ipv4 counter name all4
	}
	chain in {
		type filter hook input priority 0;
		ip saddr != $A4 return
		ip hdrlength 5 udp sport 4001 udp dport 5001 counter name u_l
		ip hdrlength 5 udp sport 4001 udp dport 5002 counter name u_dport
		udp sport 4002 udp dport 5001 counter name u_sport
		udplite sport 4001 udplite dport 5001 counter name lite
		tcp sport 4101 tcp dport 6001 counter name t_l
		tcp sport 4102 tcp dport 6001 counter name t_o
		tcp sport 4001 tcp dport 5001 counter name t_r
		icmp type echo-request counter name n_ping
		sctp sport 4001 sctp dport 5001 counter name sctp_l
		sctp sport 4001 sctp dport 5002 counter name sctp_o
		dccp sport 4001 dccp dport 5001 counter name dccp_l
		dccp sport 4001 dccp dport 5002 counter name dccp_o
		ip hdrlength 15 udp sport 4001 udp dport 5001 counter name opt_l
		ip hdrlength 15 udp sport 4001 udp dport 5002 counter name opt_o
		udp sport 4003 udp dport 5003 counter name in_l
		udp sport 4004 udp dport 5004 counter name out_l
	}
}
EOF
# SYNs a sends on the listed connection: each one is a packet to drop.
nft_load a <<EOF
table inet t {
	counter n_syn {}
	chain out {
		type filter hook output priority 0;
		tcp sport 4101 tcp flags & (syn | ack) == syn counter name n_syn
	}
}
EOF

if cfq b create blk family ip &&
   cfq b create inblk family ip hook input &&
   cfq a create outblk family ip hook output; then
	ok "create filters: prerouting and input in b, output in a"
else
	bail "cannot create the filters"
fi

pktr a seq "udp --dst $B4 --sport 4001 --dport 5001 -n 5" \
	"tcp --dst $B4 --sport 4101 --dport 6001"
counters b
declare -A PRE
for k in "${!CNT[@]}"; do PRE[$k]=${CNT[$k]}; done
check_all "before they are listed, the UDP flow and the TCP connection pass" \
	"${R[0]:-}" = 5 "${CNT[u_l]}" = 5 "${R[1]:-}" = ok "${CNT[t_l]}" -ge 3
counters a
syn0=${CNT[n_syn]}

check "add a UDP, a TCP, an SCTP and a DCCP flow" cfq b add blk \
	udp $A4:4001 $B4:5001, tcp $A4:4101 $B4:6001, \
	sctp $A4:4001 $B4:5001, dccp $A4:4001 $B4:5001
cfq b add inblk udp $A4:4003 $B4:5003 && cfq a add outblk udp $A4:4004 $B4:5004 ||
	bail "cannot add to inblk/outblk"

O="--dst $B4"
# UDP-Lite is crafted, not sent from a UDP-Lite socket: 7.x kernels
# (Debian 13's 7.3.4) have none (EPROTONOSUPPORT), yet their netfilter
# hooks still see the protocol, and b's input chain counts it before the
# protocol demux.
OPTS=$(printf "01%.0s" {1..40})	# 40 NOPs: IHL 15
pktr a seq "udp $O --sport 4001 --dport 5001 -n 10" \
	"udp $O --sport 4001 --dport 5002 -n 3" \
	"udp $O --sport 4002 --dport 5001 -n 3" \
	"craft --pkt v=4,src=$A4,dst=$B4,proto=udplite,sport=4001,dport=5001,n=3" \
	"tcp $O --sport 4101 --dport 6001 --timeout 0.8" \
	"tcp $O --sport 4102 --dport 6001" \
	"tcp $O --sport 4001 --dport 5001" \
	"ping $O -n 2" \
	"udp $O --sport 4003 --dport 5003 -n 3" \
	"udp $O --sport 4004 --dport 5004 -n 3" \
	"craft --pkt v=4,src=$A4,dst=$B4,proto=sctp,sport=4001,dport=5001,n=2
	       --pkt v=4,src=$A4,dst=$B4,proto=sctp,sport=4001,dport=5002,n=2
	       --pkt v=4,src=$A4,dst=$B4,proto=dccp,sport=4001,dport=5001,n=2
	       --pkt v=4,src=$A4,dst=$B4,proto=dccp,sport=4001,dport=5002,n=2
	       --pkt v=4,src=$A4,dst=$B4,sport=4001,dport=5001,opts=$OPTS,n=2
	       --pkt v=4,src=$A4,dst=$B4,sport=4001,dport=5002,opts=$OPTS,n=2"
[ ${#R[@]} = 11 ] || diag "nfcpkt printed ${#R[@]} lines:" "${R[@]}" "$(agent_log a)"
counters b
d() { echo $((${CNT[$1]:-0} - ${PRE[$1]:-0})); }

check_all "listed UDP flow: 10 sent, none arrives" \
	"${R[0]:-}" = 10 "$(d u_l)" = 0
check_all "same hosts, another destination or source port: arrives" \
	"$(d u_dport)" = 3 "$(d u_sport)" = 3
check_eq "UDP-Lite on the listed ports (another protocol) arrives" "$(d lite)" 3
check_all "listed TCP connection: times out, no segment arrives" \
	"${R[4]:-}" = timeout "$(d t_l)" = 0
check_all "TCP from another source port connects" \
	"${R[5]:-}" = ok "$(d t_o)" -ge 3
check_all "TCP to the listed UDP ports arrives (b refuses it)" \
	"${R[6]:-}" = refused "$(d t_r)" = 1
check_all "ping gets through" "${R[7]:-}" = 2 "$(d n_ping)" = 2
check_all "SCTP and DCCP: listed ports dropped, other ports arrive" \
	"$(d sctp_l)" = 0 "$(d sctp_o)" = 2 "$(d dccp_l)" = 0 "$(d dccp_o)" = 2
check_all "40 bytes of IPv4 options: listed flow dropped, other port arrives" \
	"${R[10]:-}" = 12 "$(d opt_l)" = 0 "$(d opt_o)" = 2
check_eq "input hook: its listed flow never reaches b's input chain" "$(d in_l)" 0
check_all "output hook: a's sends fail (EPERM), nothing reaches b" \
	"${R[9]:-}" = 0 "$(d out_l)" = 0

counters a
syns=$((CNT[n_syn] - syn0))
want=$((10 + syns + 2 + 2 + 2))
read -r look match drop mark <<<"$(pstats b blk)"
check_all "blk counters: dropped = matches = $want (10 UDP, $syns SYN, 6 crafted), marked 0" \
	"$drop" = "$want" "$match" = "$want" "$mark" = 0 "$syns" -ge 1
counters b
check_all "every IPv4 packet reaching b is looked up once (lookups = nft's count)" \
	"$look" = "${CNT[all4]}" "$look" -gt "$want"
read -r ilook imatch idrop imark <<<"$(pstats b inblk)"
read -r olook omatch odrop omark <<<"$(pstats a outblk)"
check_all "inblk and outblk each dropped their 3 packets" \
	"$idrop" = 3 "$imatch" = 3 "$odrop" = 3 "$omatch" = 3 \
	"$ilook" -ge 3 "$olook" -ge 3
check "cfctl show prints the same counters" \
	grep -qx "Packets: lookups $look matches $match dropped $drop marked 0" \
	<<<"$(cf b show blk)"
check_all "items: blk 4, inblk 1, outblk 1" \
	"$(fstat b blk .stats.items)" = 4 "$(fstat b inblk .stats.items)" = 1 \
	"$(fstat a outblk .stats.items)" = 1
finish
