#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Churn: while 100k other entries are added to and deleted from b's filter
# in a loop (the filter goes from 1 item to 100001 and back, its cuckoo
# table moving fingerprints about), a steady stream of a listed flow never
# gets one packet through (b's nftables counter stays 0 and the filter's
# drop counter equals what was sent), and a steady stream of an unlisted
# flow keeps arriving, every packet of it.
#
#   NFCP_CHURN_ROUNDS  add/delete rounds (default 4)

. "$(dirname "$0")/pktlib.sh"
require_env
plan 7
ROUNDS=${NFCP_CHURN_ROUNDS:-4}

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
cfq b create blk family ip capacity 200000 &&
cfq b add blk udp $A4:4001 $B4:5001 || bail "cannot create blk"

# 100k flows from 10.100.0.0/15 to b, none of them a's.
OTHERS=$SCRATCH/others
awk -v dst=$B4 'BEGIN {
	for (i = 0; i < 100000; i++)
		printf "udp 10.%d.%d.%d:%d %s:%d\n", 100 + int(i / 65536),
		       int(i / 256) % 256, i % 256, 1024 + i % 60000, dst,
		       5001 + i % 7
}' >"$OTHERS"

STOP=$SCRATCH/stop
bg a "$SCRATCH/listed.out" stream --dst $B4 --sport 4001 --dport 5001 \
	--rate 200 --time 300 --stop "$STOP"
P1=$BGPID
bg a "$SCRATCH/unlisted.out" stream --dst $B4 --sport 4002 --dport 5001 \
	--rate 200 --time 300 --stop "$STOP"
P2=$BGPID
# Churn only once both streams flow.
for ((i = 0; i < 100; i++)); do
	counters b
	[ "${CNT[unlisted]:-0}" -gt 0 ] && [ "$(pstats b blk | cut -d' ' -f3)" -gt 0 ] &&
		break
	sleep 0.2
done

bad=()
t0=$SECONDS
for ((r = 1; r <= ROUNDS; r++)); do
	cfq b add -f "$OTHERS" blk || bad+=("round $r: add failed")
	n=$(fstat b blk .stats.items)
	[ "$n" = 100001 ] || bad+=("round $r: $n items after the add, want 100001")
	cfq b del -f "$OTHERS" blk || bad+=("round $r: del failed")
	n=$(fstat b blk .stats.items)
	[ "$n" = 1 ] || bad+=("round $r: $n items after the delete, want 1")
done
secs=$((SECONDS - t0))
touch "$STOP"
wait "$P1" "$P2"
sent1=$(cat "$SCRATCH/listed.out")
sent2=$(cat "$SCRATCH/unlisted.out")
diag "$ROUNDS rounds of 100k adds and deletes in ${secs}s; streams sent $sent1 and $sent2"

if [ ${#bad[@]} = 0 ]; then
	ok "$ROUNDS rounds: add 100k entries (100001 items), delete them (1 item)"
else
	not_ok "$ROUNDS rounds: add 100k entries (100001 items), delete them (1 item)" "${bad[@]}"
fi
counters b
read -r look match drop mark <<<"$(pstats b blk)"
check_all "both streams ran all along (at least 100 packets each)" \
	"$sent1" -ge 100 "$sent2" -ge 100
check_eq "the listed flow never got one packet through" "${CNT[listed]}" 0
check_all "the filter dropped every packet of it ($sent1)" \
	"$drop" = "$sent1" "$match" = "$sent1"
check_eq "every packet of the unlisted flow arrived" "${CNT[unlisted]}" "$sent2"
check_eq "every packet was looked up once" "$look" "$((sent1 + sent2))"
check "the listed entry is still there, alone" eval \
	'cf b test blk udp $A4:4001 $B4:5001 >/dev/null &&
	 [ "$(fstat b blk .stats.items)" = 1 ]'
finish
