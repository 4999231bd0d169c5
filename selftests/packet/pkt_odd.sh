#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Odd packets, crafted by hand and put straight onto the wire from a to b
# (AF_PACKET: a's stack does not touch them), are handled as
# uapi/linux/nf_cuckoo.h documents, without an oops:
#  - IPv4 options, a first fragment, IPv6 extension headers (a routing
#    header, AH, a fragment header, a chain of 100 destination options
#    headers) do not hide a listed flow;
#  - an L4 header too short for its ports, or an IPv6 extension header
#    chain that runs past the end of the packet, is not looked up in a
#    filter whose key needs the ports, and passes it; a filter keyed on
#    the addresses alone still matches the latter;
#  - non-first fragments (IPv4 and IPv6), ICMP and IPv6 "no next header"
#    have ports 0: they match entries with ports 0 (a count-only filter)
#    and not the listed flow whose ports their payload happens to start
#    with;
#  - an IPv6 header whose payload length runs past the end of the packet
#    or is too short for the UDP ports (sent by a raw socket, seen at a's
#    output hook: b's IPv6 layer would discard them before any hook)
#    passes even an inverted drop filter, without a lookup.
# (An IPv4 header with IHL below 5 or a wrong total length reaches no
# netfilter hook on this kernel: ip_rcv() drops it and raw sockets refuse
# or fix it, so skbkey.c's checks for it cannot be exercised from here.)
# Packets are told apart by an IPv4 ID or an IPv6 flow label, counted by
# nftables in b's prerouting after nf_cuckoo.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 13

KMARK="nfcp $TEST $$ $(date +%s%N)"
echo "$KMARK" >/dev/kmsg

mkns a b
# No router solicitations from a: fewer stray packets at its output hook.
ns a sysctl -qw net.ipv6.conf.default.router_solicitations=0 \
	net.ipv6.conf.all.router_solicitations=0
link a va $A4/24 $A6/64 b vb $B4/24 $B6/64
# One counter per tag (IPv4 ID 101..107, IPv6 flow label 301..308).
{
	echo "table inet t {"
	for k in 101 102 103 104 105 106 107 301 302 303 304 305 306 307 308; do
		echo "counter k$k {}"
	done
	echo "chain pre { type filter hook prerouting priority 0;"
	for k in 101 102 103 104 105 106 107; do
		echo "ip saddr $A4 ip id $k counter name k$k"
	done
	for k in 301 302 303 304 305 306 307 308; do
		echo "ip6 saddr $A6 ip6 flowlabel $k counter name k$k"
	done
	echo "}"
	echo "}"
} | nft_load b
# all6 counts before nf_cuckoo (-350), the tags after it.
nft_load a <<EOF
table inet t {
	counter all6 {}
	counter k401 {}
	counter k402 {}
	chain out {
		type filter hook output priority -350;
		meta nfproto ipv6 counter name all6
	}
	chain post {
		type filter hook postrouting priority 0;
		ip6 flowlabel 401 counter name k401
		ip6 flowlabel 402 counter name k402
	}
}
EOF

# Filters run in creation order; f4 and f6 drop what they match first.
if cfq b create f4 family ip &&
   cfq b add f4 udp $A4:4001 $B4:5001, tcp $A4:4001 $B4:5001 &&
   cfq b create f6 family ip6 &&
   cfq b add f6 udp [$A6]:4001 [$B6]:5001 &&
   cfq b create zero action count &&
   cfq b add zero udp $A4:0 $B4:0, udp [$A6]:0 [$B6]:0, \
	icmp $A4 $B4, \
	proto 59 src $A6 dst $B6 &&
   cfq b create adr family ip6 key src,dst action count &&
   cfq b add adr src $A6 dst $B6; then
	ok "create f4, f6 (5-tuple, drop), zero (ports 0, count), adr (addresses, count)"
else
	bail "cannot create the filters"
fi

