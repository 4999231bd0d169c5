#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/xdp's end-to-end drop rate, as root in the VM (in_vm.sh runs it):
#
#   e2e.sh --cfctl CFCTL [--flows N] [--families "4 6"] [--rounds K]
#          [--seconds S]
#
# The same traffic into the same device, dropped by nf_cuckoo's XDP
# program or by its prerouting hook: how many packets a second each
# drops, as the filter's own counters say.
#
# A veth pair: xet in this namespace, xer in namespace xe-rx.  The
# sender is the kernel's pktgen on xet (one thread, CPU 0): UDP packets of
# N flows (destination ports 9000..9000+N-1, one after the other), all
# of them in both filters, so every packet is dropped:
#   xdp   filter xex (hook none) through `cfctl xdp attach xer xex
#         mode native`: veth hands the program each packet before its
#         stack sees it;
#   hook  filter xeh (prerouting, priority raw, action drop), xer with
#         no XDP program: veth's netif_rx(), the backlog, ip_rcv(), then
#         the hook.
# veth delivers on the sending CPU, so that one CPU does all the work of
# both sides, and the sender's share (pktgen's skb, veth's xmit) is in
# every figure.  A floor, xer with a program that drops every packet
# without reading it (drop.bpf.o), shows how big that share is.  Unlike
# a NIC's driver, which gives XDP its DMA buffer before any skb exists,
# veth's XDP gets pktgen's skb and copies it into a page of its own (its
# headroom is short of XDP_PACKET_HEADROOM): XDP pays a copy here that
# it would not on hardware, so the ratio understates what it saves.
# Each round runs the sender for a second of warm-up and S seconds, and
# reads the filter's matches (the floor: veth's count of XDP drops) at
# the start and end of the S seconds.
# Output: "XB-JSON {"type":"e2e",...}" a contender, family and round
# (drops, seconds, drops_per_s, sent_per_s: pktgen's count over the same
# seconds), and progress as "# ...".

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CFCTL=$REPO/tools/cfctl/cfctl
N=256
FAMILIES="4 6"
ROUNDS=3
SECS=5
while [ $# -gt 0 ]; do
	case $1 in
	--cfctl) CFCTL=$2; shift 2 ;;
	--flows) N=$2; shift 2 ;;
	--families) FAMILIES=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	*) echo "e2e.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
W=/tmp/xe
mkdir -p "$W"
NS=xe-rx
say() { echo "# [$SECONDS s] e2e: $*"; }
rx() { nsenter --net="/run/netns/$NS" -- "$@"; }
now() { date +%s.%N; }
# A filter's matches, from cfctl's JSON; with no filter, the frames xer's
# XDP program dropped, as veth counts them.
matches() {
	if [ -n "$1" ]; then
		rx "$CFCTL" -j show "$1" | jq '.stats.packets.matches'
	else
		rx ethtool -S xer | awk '/xdp_drops:/ { n += $2 } END { print n + 0 }'
	fi
}
fail() { echo "# e2e: $*"; exit 1; }

ip netns add "$NS" || fail "cannot add namespace $NS"
modprobe pktgen || fail "no pktgen"
trap 'echo stop >/proc/net/pktgen/pgctrl 2>/dev/null; ip netns del "$NS" 2>/dev/null; ip link del xet 2>/dev/null' EXIT
ip link add xet type veth peer name xer netns "$NS" || fail "cannot make the veth pair"
ip link set xet up && rx ip link set lo up && rx ip link set xer up ||
	fail "cannot set the devices up"
ip addr add 10.98.0.1/24 dev xet && rx ip addr add 10.98.0.2/24 dev xer &&
	ip addr add 2001:db8:98::1/64 dev xet nodad &&
	rx ip addr add 2001:db8:98::2/64 dev xer nodad || fail "cannot address the devices"
ether() { "$@" | awk '$1 == "link/ether" { print $2 }'; }
mac=$(ether rx ip link show xer)

