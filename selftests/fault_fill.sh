#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Full filters and memory limits.
#  - A filter filled until an insert fails: the failing batch is refused
#    whole ("the filter is full": created nogrow, as one that grows adds a
#    stage instead), the filter holds at least its capacity,
#    every entry added before is still there, a delete makes room again,
#    and its listed flow is still dropped.
#  - The namespace's memory ceiling (module parameter netns_mem_max_mb,
#    lowered at run time): a filter that would go over it is refused with
#    EDQUOT and a message, the filters already there keep working (entries
#    found, adds work, packets dropped), and destroying one makes room.
#  - Out of memory: filters larger than the memory available or than the
#    whole VM (ceilings off) are refused with ENOMEM at once (no page
#    reclaimed to try), the OOM killer kills nothing, and userspace can
#    still allocate afterwards.

. "$(dirname "$0")/packet/pktlib.sh"
require_env
PARAM=/sys/module/nf_cuckoo/parameters/netns_mem_max_mb
# The ceiling of all namespaces together, off too for the out-of-memory part.
ALLPARAM=/sys/module/nf_cuckoo/parameters/mem_max_mb
[ -w "$PARAM" ] && [ -w "$ALLPARAM" ] ||
	skip_all "$PARAM or $ALLPARAM is not writable"
plan 14

OLDMAX=$(cat "$PARAM")
OLDALL=$(cat "$ALLPARAM")
trap 'echo "$OLDMAX" >"$PARAM"; echo "$OLDALL" >"$ALLPARAM"; cleanup' EXIT
kmsg_mark
topo_pair
nft_listed_other b
# send3: three datagrams of the listed flow and three of another; GOT is
# then what b received of each, in all.
send3() {
	pktr a seq "udp --dst $B4 --sport 4001 --dport 5001 -n 3" \
		"udp --dst $B4 --sport 4002 --dport 5001 -n 3"
	counters b
	GOT="${CNT[listed]} ${CNT[other]}"
}
items() {
	fstat b "$1" .stats.items
}

# Entries: the listed flow, then udp 10.9.x.y:1000 -> B:53 from index $1.
gen() {
	awk -v from="$1" -v n="$2" -v dst="$B4" 'BEGIN {
		for (k = from; k < from + n; k++)
			printf "udp 10.%d.%d.%d:1000 %s:53\n", 9 + int(k / 65536),
				int(k / 256) % 256, k % 256, dst }'
}

# A fixed seed: the same table, so the same fill point, every run.
CAP=2000
cfq b create fill family ip capacity $CAP seed 0x5eed nogrow ||
	bail "cannot create the filter"
echo "udp $A4:4001 $B4:5001" >"$SCRATCH/added"
cfq b add -f "$SCRATCH/added" fill || bail "cannot add the listed flow"
added=1 next=0 step=400 batches=1 full=
while [ "$added" -le $((CAP * 2)) ]; do
	gen $next $step >"$SCRATCH/batch"
	next=$((next + step))
	cfr b add -f "$SCRATCH/batch" fill
	batches=$((batches + 1))
	if [ "$RC" = 0 ]; then
		cat "$SCRATCH/batch" >>"$SCRATCH/added"
		added=$((added + step))
		continue
	fi
	full=$OUT
	[ "$RC" = 3 ] && [[ $OUT == *"filter is full"* ]] || break
	# Refused whole: go on with smaller batches, down to single entries.
	[ "$step" = 1 ] && break
	step=$((step >= 10 ? step / 10 : 1))
done
diag "filled after $batches batches: $added entries in a filter of capacity $CAP"
check_all "adds fail once it is full, with ENOSPC: 'the filter is full' (exit 3)" \
	"$RC" = 3 "$([[ $full == *"filter is full"* ]] && echo y)" = y
check_all "the refused batches changed nothing: items = entries added ($added), at least the capacity; the victim slot is taken" \
	"$(items fill)" = "$added" "$added" -ge $CAP "$(fstat b fill .stats.victim)" = true
check "every entry added before is still present ($added)" \
	cfq b test -f "$SCRATCH/added" fill
# Deletes make room again (once one frees a slot the victim can reach, the
# victim goes back into the table): 200 out, 100 new ones in.
sed -n 2,201p "$SCRATCH/added" >"$SCRATCH/out"
gen 50000 100 >"$SCRATCH/new"
check "deletes make room: 200 deleted, 100 new ones added, items $((added - 100))" eval \
	'cfq b del -f "$SCRATCH/out" fill &&
	 cfq b add -f "$SCRATCH/new" fill &&
	 [ "$(items fill)" = $((added - 100)) ]'
