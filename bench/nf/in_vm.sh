#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nftables/ipset comparison, run as root in the VM by bench/nf/run.sh
# (which builds what it needs, boots the VM and reads the results):
#
#   in_vm.sh [--flows "N..."] [--reps R] [--rounds R] [--slice MS]
#            [--warm MS] [--load-max S] [--contenders "C..."]
#
# Contenders, each in its own pair of namespaces a -> b joined by a veth,
# everything on b's prerouting hook at priority raw (-300), IPv4:
#   none        no filter (the baseline)
#   cuckoo-f12  an nf_cuckoo filter, fingerprint 12 (cuckoo-f16: 16)
#   cuckoo-ss13 an nf_cuckoo filter of semi-sorted buckets, fingerprint 13
#               (what `fpr 0.1%` picks)
#   nft         an nftables set of concatenated 5-tuples and a rule
#   ipset       an ipset hash:ip,port,ip (source, source port, destination:
#               it holds one port) and an iptables rule
#
# 1. Load: for each N of --flows (the last one stays loaded), R times, each
#    contender in turn: create it empty, then time its bulk path (cfctl
#    restore, nft -f, ipset restore) on the same N flows, at most --load-max
#    seconds (a load cut short is reported as such and not repeated); read
#    MemAvailable (plus the free pages on per-CPU lists), Slab, VmallocUsed
#    and Percpu before and after (caches dropped and slabs shrunk first,
#    until MemAvailable is still) and the tool's own figure.  One untimed
#    load of 2000 other flows comes first.
# 2. Packets: the filters drop on a match and the traffic uses flows that
#    are not loaded (0% match); then they mark (0x1/0x1) and the traffic
#    uses loaded flows (100% match).  nfb_udp sends from a to a UDP socket
#    in b, the contenders taking turns in slices of --slice ms, --rounds
#    times (see nfb_udp.c), which also takes the median time of b's
#    ip_rcv() from the function_graph tracer.  nftables counters at b's
#    input (priority 100), of all packets and of marked ones, and the
#    filter's own counters are read before and after to check that every
#    packet was counted (and marked).
#
# Results: one line "NFB-JSON {...}" per measurement on stdout (raw
# figures: run.sh's report.py derives rates and ratios); progress as "# ...".

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# The modules to load (bench/vmrun.sh: bench_module).
KO_DIR=${NFB_KO_DIR:-$REPO}
CFCTL=$REPO/tools/cfctl/cfctl
FLOWGEN=$HERE/nfb_flows
UDP=$HERE/nfb_udp
IPT=${NFB_IPTABLES:-iptables}

SIZES="100000"
REPS=1
ROUNDS=2
SLICE=500
WARM=300
LOAD_MAX=900
CONTENDERS=
while [ $# -gt 0 ]; do
	case $1 in
	--flows) SIZES=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--slice) SLICE=$2; shift 2 ;;
	--warm) WARM=$2; shift 2 ;;
	--load-max) LOAD_MAX=$2; shift 2 ;;
	--contenders) CONTENDERS="none ${2//none/}"; shift 2 ;;
	*) echo "in_vm.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
: "${CONTENDERS:=none cuckoo-f12 cuckoo-f16 cuckoo-ss13 nft ipset}"
A=10.0.0.1
B=10.0.0.2
MAC_B=02:00:00:00:00:02
DPORT=9000
SPORT_MATCH=1024	# loaded flows use even ports from here, the others odd
KEY='ip saddr . ip protocol . udp sport . ip daddr . udp dport'
W=/tmp/nfb
mkdir -p "$W"
TAG=NFB-JSON
# shellcheck source=bench/guest.sh
. "$REPO/bench/guest.sh"

