#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/xdp's end-to-end drop rate, as root in the VM (in_vm.sh runs it):
#
#   e2e.sh --flow-dir DIR [--cfctl CFCTL] [--flows N] [--families "4 6"]
#          [--rounds K] [--seconds S]
#
# The same traffic into the same device, dropped by nf_cuckoo's XDP
# program or by its prerouting hook: how many packets a second each
# drops, as the filter's own counters say.
#
# A veth pair: xer in this namespace, xet in namespace xe-tx.  The
# sender (xdpbench --send, on CPU 0) sends XDP frames to xet, as
# BPF_PROG_RUN's live-frame mode makes them: the frames of the first N of
# in_vm.sh's flows (DIR/f4.txt, DIR/f6.txt), in turn, every one of them
# in both filters, so every packet is dropped.  xer receives them in its
# NAPI poll as a driver does a NIC's frames, before any skb exists:
#   xdp   filter xex (hook none) through `cfctl xdp attach xer xex
#         mode native`: the program sees the frame;
#   hook  filter xeh (prerouting, priority raw, action drop), xer with
#         no XDP program (GRO on, which gives veth its NAPI): veth builds
#         an skb of each frame, then GRO, ip_rcv(), the hook.
# With two CPUs or more, xer's NAPI poll runs threaded (its
# napi/xer-* kthreads pinned to CPU 1), so that the receiving side has a
# CPU of its own, as a NIC's queue has, and each rate is what one
# receiving CPU drops.  The sender keeps its program attached to a dummy
# device (xdpbench --hold) while it runs: each BPF_PROG_RUN would
# otherwise add it to the kernel's XDP dispatcher and take it out again,
# rewriting the dispatcher's code under CPU 1 as it runs it, which under
# QEMU's TCG makes that CPU take the rewrite's breakpoint (an "int3"
# oops); with the program held, the dispatcher is rewritten only when a
# program is attached to or detached from xer, between rounds, with no
# traffic.  With one CPU, veth polls on the sending CPU once per batch of
# 64 frames the sender flushes, so one CPU does the work of both sides
# and the sender's share (running send.bpf.o, the redirect, the frames'
# pages) is in every figure.  Either way a floor, xer with a program
# that drops every frame without reading it (drop.bpf.o), shows the most
# the receiving side can drop, the sender's rate (sent_per_s) the most
# it is given.
# Each round runs the sender for a second of warm-up and S seconds, and
# reads the filter's matches (the floor: veth's count of XDP drops) at
# the start and end of the S seconds.
# Output: "XB-JSON {"type":"e2e",...}" a contender, family and round
# (drops, seconds, drops_per_s, sent_per_s: the sender's frames over the
# same seconds), and progress as "# ...".

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CFCTL=$REPO/tools/cfctl/cfctl
DIR=
N=256
FAMILIES="4 6"
ROUNDS=3
SECS=5
while [ $# -gt 0 ]; do
	case $1 in
	--cfctl) CFCTL=$2; shift 2 ;;
	--flow-dir) DIR=$2; shift 2 ;;
	--flows) N=$2; shift 2 ;;
	--families) FAMILIES=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	*) echo "e2e.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$DIR" ] || { echo "e2e.sh: --flow-dir is needed" >&2; exit 2; }
W=/tmp/xe
mkdir -p "$W"
NS=xe-tx
say() { echo "# [$SECONDS s] e2e: $*"; }
tx() { nsenter --net="/run/netns/$NS" -- "$@"; }
now() { date +%s.%N; }
# A filter's matches, from cfctl's JSON; with no filter, the frames xer's
# XDP program dropped, as veth counts them.
matches() {
	if [ -n "$1" ]; then
		"$CFCTL" -j show "$1" | jq '.stats.packets.matches'
	else
		ethtool -S xer | awk '/xdp_drops:/ { n += $2 } END { print n + 0 }'
	fi
}
fail() { echo "# e2e: $*"; exit 1; }

SENDER=
stop_sender() {
	[ -n "$SENDER" ] || return 0
	kill "$SENDER" 2>/dev/null
	wait "$SENDER" 2>/dev/null
	SENDER=
	sleep 0.5
}
ip netns add "$NS" || fail "cannot add namespace $NS"
trap 'stop_sender; ip netns del "$NS" 2>/dev/null; ip link del xer 2>/dev/null' EXIT
ip link add xer type veth peer name xet netns "$NS" || fail "cannot make the veth pair"
# Nothing but the sender's frames reaches xer, so that nothing runs an
# XDP program while one is attached or detached (TCG, above): xet sends
# no IPv6 of its own (router solicitations, MLD), the sender's frames
# are drained before, and what attaches or detaches runs on CPU 0, the
# sender's.
tx sysctl -qw net.ipv6.conf.xet.disable_ipv6=1 || fail "cannot turn IPv6 off on xet"
tx ip link add xed type dummy && tx ip link set xed up ||
	fail "cannot make the dummy device the sender holds its program on"
