#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The filter at XDP and tc, on a real device: client c, router r, server
# s (c -- r -- s).  A filter in r with no hook of its own (hook none)
# gets nf_cuckoo's program attached to r's ingress device rc with `cfctl
# xdp attach`, in native mode and then in generic mode, and with `cfctl
# tc attach` at rc's ingress and rs's egress.  Each time: the listed
# flows (IPv4 and IPv6) never reach s, and at XDP not even r's netfilter
# (an nftables counter at r's prerouting); unlisted flows arrive; every
# packet is counted in the filter's lookups, and in its path's; a delete
# takes effect at once and an add made while traffic runs drops from
# then on.  At tc egress, frames from a packet socket's TX ring (skbs
# whose linear part is the Ethernet header alone) are judged the same:
# the program reads their headers with the helper.  show lists what is
# attached; a filter a program is attached
# to cannot be destroyed (detach first), nor the module unloaded; a bind
# goes with its device and can be cleared once another tool took the
# program off; deleting the namespace with the program attached leaves
# nothing behind.

. "$(dirname "$0")/pktlib.sh"
require_env
plan 36

[ -r /sys/kernel/btf/nf_cuckoo ] || {
	not_ok "the module has its BTF (/sys/kernel/btf/nf_cuckoo)" \
		"without it no program can call the module; see btf/module-btf.sh"
	finish
}
# libxdp keeps its dispatcher's state in the BPF file system.
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
	bail "cannot mount the BPF file system"

topo_router
nft_load s <<EOF
table inet t {
	counter l4 {}
	counter l6 {}
	counter o4 {}
	counter o6 {}
	chain in {
		type filter hook input priority 0;
		ip saddr $C4 udp sport 4001 udp dport 5001 counter name l4
		ip6 saddr $C6 udp sport 4001 udp dport 5001 counter name l6
		ip saddr $C4 udp sport 4002 udp dport 5001 counter name o4
		ip6 saddr $C6 udp sport 4002 udp dport 5001 counter name o6
	}
}
EOF
# pre_l: the listed flows at r's prerouting, which XDP runs before.
nft_load r <<EOF
table inet t {
	counter pre_l {}
	chain pre {
		type filter hook prerouting priority -400;
		udp sport 4001 udp dport 5001 counter name pre_l
	}
}
EOF
E4="udp $C4:4001 $S4:5001"
E6="udp [$C6]:4001 [$S6]:5001"
N=4
declare -A PREV

# send: N datagrams of each of the four flows from c; the arrivals at s
# since the last send in D[l4 l6 o4 o6], r's prerouting count in D[pre].
declare -A D
send() {
	local k

	pktr c seq "udp --dst $S4 --sport 4001 --dport 5001 -n $N" \
		"udp --dst $S6 --sport 4001 --dport 5001 -n $N" \
		"udp --dst $S4 --sport 4002 --dport 5001 -n $N" \
		"udp --dst $S6 --sport 4002 --dport 5001 -n $N"
	counters s
	for k in l4 l6 o4 o6; do
		D[$k]=$((CNT[$k] - ${PREV[$k]:-0}))
		PREV[$k]=${CNT[$k]}
	done
	counters r
	D[pre]=$((CNT[pre_l] - ${PREV[pre]:-0}))
	PREV[pre]=${CNT[pre_l]}
}

cfq r create blk hook none || bail "cannot create blk"
cfq r add blk $E4, $E6 || bail "cannot add the listed flows"
send
check_all "hook none, no program: every flow arrives, nothing looked up" \
	"${D[l4]}" = $N "${D[l6]}" = $N "${D[o4]}" = $N "${D[o6]}" = $N \
	"$(fstat r blk .hook)" = none "$(fstat r blk .stats.packets.lookups)" = 0

# dropped WHERE PATH: the listed flows dropped, the others arrive; every
# packet counted, as PATH's (xdp or tc).
dropped() {
	local look0 match0 plook0 pmatch0 look match plook pmatch

	read -r look0 match0 plook0 pmatch0 <<<"$(path_stats "$2")"
	send
	read -r look match plook pmatch <<<"$(path_stats "$2")"
	check_all "$1: the listed flows are dropped, the others arrive" \
		"${D[l4]}" = 0 "${D[l6]}" = 0 "${D[o4]}" = $N "${D[o6]}" = $N
	# (The namespace's own ICMPv6, neighbour and router solicitations,
	# is looked up too, and matches nothing.)
	check_all "$1: every packet looked up, the listed ones matched, all as $2's" \
		"$((look - look0))" -ge $((4 * N)) "$((match - match0))" = $((2 * N)) \
		"$((plook - look + look0))" = "$plook0" "$((pmatch - pmatch0))" = $((2 * N))
}
# path_stats PATH: "LOOKUPS MATCHES PATH-LOOKUPS PATH-MATCHES" of blk.
path_stats() {
	cf r -j show blk | jq -r --arg p "$1" '.stats.packets |
		"\(.lookups) \(.matches) \(.[$p].lookups) \(.[$p].matches)"'
}

