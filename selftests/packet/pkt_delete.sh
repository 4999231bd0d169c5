#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Entries and filters going away: an IPv4 and an IPv6 flow listed in a
# filter of family inet in b are dropped; deleting an entry lets its flow
# pass again (and only that one), adding it back drops it again; an entry
# added twice takes two deletes; flush lets everything pass; disabling and
# enabling the filter, switching it to count only and back, and finally
# destroying it each do what they say to the same traffic.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 15

topo_pair
nft_load b <<EOF
table inet t {
	counter l4 {}
	counter l6 {}
	chain in {
		type filter hook input priority 0;
		ip saddr $A4 udp sport 4001 udp dport 5001 counter name l4
		ip6 saddr $A6 udp sport 4001 udp dport 5001 counter name l6
	}
}
EOF
E4="udp $A4:4001 $B4:5001"
E6="udp [$A6]:4001 [$B6]:5001"
P4=0
P6=0

# phase DESC GOT4 GOT6: send 3 datagrams of each flow; GOT4 and GOT6 of
# them must arrive.
phase() {
	pktr a seq "udp --dst $B4 --sport 4001 --dport 5001 -n 3" \
		"udp --dst $B6 --sport 4001 --dport 5001 -n 3"
	counters b
	check_all "$1" "${R[0]:-}" = 3 "${R[1]:-}" = 3 \
		"$((CNT[l4] - P4))" = "$2" "$((CNT[l6] - P6))" = "$3"
	P4=${CNT[l4]}
	P6=${CNT[l6]}
}

cfq b create blk || bail "cannot create blk"
phase "an empty filter: both flows pass" 3 3
cfq b add blk $E4, $E6
phase "both flows listed: both dropped" 0 0
cfq b del blk $E4
phase "IPv4 entry deleted: IPv4 passes, IPv6 still dropped" 3 0
cfq b add blk $E4
phase "IPv4 entry added back: both dropped" 0 0
cfq b add blk $E4
cfq b del blk $E4
phase "IPv4 added twice, deleted once: still dropped" 0 0
cfq b del blk $E4
phase "... deleted twice: passes" 3 0
check_eq "deleting it a third time fails: it is not there" \
	"$(cf b del blk $E4 >/dev/null 2>&1; echo $?)" 3
cfq b add blk $E4
cfq b flush blk
phase "flush: both pass" 3 3
check_eq "flush: no items left" "$(fstat b blk .stats.items)" 0
cfq b add blk $E4, $E6
cfq b set blk disable
read -r look0 match drop mark <<<"$(pstats b blk)"
phase "filter disabled: both pass" 3 3
read -r look match drop mark <<<"$(pstats b blk)"
check_all "... not looked up (its hooks are gone), its 2 entries kept" \
	"$look" = "$look0" "$(fstat b blk .stats.items)" = 2
cfq b set blk enable
phase "enabled again: both dropped" 0 0
read -r look match drop mark <<<"$(pstats b blk)"
cfq b set blk action count
phase "action count: both pass" 3 3
read -r look2 match2 drop2 mark2 <<<"$(pstats b blk)"
check_all "... and are counted as matches, not drops" \
	"$((match2 - match))" = 6 "$drop2" = "$drop" "$mark2" = 0
cfq b set blk action drop
cfq b destroy blk
phase "filter destroyed: both pass" 3 3
finish
