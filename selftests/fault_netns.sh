#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A network namespace with filters (every hook, entries, a big table, a
# disabled one) is deleted while a stream from another namespace runs
# through one of them and a cfctl loop keeps adding entries: its filters
# go, and their memory with them.  The filters are created from a memory
# cgroup of the test's own, to which the module charges their tables:
# its kernel memory rises by what `cfctl show` reports and comes back to
# where it was once the namespace is gone (the kernel frees a namespace
# in the background: waited for).  The cfctl loop ends with the
# namespace; a new namespace of the same name has no filter; the kernel
# log is clean (nf_cuckoo warns there if a namespace's accounting was off).

. "$(dirname "$0")/packet/pktlib.sh"
require_env
CG=/sys/fs/cgroup
grep -qw memory $CG/cgroup.controllers 2>/dev/null ||
	skip_all "no cgroup2 memory controller at $CG"
plan 7

MCG=$CG/nfcp$$
grep -qw memory $CG/cgroup.subtree_control ||
	echo +memory >$CG/cgroup.subtree_control || bail "cannot enable memcg"
mkdir "$MCG" || bail "cannot create $MCG"
trap 'cleanup; rmdir "$MCG" 2>/dev/null' EXIT
kmsg_mark
topo_pair
nft_listed_other b

# cfm NS ARGS...: cfctl in namespace NS, from the test's memory cgroup.
cfm() {
	local n=$1

	shift
	bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$MCG" \
		nsenter --net="/run/netns/$NSP$n" "$CFCTL" "$@"
}
# Kernel memory charged to the cgroup (memory.stat's "kernel": tables,
# slabs, per-CPU counters), reclaimable slabs dropped first.  Not
# memory.current: that counts the charges each CPU keeps in stock too.
# memory.stat is read after the kernel's periodic flush of its per-CPU
# statistics (every 2 s): a read flushes them only once enough updates
# are pending (a batch of pages a CPU), and 6.12 once showed 49 KB less
# than the filters' bytes right after they were made (charged 14499840,
# cfctl's bytes 14549256).
mem() {
	echo 2 >/proc/sys/vm/drop_caches
	sleep 2.5
	awk '$1 == "kernel" { print $2 }' "$MCG/memory.stat"
}

cfm b list >/dev/null || bail "cannot run cfctl in $MCG"
base=$(mem)
check "create filters at every hook in b (a 12 MB one, a disabled one) from the cgroup" \
	cfm b restore -f - <<EOF
create big capacity 8M
add big udp $A4:4001 $B4:5001
create mk hook input action mark 0x1
add mk udp $A4:4002 $B4:5001
create fw family ip6 hook forward
create out hook output key dst action count
add out dst $A4
create post hook postrouting invert action count
create off capacity 1M disabled
EOF
bytes=$(cf b -j list | jq '[.[].stats.bytes] | add')
charged=$(($(mem) - base))
diag "the filters take $bytes bytes; the cgroup was charged $charged"
check_all "the cgroup is charged for them (at least the bytes cfctl shows)" \
	"$charged" -ge "$bytes" "$bytes" -ge 12000000

STOP=$SCRATCH/stop
bg a "$SCRATCH/listed.out" stream --dst $B4 --sport 4001 --dport 5001 \
	--rate 100 --time 120 --stop "$STOP"
bg a "$SCRATCH/other.out" stream --dst $B4 --sport 4002 --dport 5001 \
	--rate 100 --time 120 --stop "$STOP"
# Adds until the namespace is gone (nsenter then fails).
(
	n=0
	while cf b add big udp 10.9.$((n / 256 % 256)).$((n % 256)):1 $B4:2 \
		>/dev/null 2>&1; do
		n=$((n + 1))
		echo $n >"$SCRATCH/adds"
	done
) &
LOOP=$!
BGPIDS+=("$LOOP")
flowing() {
	counters b
	[ "${CNT[other]:-0}" -ge 20 ] && [ "$(cat "$SCRATCH/adds" 2>/dev/null)" ] &&
		[ "$(cat "$SCRATCH/adds")" -ge 3 ]
}
wait_until 60 flowing
check_all "traffic flows through b's filters and cfctl adds entries (listed dropped, other received, adds)" \
	"${CNT[listed]}" = 0 "${CNT[other]}" -ge 20 "$(cat "$SCRATCH/adds" 2>/dev/null)" -ge 3

ip netns del "${NSP}b" || bail "cannot delete b"
gone() {
	[ "$(mem)" -le $((base + 32768)) ]
}
t0=$SECONDS
wait_until 60 gone
left=$(($(mem) - base))
diag "$((SECONDS - t0))s after ip netns del: the cgroup holds $left bytes more than before"
check_all "the filters' memory came back (within 32 KiB of before, of $charged)" \
	"$left" -le 32768
gone_loop() {
	! kill -0 $LOOP 2>/dev/null
}
wait_until 30 gone_loop
check "the cfctl loop ended with the namespace" gone_loop
touch "$STOP"
ip netns add "${NSP}b" || bail "cannot create b again"
check_all "a new namespace of that name has no filter" "$(cf b list -n | wc -l)" = 0
check_klog
finish