for mode in native generic; do
	cfr r xdp attach rc blk mode $mode
	check_all "xdp attach rc blk mode $mode" "$RC" = 0 \
		"$(grep -c "mode $mode" <<<"$OUT")" = 1
	dropped "XDP $mode" xdp
	check_eq "XDP $mode: r's netfilter never saw the listed flows" "${D[pre]}" 0
	cfr r -j xdp show
	check_eq "xdp show -j: rc, blk, $mode" \
		"$(jq -r '.[] | "\(.dev) \(.attach) \(.filter) \(.mode)"' <<<"$OUT")" \
		"rc xdp blk $mode"
	cfr r xdp detach rc
	send
	check_all "xdp detach: every flow arrives again, show lists nothing" \
		"$RC" = 0 "${D[l4]}" = $N "${D[o6]}" = $N \
		"$(cf r xdp show)" = ""
done

cfq r xdp attach rc blk || bail "cannot attach at XDP"
cfq r del blk $E4
send
check_all "XDP: a deleted entry's flow arrives at once, the other listed one does not" \
	"${D[l4]}" = $N "${D[l6]}" = 0
# An add while a stream runs: its packets after the add are dropped.
bg c "$SCRATCH/stream.out" stream --dst $S4 --sport 4001 --dport 5001 \
	--rate 50 --time 60 --stop "$SCRATCH/stop"
for ((i = 0; i < 100; i++)); do
	counters s
	[ "${CNT[l4]}" -gt "${PREV[l4]}" ] && break
	sleep 0.2
done
before=$((CNT[l4] - PREV[l4]))
cfq r add blk $E4
sleep 0.5
counters s
a=${CNT[l4]}
sleep 1.5
counters s
check_all "XDP: an entry added while its flow streams drops it from then on" \
	"$before" -gt 0 "${CNT[l4]}" = "$a"
touch "$SCRATCH/stop"
reap "$BGPID" 10
send

check_eq "the module cannot be unloaded under an attached program" \
	"$(rmmod nf_cuckoo 2>/dev/null; echo $?)" 1
cfr r destroy blk
check_all "destroy of a filter a program is attached to: refused, saying why" \
	"$RC" = 3 "$(grep -c 'in use by a program' <<<"$OUT")" = 1 \
	"$(fstat r blk '.attached[0] | "\(.attach) \(.dev)"')" = "xdp rc"
# Another tool takes the program off: the bind stays until cleared.
ns r ip link set dev rc xdpgeneric off 2>/dev/null
ns r ip link set dev rc xdp off 2>/dev/null
cfr r xdp detach rc
check_all "xdp detach after another tool took the program off: the bind cleared, said so" \
	"$RC" = 0 "$(grep -c 'record of it is gone' <<<"$OUT")" = 1 \
	"$(fstat r blk '.attached // [] | length')" = 0
cfq r xdp attach rc blk || bail "cannot attach at XDP"
cfq r xdp detach rc
cfr r destroy blk
check_eq "detach, then destroy: done" "$RC" 0
cfq r create blk hook none
cfq r add blk $E4, $E6

cfr r tc attach rc ingress blk
check_eq "tc attach rc ingress blk" "$RC" 0
dropped "tc ingress" tc
cfq r tc detach rc ingress
cfr r tc attach rs egress blk
check_eq "tc attach rs egress blk" "$RC" 0
dropped "tc egress" tc
# Frames sent by r through a packet socket's TX ring reach rs's egress
# as skbs whose linear part is their Ethernet header: the program finds
# no IP header there and reads the headers with bpf_skb_load_bytes().
counters s
for k in l4 l6 o4 o6; do PREV[$k]=${CNT[$k]}; done
pktr r craft --dev rs --dmac "${MAC[s/vs]}" --ring \
	--pkt "v=4,src=$C4,dst=$S4,sport=4001,dport=5001,n=$N" \
	--pkt "v=6,src=$C6,dst=$S6,sport=4001,dport=5001,n=$N" \
	--pkt "v=4,src=$C4,dst=$S4,sport=4002,dport=5001,n=$N" \
	--pkt "v=6,src=$C6,dst=$S6,sport=4002,dport=5001,n=$N"