nsa() { local c=$1; shift; nsenter --net="/run/netns/nfb-a-$c" -- "$@"; }
nsb() { local c=$1; shift; nsenter --net="/run/netns/nfb-b-$c" -- "$@"; }
# nsbt C CMD...: as nsb, killed after --load-max seconds (status 124).
nsbt() {
	local c=$1

	shift
	timeout --kill-after=10 "$LOAD_MAX" \
		nsenter --net="/run/netns/nfb-b-$c" -- "$@"
}
# The contenders' own commands: create N, load DIR, probe DIR, action
# drop|mark, destroy.  probe sets ENTRIES and TOOL_BYTES (null: none).
run_c() {
	local c=$1 op=$2 arg=${3:-}

	case $c:$op in
	cuckoo-f*:create)
		nsb "$c" "$CFCTL" create nfb family ip capacity "$arg" \
			fingerprint "${c#cuckoo-f}" ;;
	cuckoo-ss*:create)
		nsb "$c" "$CFCTL" create nfb family ip capacity "$arg" \
			fingerprint "${c#cuckoo-ss}" semisort ;;
	cuckoo-*:load) nsbt "$c" "$CFCTL" -q restore -f "$arg/cf.txt" ;;
	cuckoo-*:probe)
		read -r ENTRIES TOOL_BYTES <<<"$(nsb "$c" "$CFCTL" -j show nfb |
			jq -r '"\(.stats.items) \(.stats.bytes)"')" ;;
	cuckoo-*:action)
		[ "$arg" = mark ] && arg="mark 0x1/0x1"
		# shellcheck disable=SC2086
		nsb "$c" "$CFCTL" set nfb action $arg ;;
	cuckoo-*:destroy) nsb "$c" "$CFCTL" destroy nfb ;;
	nft:create)
		nsb "$c" nft -f - <<-EOF
		table ip nfb {
			set flows {
				type ipv4_addr . inet_proto . inet_service . ipv4_addr . inet_service
				size $arg
			}
			chain pre {
				type filter hook prerouting priority raw;
				$KEY @flows drop
			}
		}
		EOF
		;;
	nft:load) nsbt "$c" nft -f "$arg/nft.txt" ;;
	nft:probe)
		# Listing a million elements takes minutes: ask for the first
		# and the last flow of the file instead.
		ENTRIES=null
		TOOL_BYTES=null
		nsb "$c" nft get element ip nfb flows "{ $(probe_nft "$arg") }" \
			>/dev/null 2>&1 && ENTRIES=$(wc -l <"$arg/cf.txt") ;;
	nft:action)
		[ "$arg" = mark ] && arg="meta mark set meta mark or 0x1"
		printf 'flush chain ip nfb pre\nadd rule ip nfb pre %s @flows %s\n' \
			"$KEY" "$arg" | nsb "$c" nft -f - ;;
	nft:destroy) nsb "$c" nft delete table ip nfb ;;
	ipset:create)
		nsb "$c" ipset create nfb hash:ip,port,ip hashsize "$arg" \
			maxelem "$arg" && run_c "$c" action drop ;;
	ipset:load) nsbt "$c" ipset restore -f "$arg/ipset.txt" ;;
	ipset:probe)
		read -r ENTRIES TOOL_BYTES <<<"$(nsb "$c" ipset list -t nfb | awk '
			/^Number of entries:/ { n = $4 }
			/^Size in memory:/ { m = $4 }
			END { print n, m }')" ;;
	ipset:action)
		[ "$arg" = mark ] && arg="MARK --or-mark 0x1" || arg=DROP
		# shellcheck disable=SC2086
		nsb "$c" "$IPT" -t raw -F PREROUTING &&
			nsb "$c" "$IPT" -t raw -A PREROUTING \
				-m set --match-set nfb src,src,dst -j $arg ;;
	ipset:destroy)
		nsb "$c" "$IPT" -t raw -F PREROUTING && nsb "$c" ipset destroy nfb ;;
	none:*) ;;
	*) echo "in_vm.sh: $c: no $op" >&2; return 1 ;;
	esac
}

# probe_nft DIR: the first and the last element of DIR/nft.txt.
probe_nft() {
	awk 'NR == 1 { sub(/^[^{]*[{] /, ""); split($0, e, ", "); first = e[1] }
		END { sub(/ [}]$/, ""); n = split($0, e, ", "); print first ", " e[n] }' \
		"$1/nft.txt"
}

