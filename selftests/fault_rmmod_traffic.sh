#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod nf_cuckoo while traffic flows through its enabled filters (a drop
# filter at prerouting, a mark filter at input, counters at output, in two
# namespaces) and cfctl processes keep adding entries: the module unloads
# without an oops or warning, the cfctl loops get "not loaded" and go on,
# the traffic goes on unfiltered (the dropped flow arrives, nothing is
# marked any more), and the module loads again with no filter left.  Runs
# just before cfctl_rmmod.sh; loads the module again for it.
#
#   NF_CUCKOO_KO   the module file to load again (default: nf_cuckoo.ko of
#                  this tree)

. "$(dirname "$0")/packet/pktlib.sh"
require_env
KO=${NF_CUCKOO_KO:-$REPO/nf_cuckoo.ko}
[ -f "$KO" ] || skip_all "no $KO to load again afterwards"
plan 7

trap 'cleanup; [ -d /sys/module/nf_cuckoo ] || insmod "$KO"' EXIT
kmsg_mark
topo_pair
nft_listed_other b 'counter marked {}' \
	'chain in { type filter hook input priority 0; meta mark 0x1 counter name marked; }'
cfq b create blk && cfq b add blk udp $A4:4001 $B4:5001 &&
	cfq b create mk hook input action mark 0x1 &&
	cfq b add mk udp $A4:4002 $B4:5001 &&
	cfq b create out hook output action count &&
	cfq a create out family ip hook output key dst action count &&
	cfq a add out dst $B4 || bail "cannot create the filters"

STOP=$SCRATCH/stop
bg a "$SCRATCH/listed.out" stream --dst $B4 --sport 4001 --dport 5001 \
	--rate 100 --time 120 --stop "$STOP"
bg a "$SCRATCH/other.out" stream --dst $B4 --sport 4002 --dport 5001 \
	--rate 100 --time 120 --stop "$STOP"
# addloop NS FILTER FORMAT: adds entries (FORMAT with two numbers) until
# STOP; one line per cfctl status.
addloop() {
	local n=0

	while [ ! -e "$STOP" ]; do
		# shellcheck disable=SC2046
		cf "$1" add "$2" $(printf "$3" $((n / 256 % 256)) $((n % 256))) \
			>/dev/null 2>&1
		echo $?
		n=$((n + 1))
		sleep 0.1	# leave the VM's CPUs to the traffic too
	done >"$SCRATCH/loop.$1"
}
addloop b blk "udp 10.9.%d.%d:1 $B4:2" &
BGPIDS+=($!)
addloop a out "dst 10.9.%d.%d" &
BGPIDS+=($!)
statuses() {	# how many cfctl runs in NS's loop ended with status S
	grep -cx "$2" "$SCRATCH/loop.$1"
}
flowing() {
	counters b
	[ "${CNT[other]:-0}" -ge 20 ] && [ "${CNT[marked]:-0}" -ge 20 ] &&
		[ "$(statuses a 0)" -ge 3 ] && [ "$(statuses b 0)" -ge 3 ]
}
wait_until 60 flowing
check_all "before: the listed flow is dropped, the other marked, cfctl adds entries" \
	"${CNT[listed]}" = 0 "${CNT[other]}" -ge 20 "${CNT[marked]}" -ge 20 \
	"$(statuses a 0)" -ge 3 "$(statuses b 0)" -ge 3

# A netlink dump in progress holds the module: rmmod may have to retry.
tries=0
until rmmod nf_cuckoo 2>"$SCRATCH/rmmod.err"; do
	tries=$((tries + 1))
	[ $tries -ge 50 ] && break
	sleep 0.1
done
check "rmmod under traffic and cfctl ($tries retries)" \
	[ ! -d /sys/module/nf_cuckoo ]
[ -d /sys/module/nf_cuckoo ] && diag "$(cat "$SCRATCH/rmmod.err")"
counters b
l0=${CNT[listed]} m0=${CNT[marked]} o0=${CNT[other]}
unfiltered() {
	counters b
	[ "${CNT[listed]}" -ge $((l0 + 20)) ] && [ "${CNT[other]}" -ge $((o0 + 20)) ]
}
wait_until 60 unfiltered
check_all "after: the listed flow arrives, nothing is marked any more" \
	"${CNT[listed]}" -ge $((l0 + 20)) "${CNT[marked]}" -le $((m0 + 1))
looping() {
	[ "$(statuses a 3)" -ge 2 ] && [ "$(statuses b 3)" -ge 2 ]
}
wait_until 30 looping
check "the cfctl loops go on, told the module is not loaded (exit 3)" looping
touch "$STOP"
wait "${BGPIDS[@]}" 2>/dev/null
BGPIDS=()
check_klog

check "the module loads again" insmod "$KO"
check_all "no filter survived in either namespace" \
	"$(cf a list -n | wc -l)" = 0 "$(cf b list -n | wc -l)" = 0
finish
