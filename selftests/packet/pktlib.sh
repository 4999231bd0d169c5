# SPDX-License-Identifier: GPL-2.0
#
# Shared by the packet-path selftests (source it).  TAP 13 output and
# kselftest exit statuses: 0 pass, 1 fail, 4 skip (only when nf_cuckoo
# cannot be loaded).
#
# Each test builds its own network namespaces (named nfcp<PID><name>) joined
# by veth pairs, and deletes them on exit, filters included.  Traffic comes
# from nfcpkt.py (standard library only), one agent process per sending
# namespace (pktr); what arrives is counted by nftables counters on the
# receiving side, after nf_cuckoo's hook, and set against the filter's own
# counters (pstats).
#
# Under emulation every program started costs 0.2 s or more (python 0.5 s
# or more): the helpers batch what they can (ip -batch, nft -f, one python
# agent per namespace), and enter namespaces with nsenter.
#
# Environment:
#   CFCTL          the cfctl binary (default: tools/cfctl/cfctl of this tree)
#   NF_CUCKOO_KO   module to insert if nf_cuckoo is not loaded (default:
#                  nf_cuckoo.ko at the top of this tree, then modprobe)
#   PYTHON         python3 to run nfcpkt.py (default /usr/bin/python3)
#   NFCP_VERBOSE=1 show every command run through ns/cf
#   NFCP_CREATE    words added to every `create` made through cf/cfq,
#                  e.g. "semisort" (the *_semisort.sh tests): the same
#                  test on filters of another kind.  With semisort, each
#                  filter is checked to be semi-sorted once created.

set -u

PKTDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$PKTDIR/../.." && pwd)
CFCTL=${CFCTL:-$REPO/tools/cfctl/cfctl}
if [ -z "${PYTHON:-}" ]; then
	PYTHON=/usr/bin/python3
	[ -x "$PYTHON" ] || PYTHON=python3
fi
NFCPKT=$PKTDIR/nfcpkt.py
# No site packages: nfcpkt.py needs only the standard library, and every
# 100 ms of start-up counts in an emulated VM.
PYFLAGS=(-I -S)

. "$PKTDIR/../tap.sh"

NSP=nfcp$$
NAMESPACES=()
BGPIDS=()
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/nfcp.XXXXXX")

# check DESC CONDITION-COMMAND...: ok if it succeeds.
check() {
	local desc=$1

	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc" "failed: $*"
	fi
}