# nft_counts C: "RX MARKED" from b's counters.
nft_counts() {
	nsb "$1" nft list table inet nfbc | awk '
		$1 == "counter" { n = $2 }
		$1 == "packets" { v[n] = $2 }
		END { print v["rx"] + 0, v["marked"] + 0 }'
}

# cf_counts C: "MATCHES DROPPED MARKED" of an nf_cuckoo filter, else 0s.
cf_counts() {
	case $1 in
	cuckoo-*) nsb "$1" "$CFCTL" -j show nfb |
		jq -r '.stats.packets | "\(.matches) \(.dropped) \(.marked)"' ;;
	*) echo 0 0 0 ;;
	esac
}

setup_pair() {
	local c=$1

	ip netns add "nfb-a-$c" && ip netns add "nfb-b-$c" &&
	ip link add va netns "nfb-a-$c" type veth peer name vb \
		netns "nfb-b-$c" address "$MAC_B" &&
	nsa "$c" ip -batch - <<-EOF &&
	link set lo up
	addr add $A/24 dev va
	link set va up
	EOF
	nsb "$c" ip -batch - <<-EOF &&
	link set lo up
	addr add $B/24 dev vb
	link set vb up
	EOF
	nsb "$c" nft -f - <<-EOF
	table inet nfbc {
		counter rx {}
		counter marked {}
		chain in {
			type filter hook input priority 100;
			udp dport $DPORT counter name rx
			udp dport $DPORT meta mark and 0x1 == 0x1 counter name marked
		}
	}
	EOF
}

# traffic N: how many flows of N the traffic uses (the last ones).
traffic() {
	local t=$(($1 / 4))

	echo $((t > 30000 ? 30000 : t))
}

# flows N: the directory of N flows (generated once).
flows() {
	local d=$W/flows-$1

	if [ ! -d "$d" ] && ! { mkdir -p "$d" && "$FLOWGEN" -n "$1" \
		-t "$(traffic "$1")" -a "$A" -b "$B" -p "$DPORT" \
		-P "$SPORT_MATCH" -s 1 -o "$d"; }; then
		echo "in_vm.sh: nfb_flows failed" >&2
		exit 1
	fi
	echo "$d"
}

# load C N REP: one timed load, measured.
declare -A DNF LOADED
load() {
	local c=$1 n=$2 r=$3 d t0 t1 rc a0 s0 v0 p0 a1 s1 v1 p1

	d=$(flows "$n")
	settle
	read -r a0 s0 v0 p0 <<<"$(meminfo)"
	run_c "$c" create "$n" || { emit type=error contender="$c" what=create flows="$n"; return; }
	t0=$(us)
	run_c "$c" load "$d" >"$W/load.out" 2>&1
	rc=$?
	t1=$(us)
	[ $rc = 0 ] || tail -3 "$W/load.out" | sed 's/^/#   /'
	settle
	read -r a1 s1 v1 p1 <<<"$(meminfo)"
	run_c "$c" probe "$d"
	LOADED[$c]=$ENTRIES
	[ $rc = 124 ] || [ $rc = 137 ] && DNF[$c]=$LOAD_MAX
	say "load $c $n #$r: $(secs $((t1 - t0))) s, status $rc, entries $ENTRIES, MemAvailable -$((a0 - a1)) kB"
	emit type=load contender="$c" flows="$n" rep="$r" us=$((t1 - t0)) rc=$rc \
		timed_out="$([ -n "${DNF[$c]:-}" ] && echo true || echo false)" \
		limit_s="$LOAD_MAX" entries="${ENTRIES:-null}" tool_bytes="${TOOL_BYTES:-null}" \
		avail_kb="$((a0 - a1))" slab_kb="$((s1 - s0))" vmalloc_kb="$((v1 - v0))" \
		percpu_kb="$((p1 - p0))"
}