sent=${R[0]:-}
counters s
check_all "tc egress, frames whose IP header is in a page fragment: the listed ones dropped, the others arrive" \
	"$sent" = $((4 * N)) "$((CNT[l4] - PREV[l4]))" = 0 \
	"$((CNT[l6] - PREV[l6]))" = 0 "$((CNT[o4] - PREV[o4]))" = $N \
	"$((CNT[o6] - PREV[o6]))" = $N
for k in l4 l6 o4 o6; do PREV[$k]=${CNT[$k]}; done
check_eq "tc show: rs egress blk" \
	"$(cf r -j tc show | jq -r '.[] | "\(.dev) \(.attach) \(.filter)"')" \
	"rs egress blk"
cfr r tc attach rs egress blk
check_all "tc attach twice: refused, saying what to do" "$RC" = 3 \
	"$(grep -c 'tc detach rs egress' <<<"$OUT")" = 1
cfq r tc detach rs egress
send
check_all "tc detach: every flow arrives" "${D[l4]}" = $N "${D[l6]}" = $N

# A bind goes with its device.
ns r ip link add dum0 type dummy && ns r ip link set dum0 up ||
	bail "cannot add a dummy device"
cfq r tc attach dum0 egress blk
ns r ip link del dum0
cfr r destroy blk
check_eq "the device of a bind deleted: the filter can be destroyed" "$RC" 0
cfq r create blk hook none
cfq r add blk $E4, $E6

# Refusals.
cfq r create cnt action count hook none
cfr r xdp attach rc cnt
check_all "a filter that does not drop is refused, saying why" "$RC" = 3 \
	"$(grep -c "action drop" <<<"$OUT")" = 1
cfr r xdp attach rc nosuch
check_eq "an unknown filter is refused" "$RC" 3
cfr r xdp attach nodev blk
check_all "an unknown device is refused" "$RC" = 3 \
	"$(grep -c "no device 'nodev'" <<<"$OUT")" = 1
cfr r tc attach lo ingress blk
check_all "a device that is not Ethernet is refused" "$RC" = 3 \
	"$(grep -c "not an Ethernet device" <<<"$OUT")" = 1

# A namespace deleted under an attached program: the program goes with
# its device; libxdp's pins of its dispatcher stay (as for any libxdp
# program) until `cfctl xdp clean`, and with them the module's use.
cfq r xdp attach rc blk || bail "cannot attach at XDP"
ref0=$(cat /sys/module/nf_cuckoo/refcnt)
ip netns del "${NSP}r"
NAMESPACES=("${NAMESPACES[@]/r/}")
"$CFCTL" xdp clean
for ((i = 0; i < 50; i++)); do
	[ "$(cat /sys/module/nf_cuckoo/refcnt)" -lt "$ref0" ] && break
	sleep 0.2
done
check_all "the router's namespace deleted with a program attached, then xdp clean: the program's hold on the module gone, no pins left, no oops" \
	"$(cat /sys/module/nf_cuckoo/refcnt)" = $((ref0 - 1)) \
	"$(find /sys/fs/bpf/xdp -name 'dispatch-*' 2>/dev/null | wc -l)" = 0 \
	"$(oopses)" = ""

# A module without its BTF (pahole missing where it was built): it loads
# and filters, and cfctl says why there is no XDP.
KO=${NF_CUCKOO_KO:-$REPO/nf_cuckoo.ko}
trap 'cleanup; [ -d /sys/module/nf_cuckoo ] || insmod "$KO"' EXIT
objcopy --remove-section=.BTF --remove-section=.BTF.base "$KO" \
	"$SCRATCH/nobtf.ko" && rmmod nf_cuckoo && insmod "$SCRATCH/nobtf.ko" ||
	bail "cannot load the module without its BTF"
ns c ip link add d0 type dummy
cfq c create nb hook none
cfr c xdp attach d0 nb
check_all "a module without BTF: xdp attach refused, saying the module has no BTF" \
	"$RC" = 3 "$(grep -c "built without BTF" <<<"$OUT")" = 1
rmmod nf_cuckoo && insmod "$KO" || bail "cannot load $KO again"
finish