V4="v=4,src=$A4,dst=$B4,sport=4001,dport=5001,n=3"
V6="v=6,src=$A6,dst=$B6,sport=4001,dport=5001,n=3"
OPTS=$(printf "01%.0s" {1..40})
# 303: four 8-byte destination options headers, cut in the third, with a
# payload length that agrees: only the chain is broken.
pktr a craft --dev va --dmac "${MAC[b/vb]}" \
	--pkt "$V4,id=101" --pkt "$V4,id=102,opts=$OPTS" \
	--pkt "$V4,id=103,l4len=2" --pkt "$V4,id=104,frag=100" \
	--pkt "$V4,id=105,mf=1" --pkt "$V4,id=106,proto=tcp,l4len=3" \
	--pkt "$V4,id=107,proto=icmp" \
	--pkt "$V6,fl=301,ext=hop+dst+rt" --pkt "$V6,fl=302,chain=100" \
	--pkt "$V6,fl=303,ext=dst,chain=3,trunc=68,plen=28" \
	--pkt "$V6,fl=304,ext=frag,frag_off=100" \
	--pkt "$V6,fl=305,ext=frag,mf=1" --pkt "$V6,fl=306,l4len=2" \
	--pkt "$V6,fl=307,ext=dst,proto=59" --pkt "$V6,fl=308,ext=ah"
sent=${R[0]:-}
counters b
k() { echo "${CNT[k$1]:-none}"; }

check_all "IPv4 listed flow: plain, 40 bytes of options, first fragment: dropped" \
	"$sent" = 45 "$(k 101)" = 0 "$(k 102)" = 0 "$(k 105)" = 0
read -r look4 match4 drop4 mark4 <<<"$(pstats b f4)"
check_all "IPv4 L4 header cut short (UDP 2, TCP 3 bytes): passes, not looked up" \
	"$(k 103)" = 3 "$(k 106)" = 3 "$look4" = 15
check_eq "IPv4 non-first fragment (listed ports in its payload): passes f4" \
	"$(k 104)" 3
check_eq "ICMP passes" "$(k 107)" 3
check_all "IPv6 listed flow behind hbh+dst+routing, 100 dst headers, a fragment header (first fragment), AH: dropped" \
	"$(k 301)" = 0 "$(k 302)" = 0 "$(k 305)" = 0 "$(k 308)" = 0
check_eq "IPv6 chain running past the end: passes f6" "$(k 303)" 3
check_eq "IPv6 non-first fragment: passes f6" "$(k 304)" 3
check_eq "IPv6 UDP header cut short: passes untouched" "$(k 306)" 3
check_eq "IPv6 no next header: passes" "$(k 307)" 3

read -r look6 match6 drop6 mark6 <<<"$(pstats b f6)"
read -r lookz matchz dropz markz <<<"$(pstats b zero)"
read -r looka matcha dropa marka <<<"$(pstats b adr)"
check_all "counters: f4 dropped 9, f6 12; ports-0 keys matched 12 (fragments, ICMP, no next header); addresses-only matched 12 (the broken chain too)" \
	"$drop4" = 9 "$match4" = 9 "$drop6" = 12 "$match6" = 12 \
	"$matchz" = 12 "$dropz" = 0 "$matcha" = 12

# Only a raw socket sends these, and only the output hook sees them.  a's
# own ICMPv6 (MLD, router solicitations) is looked up too: all6 counts it.
cfq a create out family ip6 hook output invert || bail "cannot create out"
read -r look0 match0 drop0 mark0 <<<"$(pstats a out)"
counters a
all0=${CNT[all6]}
W6="v=6,src=$A6,dst=$B6,sport=4001,dport=5001"
pktr a seq "craft --pkt $W6,fl=401,plen=500,n=3 --pkt $W6,fl=402,plen=2,n=3" \
	"craft --pkt $W6,fl=403"
read -r look match drop mark <<<"$(pstats a out)"
counters a
check_all "IPv6 payload length past the end, or too short for the ports, at a's output: passes an inverted drop filter, no lookup; a good packet is dropped" \
	"${R[0]:-}" = 6 "${CNT[k401]}" = 3 "${CNT[k402]}" = 3 "${R[1]:-}" = 0 \
	$((look - look0)) = $((CNT[all6] - all0 - 6)) \
	$((drop - drop0)) = $((look - look0)) $((drop - drop0)) -ge 1

bad=$(dmesg | sed -n "/$KMARK/,\$p" | sed 1d | oopses)
check_eq "no BUG, WARNING or Oops in the kernel log" "$bad" ""
finish