grep -vxF -f "$SCRATCH/out" "$SCRATCH/added" | cat - "$SCRATCH/new" \
	>"$SCRATCH/now"
send3
check_eq "the full filter still drops its listed flow (listed, other received)" \
	"$GOT" "0 3"

# The ceiling, lowered at run time: 16 MiB for the namespace.  A filter of
# capacity 4M takes 6.3 MB.
echo 16 >"$PARAM" || bail "cannot write $PARAM"
cfq b create c1 capacity 4M && cfq b create c2 capacity 4M ||
	bail "cannot create two filters under the ceiling"
cfr b create c3 capacity 4M
check_all "a third filter over the ceiling: EDQUOT, exit 3, a message" \
	"$RC" = 3 "$([[ $OUT == *"memory ceiling"* && $OUT == *"quota exceeded"* ]] && echo y)" = y
[ "$RC" = 3 ] || diag "$OUT"
cfr b create c4 capacity 16M
check_all "a filter bigger than the ceiling on its own: EDQUOT" \
	"$RC" = 3 "$([[ $OUT == *"memory ceiling"* ]] && echo y)" = y
check "and no filter c3 or c4 was left behind" eval \
	'[ "$(cf b list -n | sort | tr "\n" " ")" = "c1 c2 fill " ]'
echo 1 >"$PARAM"
check "ceiling below what is in use: the filters there keep working (adds, tests)" eval \
	'cfq b add c1 udp 10.1.1.1:1 10.2.2.2:2 &&
	 cfq b test c1 udp 10.1.1.1:1 10.2.2.2:2 &&
	 cfq b test -f "$SCRATCH/now" fill'
send3
check_eq "and the listed flow is still dropped (listed, other received)" \
	"$GOT" "0 6"
echo 16 >"$PARAM"
check "destroying a filter makes room under the ceiling again" eval \
	'cfq b destroy c2 && cfq b create c3 capacity 4M'
cfq b destroy c1 c3

# Out of memory: no ceiling.  The table takes 12.57 bits an item.
echo 0 >"$PARAM"
echo 0 >"$ALLPARAM"
# In bash: mawk prints numbers past 2^31 as 2.6e+09 and its %d stops there.
read -r total avail <<<"$(awk '/^MemTotal/ { t = $2 } /^MemAvailable/ { a = $2 }
	END { print t, a }' /proc/meminfo)"
total=$((total * 1024))
avail=$((avail * 1024))
cap_for() {	# capacity whose table takes about $1 bytes
	echo $(($1 * 800 / 1257))
}
# Pages the kernel scanned to reclaim memory, stalls for it included.
reclaimed() {
	awk '/^(pgscan|allocstall)/ { n += $2 } END { print n + 0 }' /proc/vmstat
}
res=()
scan0=$(reclaimed)
for what in "available:$((avail + avail / 25))" "total:$((total + total / 20))" \
	    "10GiB:$((10 << 30))"; do
	cfr b create huge capacity "$(cap_for "${what#*:}")"
	res+=("$RC" "$([[ $OUT == *"Cannot allocate memory"* ]] && echo ENOMEM)")
	[ "$RC" = 3 ] || diag "${what%%:*}: $OUT"
done
scanned=$(($(reclaimed) - scan0))
diag "MemTotal $((total >> 20)) MiB, MemAvailable $((avail >> 20)) MiB;" \
	"pages scanned for reclaim meanwhile: $scanned"
# At once: not after evicting every cache of the machine to try.
check_all "tables of 104% of the memory available, 105% of the VM's, 10 GiB: ENOMEM (exit 3), refused before any reclaim" \
	"${res[0]}" = 3 "${res[1]}" = ENOMEM "${res[2]}" = 3 "${res[3]}" = ENOMEM \
	"${res[4]}" = 3 "${res[5]}" = ENOMEM "$scanned" = 0
check "and nothing is left of them; userspace can still allocate 10% of the memory" eval \
	'[ "$(cf b list -n | tr "\n" " ")" = "fill " ] &&
	 "$PYTHON" -c "bytearray($total // 10)"'
check_klog
finish
