#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Replacing a filter whole never lets a packet through: while a listed
# flow and an unlisted one stream from a to b, b's filter (the listed
# flow and 20,000 others, grown from a capacity of 1,000) is replaced over
# and over, by `cfctl restore -replace` of its save (what `systemctl
# reload nf-cuckoo` runs) and by `cfctl compact` from its list, each of
# which builds the new table beside the live one, swaps the names
# (NF_CUCKOO_CMD_SWAP) and destroys the old.  Not one packet of the listed
# flow arrives, every packet of the other does, and afterwards the filter
# holds its entries, once, in one stage, with no temporary filter left.
#
#   NFCP_REPLACE_ROUNDS  rounds of one restore -replace and one compact (4)
#   NFCP_REPLACE_OLD=1   replace as the service's reload did before swap
#                        (destroy, then restore): the test must fail

. "$(dirname "$0")/pktlib.sh"
require_env
plan 6
ROUNDS=${NFCP_REPLACE_ROUNDS:-4}

topo_pair
nft_load b <<EOF
table inet t {
	counter listed {}
	counter unlisted {}
	chain in {
		type filter hook input priority 0;
		ip saddr $A4 udp sport 4001 udp dport 5001 counter name listed
		ip saddr $A4 udp sport 4002 udp dport 5001 counter name unlisted
	}
}
EOF

stages() {	# stages NAME: how many stages b's filter NAME has
	fstat b "$1" '.stages | length'
}

LIST=$SCRATCH/list
{
	echo "udp $A4:4001 $B4:5001"
	awk -v dst="$B4" 'BEGIN {
		for (i = 0; i < 20000; i++)
			printf "udp 10.%d.%d.%d:%d %s:%d\n", 100 + int(i / 65536),
			       int(i / 256) % 256, i % 256, 1024 + i % 60000, dst,
			       5001 + i % 7
	}'
} >"$LIST"
cfq b create blk family ip capacity 1000 &&
cfq b add -f "$LIST" blk &&
cfq b save -f "$SCRATCH/blk.save" blk || bail "cannot make blk"
diag "blk: 20001 entries in $(stages blk) stages"

STOP=$SCRATCH/stop
bg a "$SCRATCH/listed.out" stream --dst "$B4" --sport 4001 --dport 5001 \
	--rate 200 --time 300 --stop "$STOP"
P1=$BGPID
bg a "$SCRATCH/unlisted.out" stream --dst "$B4" --sport 4002 --dport 5001 \
	--rate 200 --time 300 --stop "$STOP"
P2=$BGPID
for ((i = 0; i < 100; i++)); do
	counters b
	[ "${CNT[unlisted]:-0}" -gt 0 ] && [ "$(pstats b blk | cut -d' ' -f3)" -gt 0 ] &&
		break
	sleep 0.2
done

bad=()
t0=$SECONDS
for ((r = 1; r <= ROUNDS; r++)); do
	if [ "${NFCP_REPLACE_OLD:-0}" = 1 ]; then
		cfq b destroy blk && cfq b restore -f "$SCRATCH/blk.save" ||
			bad+=("round $r: destroy and restore failed")
		continue
	fi
	cfq b restore -replace -f "$SCRATCH/blk.save" ||
		bad+=("round $r: restore -replace failed")
	cfq b compact -f "$LIST" blk || bad+=("round $r: compact failed")
done
secs=$((SECONDS - t0))
touch "$STOP"
wait "$P1" "$P2"
sent1=$(cat "$SCRATCH/listed.out")
sent2=$(cat "$SCRATCH/unlisted.out")
diag "$ROUNDS rounds of restore -replace and compact in ${secs}s; streams sent $sent1 and $sent2"

if [ ${#bad[@]} = 0 ]; then
	ok "$ROUNDS rounds: blk replaced by its save, then compacted from its list"
else
	not_ok "$ROUNDS rounds: blk replaced by its save, then compacted from its list" "${bad[@]}"
fi
counters b
check_all "both streams ran all along (at least 100 packets each)" \
	"$sent1" -ge 100 "$sent2" -ge 100
check_eq "the listed flow never got one packet through" "${CNT[listed]}" 0
check_eq "every packet of the unlisted flow arrived" "${CNT[unlisted]}" "$sent2"
check "blk holds its 20,001 entries, in one stage" eval \
	'cf b -q test -f "$LIST" blk &&
	 [ "$(fstat b blk .stats.items)" = 20001 ] && [ "$(stages blk)" = 1 ]'
check_eq "no filter but blk is left (no temporary one)" "$(cf b list -n)" blk
finish