ip link set xer up && tx ip link set lo up && tx ip link set xet up ||
	fail "cannot set the devices up"
# The hook's path needs veth's NAPI without a program: GRO gives it.
ethtool -K xer gro on >/dev/null || fail "cannot turn GRO on for xer"
mac=$(ip link show xer | awk '$1 == "link/ether" { print $2 }')

fam_name() { [ "$1" = 6 ] && echo ip6 || echo ip; }
for f in $FAMILIES; do
	head -n "$N" "$DIR/f$f.txt" >"$W/f$f.txt"
	[ "$(wc -l <"$W/f$f.txt")" -eq "$N" ] || fail "$DIR/f$f.txt has fewer than $N flows"
	for c in xex:none xeh:prerouting; do
		name=${c%%:*}$f
		extra=()
		[ "${c#*:}" = prerouting ] && extra=(priority raw)
		"$CFCTL" create "$name" family "$(fam_name "$f")" capacity "$N" \
			hook "${c#*:}" "${extra[@]}" action drop &&
			"$CFCTL" -q add -f "$W/f$f.txt" "$name" ||
			fail "cannot make filter $name"
	done
done

sent() { awk '$1 == "XB-SENT" { n = $2 } END { print n + 0 }' "$W/sent.log"; }

# The receiving side on CPU 1: xer's NAPI threaded, its kthreads (made
# anew when a program is attached or detached) pinned there.
RXCPU=
if [ "$(nproc)" -ge 2 ]; then
	echo 1 >/sys/class/net/xer/threaded || fail "cannot make xer's NAPI threaded"
	RXCPU=1
fi
rx_pin() {
	local p pids
	[ -n "$RXCPU" ] || return 0
	echo 1 >/sys/class/net/xer/threaded || return 1
	pids=$(pgrep '^napi/xer') || { echo "# e2e: no napi/xer thread"; return 1; }
	for p in $pids; do
		taskset -pc "$RXCPU" "$p" >/dev/null || return 1
	done
}

# One round: the sender for a second and $SECS more, counting $2's
# matches over those $SECS; one XB-JSON line.
round() {
	local what=$1 filter=$2 f=$3 r=$4 m0 m1 t0 t1 s0 s1

	rx_pin || { echo "# e2e: cannot pin xer's NAPI to CPU $RXCPU"; return 1; }
	nsenter --net="/run/netns/$NS" -- taskset -c 0 "$HERE/xdpbench" --send xet --dst-mac "$mac" --flows "$N" \
		--families "$f" --obj "$HERE/send.bpf.o" --hold xed >"$W/sent.log" 2>&1 &
	SENDER=$!
	sleep 1
	m0=$(matches "$filter")
	s0=$(sent)
	t0=$(now)
	sleep "$SECS"
	m1=$(matches "$filter")
	s1=$(sent)
	t1=$(now)
	stop_sender
	if [ -z "${m0:-}" ] || [ -z "${m1:-}" ]; then
		echo "# e2e: $what IPv$f: no counters"
		return 1
	fi
	if [ "$m1" = "$m0" ]; then
		echo "# e2e: $what IPv$f: nothing was dropped; the sender said:"
		grep -v XB-SENT "$W/sent.log" | tail -3 | sed 's/^/#   /'
		echo "#   frames sent: $(sent)"
		return 1
	fi
	echo "XB-JSON {\"type\":\"e2e\",\"contender\":\"$what\",\"family\":$f,\"rep\":$r,\"rx_cpu\":\"${RXCPU:-same}\",\"drops\":$((m1 - m0)),\"s\":$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'),\"drops_per_s\":$(awk -v a="$t0" -v b="$t1" -v d="$((m1 - m0))" 'BEGIN { printf "%.0f", d / (b - a) }'),\"sent_per_s\":$(awk -v a="$t0" -v b="$t1" -v d="$((${s1:-0} - ${s0:-0}))" 'BEGIN { printf "%.0f", d / (b - a) }')}"
}

attach() {
	taskset -c 0 "$CFCTL" xdp attach xer "$1" mode native >"$W/attach.log" 2>&1 ||
		{ sed 's/^/#   /' "$W/attach.log"; return 1; }
}
detach() { taskset -c 0 "$CFCTL" xdp detach xer >/dev/null 2>&1; }

status=0
for ((r = 1; r <= ROUNDS; r++)); do
	for f in $FAMILIES; do
		# The hook: no program on xer.
		round hook "xeh$f" "$f" "$r" || status=1
		attach "xex$f" || fail "cannot attach the program to xer"
		round xdp "xex$f" "$f" "$r" || status=1
		detach
		# The floor: every frame dropped unread.
		if taskset -c 0 ip link set dev xer xdpdrv obj "$HERE/drop.bpf.o" sec xdp 2>"$W/drop.log"; then
			round floor "" "$f" "$r" || status=1
			taskset -c 0 ip link set dev xer xdpdrv off
		else
			sed 's/^/#   /' "$W/drop.log" | tail -3
		fi
	done
	say "round $r done"
done
exit $status
