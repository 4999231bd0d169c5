#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Blocklist files on the packet path: a file of one address a line
# (Spamhaus-style ';' and '#' comments, CRLF, IPv4 and IPv6 mixed, /32 and
# /128) loaded with `cfctl add -f` into a filter keyed on src drops the
# packets from its addresses, IPv4 and IPv6, and lets the others through;
# the same file in a filter keyed on dst holds destinations (none of b's,
# so everything passes), and a file of b's addresses there drops all of
# it; `del -f` of each file lets everything through again.  Then
# prefixes, as Spamhaus DROP writes them: a /31 and a /127 holding a's
# first addresses but not its second ones drop those only, in both
# families; saved and restored, they still do; deleted, everything
# passes; prefixes of b's networks in the dst filter drop everything to
# b until deleted.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 16

topo_pair
# A second address on a: sources the lists do not hold.
O4=10.0.0.3
O6=fd00::3
printf 'addr add %s/24 dev va\naddr add %s/64 dev va nodad\n' $O4 $O6 |
	ns a ip -batch - || bail "cannot add a's second addresses"
nft_load b <<EOF
table inet t {
	counter l4 {}
	counter l6 {}
	counter o4 {}
	counter o6 {}
	chain in {
		type filter hook input priority 0;
		ip saddr $A4 udp dport 5001 counter name l4
		ip6 saddr $A6 udp dport 5001 counter name l6
		ip saddr $O4 udp dport 5001 counter name o4
		ip6 saddr $O6 udp dport 5001 counter name o6
	}
}
EOF

SRC=$SCRATCH/src.txt
DST=$SCRATCH/dst.txt
{
	printf '; Spamhaus DROP style, nf_cuckoo packet test\r\n'
	printf '192.0.2.1 ; SBL000001\r\n'
	printf '%s/32 ; SBL000002\r\n' $A4
	printf '\r\n# IPv6\n'
	printf '%s\t# a, IPv6\n' $A6
	printf '2001:db8::1/128;x\n'
} >"$SRC"
printf '# b, both families\n%s\n%s/128 ; b6\n' $B4 $B6 >"$DST"

C=(0 0 0 0)
# phase DESC L4 L6 O4 O6: 3 datagrams from each of a's four addresses to
# b (IPv4 to B4, IPv6 to B6); how many of each must arrive.
phase() {
	local got

	pktr a seq "udp --src $A4 --dst $B4 --dport 5001 -n 3" \
		"udp --src $A6 --dst $B6 --dport 5001 -n 3" \
		"udp --src $O4 --dst $B4 --dport 5001 -n 3" \
		"udp --src $O6 --dst $B6 --dport 5001 -n 3"
	counters b
	got=("${CNT[l4]:-x}" "${CNT[l6]:-x}" "${CNT[o4]:-x}" "${CNT[o6]:-x}")
	check_all "$1" "${R[0]:-}" = 3 "${R[1]:-}" = 3 "${R[2]:-}" = 3 \
		"${R[3]:-}" = 3 "$((got[0] - C[0]))" = "$2" \
		"$((got[1] - C[1]))" = "$3" "$((got[2] - C[2]))" = "$4" \
		"$((got[3] - C[3]))" = "$5"
	C=("${got[@]}")
}

cfq b create lsrc key src fingerprint 32 &&
	cfq b create ldst key dst fingerprint 32
check_eq "create a src filter and a dst filter (family inet)" $? 0
phase "empty filters: everything passes" 3 3 3 3

cfq b add -f "$SRC" lsrc
check_eq "add -f the src list: its 4 addresses" "$(fstat b lsrc .stats.items)" 4
phase "src list: a's listed IPv4 and IPv6 addresses dropped, the others pass" \
	0 0 3 3
read -r look match drop mark <<<"$(pstats b lsrc)"
check_all "lsrc: 6 dropped, 6 matches, every packet looked up" "$drop" = 6 \
	"$match" = 6 "$look" -ge 24 "$mark" = 0
cfq b del -f "$SRC" lsrc
phase "del -f the src list: everything passes again" 3 3 3 3

cfq b add -f "$SRC" ldst
phase "the src list in a dst filter: no packet is to its addresses" 3 3 3 3
cfq b del -f "$SRC" ldst
cfq b add -f "$DST" ldst
phase "b's addresses in the dst filter: everything to b dropped" 0 0 0 0
cfq b del -f "$DST" ldst
phase "del -f that list: everything passes" 3 3 3 3

# a's first addresses are .1 and ::1, its second ones .3 and ::3.
PSRC=$SCRATCH/psrc.txt
PDST=$SCRATCH/pdst.txt
printf '; DROP style\r\n10.0.0.0/31 ; SBL1\r\nfd00::/127 ; SBL2\r\n' >"$PSRC"
printf '10.0.0.0/24 ; b4\nfd00::/64 ; b6\n' >"$PDST"
cfq b add -f "$PSRC" lsrc
check_eq "src prefixes: show lists a /31 and a /127" \
	"$(cf b show lsrc | sed -n 's/^Prefixes: //p')" "ip src/31: 1, ip6 src/127: 1"
phase "src prefixes: a's addresses inside them dropped, the others pass" \
	0 0 3 3
cf b save -f "$SCRATCH/lsrc.save" lsrc && cfq b destroy lsrc &&
	cfq b restore -f "$SCRATCH/lsrc.save"
check_eq "saved and restored: the prefixes are back" \
	"$(cf b show lsrc | sed -n 's/^Prefixes: //p')" "ip src/31: 1, ip6 src/127: 1"
phase "... and still drop the same packets" 0 0 3 3
cfq b del -f "$PSRC" lsrc
phase "src prefixes deleted: everything passes" 3 3 3 3
cfq b add -f "$PDST" ldst
phase "b's networks in the dst filter: everything to b dropped" 0 0 0 0
cfq b del -f "$PDST" ldst
check_eq "... deleted: no prefix left, no item" \
	"$(fstat b ldst '"\(.prefixes | length) \(.stats.items)"')" "0 0"
finish