src() { [ "$1" = 6 ] && echo 2001:db8:98::1 || echo 10.98.0.1; }
dst() { [ "$1" = 6 ] && echo 2001:db8:98::2 || echo 10.98.0.2; }
fam_name() { [ "$1" = 6 ] && echo ip6 || echo ip; }
for f in $FAMILIES; do
	awk -v n="$N" -v s="$(src "$f")" -v d="$(dst "$f")" -v f="$f" 'BEGIN {
		for (k = 0; k < n; k++)
			if (f == 6)
				printf "udp [%s]:1024 [%s]:%d\n", s, d, 9000 + k
			else
				printf "udp %s:1024 %s:%d\n", s, d, 9000 + k
	}' >"$W/f$f.txt"
	for c in xex:none xeh:prerouting; do
		name=${c%%:*}$f
		extra=()
		[ "${c#*:}" = prerouting ] && extra=(priority raw)
		rx "$CFCTL" create "$name" family "$(fam_name "$f")" capacity "$N" \
			hook "${c#*:}" "${extra[@]}" action drop &&
			rx "$CFCTL" -q add -f "$W/f$f.txt" "$name" ||
			fail "cannot make filter $name"
	done
done

PG=/proc/net/pktgen
pg() { echo "$2" >"$PG/$1" || fail "pktgen $1: $2 refused"; }
sent() { awk '/pkts-sofar:/ { print $2 }' "$PG/xet"; }

# pktgen on xet, CPU 0's thread, packets of family $1 until stopped.
pktgen_setup() {
	local f=$1

	pg kpktgend_0 rem_device_all
	pg kpktgend_0 "add_device xet"
	pg xet "count 0"
	pg xet "clone_skb 0"
	pg xet "delay 0"
	pg xet "dst_mac $mac"
	if [ "$f" = 6 ]; then
		pg xet "pkt_size 80"
		pg xet "dst6 $(dst 6)"
		pg xet "src6 $(src 6)"
	else
		pg xet "pkt_size 60"
		pg xet "dst $(dst 4)"
		pg xet "src_min $(src 4)"
		pg xet "src_max $(src 4)"
	fi
	pg xet "udp_src_min 1024"
	pg xet "udp_src_max 1024"
	pg xet "udp_dst_min 9000"
	pg xet "udp_dst_max $((9000 + N - 1))"
}

# One round: the sender for a second and $SECS more, counting $2's
# matches over those $SECS; one XB-JSON line.
round() {
	local what=$1 filter=$2 f=$3 r=$4 pid m0 m1 t0 t1 s0 s1

	pktgen_setup "$f"
	echo start >"$PG/pgctrl" &
	pid=$!
	sleep 1
	m0=$(matches "$filter")
	s0=$(sent)
	t0=$(now)
	sleep "$SECS"
	m1=$(matches "$filter")
	s1=$(sent)
	t1=$(now)
	echo stop >"$PG/pgctrl"
	wait "$pid" 2>/dev/null
	if [ -z "${m0:-}" ] || [ -z "${m1:-}" ]; then
		echo "# e2e: $what IPv$f: no counters"
		return 1
	fi
	if [ "$m1" = "$m0" ]; then
		echo "# e2e: $what IPv$f: nothing was dropped; pktgen said:"
		grep -E 'Result|pkts-sofar' "$PG/xet" | sed 's/^/#   /'
		return 1
	fi
	echo "XB-JSON {\"type\":\"e2e\",\"contender\":\"$what\",\"family\":$f,\"rep\":$r,\"drops\":$((m1 - m0)),\"s\":$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'),\"drops_per_s\":$(awk -v a="$t0" -v b="$t1" -v d="$((m1 - m0))" 'BEGIN { printf "%.0f", d / (b - a) }'),\"sent_per_s\":$(awk -v a="$t0" -v b="$t1" -v d="$((${s1:-0} - ${s0:-0}))" 'BEGIN { printf "%.0f", d / (b - a) }')}"
}

attach() {
	rx "$CFCTL" xdp attach xer "$1" mode native >"$W/attach.log" 2>&1 ||
		{ sed 's/^/#   /' "$W/attach.log"; return 1; }
}
detach() { rx "$CFCTL" xdp detach xer >/dev/null 2>&1; }

status=0
for ((r = 1; r <= ROUNDS; r++)); do
	for f in $FAMILIES; do
		# The hook: no program on xer.
		round hook "xeh$f" "$f" "$r" || status=1
		attach "xex$f" || fail "cannot attach the program to xer"
		round xdp "xex$f" "$f" "$r" || status=1
		detach
		# The floor: every frame dropped unread.
		if rx ip link set dev xer xdpdrv obj "$HERE/drop.bpf.o" sec xdp 2>"$W/drop.log"; then
			round floor "" "$f" "$r" || status=1
			rx ip link set dev xer xdpdrv off
		else
			sed 's/^/#   /' "$W/drop.log" | tail -3
		fi
	done
	say "round $r done"
done
exit $status