# pkt MATCH: the packet test at MATCH% (0 or 100) for every contender,
# interleaved by nfb_udp; then b's counters, and the filter's, against it.
pkt() {
	local match=$1 c args=()
	declare -A before

	for c in $CONTENDERS; do
		before[$c]="$(nft_counts "$c") $(cf_counts "$c")"
		args+=("$c=/run/netns/nfb-a-$c,/run/netns/nfb-b-$c")
	done
	say "packets, $match% matching: $ROUNDS rounds of $SLICE ms a contender"
	"$UDP" -m "$MAC_B" -a "$A" -b "$B" -p "$DPORT" -n "$(traffic "$LAST")" \
		-P $((SPORT_MATCH + (match == 100 ? 0 : 1))) -M "$match" \
		-r "$ROUNDS" -s "$SLICE" -w "$WARM" -T "$TRACEFS" "${args[@]}" ||
		emit type=error what=packets match="$match"
	for c in $CONTENDERS; do
		# shellcheck disable=SC2086,SC2046
		set -- ${before[$c]} $(nft_counts "$c") $(cf_counts "$c")
		emit type=counters contender="$c" match="$match" \
			flows_loaded="${LOADED[$c]:-0}" input=$(($6 - $1)) \
			marked=$(($7 - $2)) cf_matches=$(($8 - $3)) \
			cf_dropped=$(($9 - $4)) cf_marked=$((${10} - $5))
	done
}

# --- start ---
[ -d /sys/module/nf_cuckoo ] || insmod "$KO_DIR/nf_cuckoo.ko" ||
	{ echo "in_vm.sh: cannot load $KO_DIR/nf_cuckoo.ko" >&2; exit 1; }
memtotal=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)
emit type=env kernel="$(uname -r)" guest_cpu="$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" \
	cpus="$(nproc)" mem_kb="$memtotal" nft="$(nft -v)" ipset="$(ipset -v | head -n1)" \
	iptables="$("$IPT" -V)" cfctl="$("$CFCTL" -V 2>&1 | head -n1)" \
	sizes="$SIZES" reps="$REPS" rounds="$ROUNDS" slice_ms="$SLICE" \
	warm_ms="$WARM" load_max_s="$LOAD_MAX"

for c in $CONTENDERS; do
	setup_pair "$c" || { echo "in_vm.sh: cannot set up namespaces for $c" >&2; exit 1; }
done

say "generating the flows: $SIZES and 2000 for warm-up"
warm=$W/warm
mkdir -p "$warm" && "$FLOWGEN" -n 2000 -t 0 -a "$A" -b "$B" -p "$DPORT" \
	-P "$SPORT_MATCH" -s 2 -o "$warm" || exit 1
for n in $SIZES; do flows "$n" >/dev/null; done

for c in $CONTENDERS; do
	[ "$c" = none ] && continue
	{ run_c "$c" create 2000 && run_c "$c" load "$warm" >/dev/null &&
		run_c "$c" destroy; } || say "warm-up load of $c failed"
done

LAST=${SIZES##* }
for n in $SIZES; do
	for ((r = 1; r <= REPS; r++)); do
		for c in $CONTENDERS; do
			[ "$c" = none ] || [ -n "${DNF[$c]:-}" ] && continue
			load "$c" "$n" "$r"
			if [ "$n" != "$LAST" ] || [ "$r" != "$REPS" ]; then
				[ -z "${DNF[$c]:-}" ] && run_c "$c" destroy
			fi
		done
	done
done

# The function_graph tracer on ip_rcv() alone, for nfb_udp -T.
TRACEFS=/sys/kernel/tracing
{ echo 0 >$TRACEFS/tracing_on && echo ip_rcv >$TRACEFS/set_ftrace_filter &&
	echo function_graph >$TRACEFS/current_tracer &&
	echo 16384 >$TRACEFS/buffer_size_kb; } ||
	{ echo "in_vm.sh: cannot set up the function_graph tracer" >&2; exit 1; }
for match in 0 100; do
	for c in $CONTENDERS; do
		run_c "$c" action "$([ $match = 0 ] && echo drop || echo mark)" ||
			emit type=error contender="$c" what=action match="$match"
	done
	pkt "$match"
done
end_record