# reap PID SECONDS: wait for a child sent SIGTERM; SIGKILL it if it is
# still there after SECONDS (a daemon stuck on a loaded host must not
# hang the test until the runner's timeout).
reap() {
	local i

	for ((i = 0; i < $2 * 4; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.25
	done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

cleanup() {
	local p ns

	for p in "${BGPIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${BGPIDS[@]}"; do
		reap "$p" 20
	done
	for ns in "${NAMESPACES[@]}"; do
		ip netns del "$NSP$ns" 2>/dev/null
	done
	rm -rf "$SCRATCH"
}
trap cleanup EXIT

# topo_clients: clients a (A4, A6) and c (C4) each joined to server s
# (S4A, S6A on a's side; S4C on c's), as the clients' tests use them.
topo_clients() {
	A4=10.0.0.1 S4A=10.0.0.2 C4=10.0.1.1 S4C=10.0.1.2
	A6=fd00::1 S6A=fd00::2
	mkns a c s
	link a va $A4/24 $A6/64 s sa $S4A/24 $S6A/64
	link c vc $C4/24 fd01::1/64 s sc $S4C/24 fd01::2/64
}

# xt_load: the iptables match for a test: xt_cuckoo.ko beside
# NF_CUCKOO_KO inserted (the VM has no module tree to find it in) and
# this tree's libxt_cuckoo.so found first (XTABLES_LIBDIR, exported for
# what the test starts).  The test's exit trap calls xt_unload after
# cleanup (the namespaces and their rules): later tests unload nf_cuckoo.
xt_load() {
	local xt=$REPO/tools/xt
	local ko

	ko=$(dirname "${NF_CUCKOO_KO:-$REPO/nf_cuckoo.ko}")/xt_cuckoo.ko
	[ -r "$xt/libxt_cuckoo.so" ] || bail "no $xt/libxt_cuckoo.so (make -C tools/xt)"
	[ -d /sys/module/xt_cuckoo ] || { modprobe x_tables && insmod "$ko"; } ||
		bail "cannot load $ko"
	XTABLES_LIBDIR=$xt:$(pkg-config --variable=xtlibdir xtables 2>/dev/null ||
		echo /usr/lib/x86_64-linux-gnu/xtables)
	export XTABLES_LIBDIR
}

# xt_unload: xt_cuckoo unloaded, waiting up to 10 s for the rules of
# deleted namespaces to let go of it; 0 if it is not loaded.
xt_unload() {
	local i

	for ((i = 0; i < 50; i++)); do
		[ -d /sys/module/xt_cuckoo ] || return 0
		rmmod xt_cuckoo 2>/dev/null && return
		sleep 0.2
	done
	return 1
}

# Root, the module loaded (or loadable), cfctl and the tools built.
require_env() {
	local ko=${NF_CUCKOO_KO:-$REPO/nf_cuckoo.ko} t

	[ "$(id -u)" = 0 ] || skip_all "must run as root"
	if [ ! -d /sys/module/nf_cuckoo ]; then
		if [ -f "$ko" ]; then
			insmod "$ko" 2>/dev/null
		else
			modprobe nf_cuckoo 2>/dev/null
		fi
		[ -d /sys/module/nf_cuckoo ] ||
			skip_all "nf_cuckoo is not loaded and cannot be loaded"
	fi
	[ -x "$CFCTL" ] || bail "cfctl not built ($CFCTL): make -C tools/cfctl"
	for t in ip nft jq nsenter "$PYTHON"; do
		command -v "$t" >/dev/null || bail "$t is missing"
	done
}

# ns NAME CMD...: run CMD in namespace NAME.  nsenter, not `ip netns
# exec`, which also remounts /sys and costs 0.2 s a call under emulation
# (so /sys/class/net shows the VM's own devices here: use ip instead).
ns() {
	local n=$1

	shift
	[ "${NFCP_VERBOSE:-0}" = 1 ] && echo "# $(date +%T.%N | cut -c1-12) [$n] $*" >&2
	nsenter --net="/run/netns/$NSP$n" -- "$@"
}

# cf NS ARGS...: cfctl in namespace NS; output to stdout.
cf() {
	local n=$1

	shift
	if [ "${1:-}" != create ] || [ -z "${NFCP_CREATE:-}" ]; then
		ns "$n" "$CFCTL" "$@"
		return
	fi
	# shellcheck disable=SC2086 # words
	ns "$n" "$CFCTL" "$@" $NFCP_CREATE || return
	case " $NFCP_CREATE " in
	*" semisort "*)
		ns "$n" "$CFCTL" show "$2" | grep -q "^Header: .* semisort " || {
			echo "cfctl: filter $2 was created, but not semi-sorted" >&2
			return 1
		} ;;
	esac
}

# cfq NS ARGS...: cfctl, quiet; the status tells.
cfq() {
	cf "$@" >/dev/null 2>"$SCRATCH/cf.err" || {
		diag "cfctl $* failed:" "$(cat "$SCRATCH/cf.err")"
		return 1
	}
}

# cfr NS ARGS...: cfctl in namespace NS; its output (stdout and stderr)
# in OUT, its status in RC.
cfr() {
	OUT=$(cf "$@" 2>&1)
	RC=$?
}

# pkt NS ARGS...: nfcpkt.py in namespace NS; prints its result.
pkt() {
	local n=$1

	shift
	ns "$n" "$PYTHON" "${PYFLAGS[@]}" "$NFCPKT" "$@"
}

# pktr NS ARGS...: as pkt, through an nfcpkt.py agent that stays up in NS
# (python takes half a second or more to start in the VM); the result
# lines go into the array R.
AGENT_END=--nfcpkt-end--
declare -A AGENT_IN AGENT_OUT
pktr() {
	local n=$1 msg line IFS=$'\x1f'

	shift
	msg="$*"
	IFS=$' \t\n'
	[ -n "${AGENT_IN[$n]:-}" ] || agent_start "$n"
	R=()
	printf '%s\n' "${msg//$'\n'/ }" >&"${AGENT_IN[$n]}"
	while IFS= read -r -t 120 line <&"${AGENT_OUT[$n]}"; do
		[ "$line" = "$AGENT_END" ] && return 0
		R+=("$line")
	done
	bail "the nfcpkt agent in $n stopped answering: $(agent_log "$n")"
}

# Both FIFOs opened read-write: neither open waits for the agent, and a
# dead agent makes the read time out instead of hanging.
agent_start() {
	local n=$1 in=$SCRATCH/agent.$1.in out=$SCRATCH/agent.$1.out fd

	mkfifo "$in" "$out" || bail "mkfifo failed"
	exec {fd}<>"$in"
	AGENT_IN[$n]=$fd
	exec {fd}<>"$out"
	AGENT_OUT[$n]=$fd
	bg "$n" "$SCRATCH/agent.$n.log" agent "$in" "$out"
}

# agent_log NS: what the agent in NS said on stderr.
agent_log() {
	tail -5 "$SCRATCH/agent.$1.log" 2>/dev/null
}

# bg NS OUT ARGS...: nfcpkt.py in the background, its output to file OUT
# (killed at exit); its pid in BGPID.
bg() {
	local n=$1 out=$2

	shift 2
	# nsenter itself, not the ns function: a function would run in a
	# subshell, and killing that at exit would leave python running.
	nsenter --net="/run/netns/$NSP$n" -- \
		"$PYTHON" "${PYFLAGS[@]}" "$NFCPKT" "$@" >"$out" 2>&1 &
	BGPID=$!
	BGPIDS+=($BGPID)
}

# wait_file PATH [SECONDS]: until PATH exists.
wait_file() {
	local i

	for ((i = 0; i < ${2:-20} * 10; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# serve NS PORT [-6]: a TCP echo server, waited for.
serve() {
	local n=$1 port=$2 rdy

	rdy=$SCRATCH/serve.$n.$port.$RANDOM
	shift 2
	bg "$n" /dev/null serve --port "$port" --ready "$rdy" "$@"
	wait_file "$rdy" || bail "TCP server on $n:$port did not start"
}

# pstats NS FILTER: the packet counters of a filter, as
# "LOOKUPS MATCHES DROPPED MARKED"; read them with
#   read -r look match drop mark <<<"$(pstats b blk)"
pstats() {
	cf "$1" -j show "$2" 2>/dev/null | jq -r '.stats.packets |
		"\(.lookups) \(.matches) \(.dropped) \(.marked)"'
}

# fstat NS FILTER JQ-PATH: any field of `cfctl -j show`.
fstat() {
	cf "$1" -j show "$2" 2>/dev/null | jq -r "$3"
}

# mkns NAME...: fresh namespaces (link brings their loopback up).
mkns() {
	local n

	for n in "$@"; do
		ip netns add "$NSP$n" || bail "cannot create namespace $n"
		NAMESPACES+=("$n")
	done
}

# link NS1 IF1 ADDR4/LEN ADDR6/LEN NS2 IF2 ADDR4/LEN ADDR6/LEN: a veth
# pair, up, with static neighbour entries both ways: no ARP or ND to wait
# for, so the first packet of a test is a real one.  One `ip -batch` a
# side: every program started costs a fifth of a second in the VM.
# MAC[NS/IF] is the MAC address of each end.
LINKS=0
declare -A MAC
link() {
	local m1 m2

	LINKS=$((LINKS + 1))
	m1=$(printf '02:00:00:00:%02x:01' $LINKS)
	m2=$(printf '02:00:00:00:%02x:02' $LINKS)
	ip link add "$2" netns "$NSP$1" address "$m1" type veth peer name "$6" \
		netns "$NSP$5" address "$m2" || bail "cannot create veth $2/$6"
	MAC[$1/$2]=$m1
	MAC[$5/$6]=$m2
	link_end "$1" "$2" "$3" "$4" "${7%/*}" "${8%/*}" "$m2"
	link_end "$5" "$6" "$7" "$8" "${3%/*}" "${4%/*}" "$m1"
}

# link_end NS IF ADDR4/LEN ADDR6/LEN PEER4 PEER6 PEERMAC
link_end() {
	ns "$1" ip -batch - <<EOF || bail "cannot set up $2 in $1"
link set lo up
addr add $3 dev $2
addr add $4 dev $2 nodad
link set $2 up
neigh replace $5 lladdr $7 dev $2 nud permanent
neigh replace $6 lladdr $7 dev $2 nud permanent
EOF
}

# A router: client c, router r (forwarding both families), server s,
# c -- r -- s; C4, R4C, R4S, S4 and C6, R6C, R6S, S6 their addresses.
C4=10.1.0.2 R4C=10.1.0.1 R4S=10.2.0.1 S4=10.2.0.2
C6=fd01::2 R6C=fd01::1 R6S=fd02::1 S6=fd02::2
topo_router() {
	mkns c r s
	link c vc $C4/24 $C6/64 r rc $R4C/24 $R6C/64
	link r rs $R4S/24 $R6S/64 s vs $S4/24 $S6/64
	route_via c $R4C $R6C
	route_via s $R4S $R6S
	ns r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 ||
		bail "cannot enable forwarding"
}

# Two hosts: A (10.0.0.1, fd00::1) and B (10.0.0.2, fd00::2).
A4=10.0.0.1
B4=10.0.0.2
A6=fd00::1
B6=fd00::2
topo_pair() {
	mkns a b
	link a va $A4/24 $A6/64 b vb $B4/24 $B6/64
}

# nft_load NS: load the nftables ruleset on stdin into NS (one nft run:
# each costs a quarter of a second in the VM).
nft_load() {
	ns "$1" nft -f - || bail "nft -f failed in $1"
}

# nft_listed_other NS [NFT...]: table inet t in NS counts, at prerouting,
# the datagrams of the listed flow A4:4001 -> 5001 ("listed") and of
# another, A4:4002 -> 5001 ("other"), which the fault tests send; NFT,
# more lines of nftables, go into the table too.
nft_listed_other() {
	local ns=$1

	shift
	nft_load "$ns" <<EOF
table inet t {
	counter listed {}
	counter other {}
	chain pre {
		type filter hook prerouting priority 0;
		ip saddr $A4 udp sport 4001 udp dport 5001 counter name listed
		ip saddr $A4 udp sport 4002 udp dport 5001 counter name other
	}
$(printf '%s\n' "$@")
}
EOF
}

# counters NS: every named counter of table inet t in NS into CNT[NAME].
declare -A CNT
counters() {
	local name pk

	CNT=()
	while read -r name pk; do
		[ -n "$name" ] && CNT[$name]=$pk
	done <<<"$(ns "$1" nft list table inet t | awk '
		/^[ \t]*counter [^ ]+ \{$/ { name = $2; next }
		name != "" && $1 == "packets" { print name, $2; name = "" }')"
}

# count NS NAME: packets counted by named counter NAME.
count() {
	counters "$1"
	echo "${CNT[$2]:-none}"
}

# route_via NS GW4 GW6: default routes.
route_via() {
	printf 'route add default via %s\nroute add default via %s\n' "$2" "$3" |
		ns "$1" ip -batch - || bail "cannot add routes in $1"
}

# Kernel messages that must never appear while packets are looked up.
oopses() {
	dmesg | grep -E 'BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|refcount_t:|RCU stall|soft lockup'
}
