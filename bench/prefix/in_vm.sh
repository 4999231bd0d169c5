#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Blocklists of prefixes in nf_cuckoo, an ipset hash:net and an nftables
# interval set, run as root in the VM by bench/prefix/run.sh (which builds
# what it needs and writes the lists with gen.py first):
#
#   in_vm.sh --lists DIR --cases "CASE..." [--reps R] [--packets P]
#            [--load-max S] [--contenders "C..."]
#
# Contenders, each in a network namespace of its own, IPv4, the list's
# prefixes matched on the source address at prerouting, priority raw
# (-300), action drop:
#   none        no hook (the baseline of the per-packet figures)
#   cuckoo-f12  an nf_cuckoo filter keyed on src, fingerprint 12, capacity
#               the list's length (cuckoo-f16: fingerprint 16)
#   cuckoo-ss12 the same, fingerprint 12, semi-sorted buckets: f = 12's
#               false positives in 11 bits a slot
#   ipset       an ipset hash:net and an iptables rule in the raw table
#   nft         an nftables set of flags interval and a rule
# For each case (DIR/CASE, see gen.py):
# 0. Warm-up, once: each contender loads the list DIR/warm in a namespace
#    that is then deleted, so that modules and caches are in place.
# 1. Load: each contender in turn is created empty, then its bulk path
#    timed on the list (cfctl add -f on the list as published, ipset
#    restore, nft -f), at most --load-max seconds (a load cut short takes
#    no part in the packets), timed from the tool's start, not the
#    wrapper's (nst); kernel memory before and after as bench/nf
#    reads it (bench/guest.sh), and what the tool says it holds.
# 2. Packets: R rounds; in each, for 0% (DIR/CASE/miss.bin: addresses in
#    no prefix) and 100% (hit.bin: an address in a prefix), the addresses
#    go to nfcf_hookbench's table and every loaded contender (the order
#    rotating from round to round) runs P packets of them through its
#    prerouting hooks (bench/hook/nfcf_hookbench.c).
# Contenders not loaded, or cut short, are said so in "error" records.
# Results: one line "PB-JSON {...}" per measurement; progress as "# ...".

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# The modules to load (bench/vmrun.sh: bench_module).
KO_DIR=${NFB_KO_DIR:-$REPO}
CFCTL=$REPO/tools/cfctl/cfctl
HB=/sys/kernel/debug/nfcf_hookbench
LISTS=
CASES=drop
REPS=3
PACKETS=262144
LOAD_MAX=900
CONTENDERS="none cuckoo-f12 cuckoo-f16 cuckoo-ss12 ipset nft"
while [ $# -gt 0 ]; do
	case $1 in
	--lists) LISTS=$2; shift 2 ;;
	--cases) CASES=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--packets) PACKETS=$2; shift 2 ;;
	--load-max) LOAD_MAX=$2; shift 2 ;;
	--contenders) CONTENDERS="none ${2//none/}"; shift 2 ;;
	*) echo "in_vm.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -d "$LISTS" ] || { echo "in_vm.sh: no --lists directory" >&2; exit 2; }
TAG=PB-JSON
# shellcheck source=bench/guest.sh
. "$REPO/bench/guest.sh"

ns() { local c=$1; shift; nsenter --net="/run/netns/pb-$c" -- "$@"; }
# nst C CMD...: as ns, killed after --load-max seconds (status 124).  The
# command's own time, from its fork to its exit, goes to $W/load.us in
# microseconds: in the emulated VM the wrapper's two execs (timeout,
# nsenter) take 0.15-0.25 s, as long as a tool takes to load 1,000
# prefixes, and would hide the difference between the tools.
nst() {
	local c=$1

	shift
	# shellcheck disable=SC2016  # the inner shell expands them
	timeout --kill-after=10 "$LOAD_MAX" nsenter --net="/run/netns/pb-$c" -- \
		bash -c 't=${EPOCHREALTIME/./}; "$@"; rc=$?
			echo $((${EPOCHREALTIME/./} - t)) >"$0"; exit $rc' \
		"$W/load.us" "$@"
}

# run_c C OP [ARG]: the contenders' commands: create N, load DIR, probe
# (sets ENTRIES, TOOL_BYTES and COMBOS, null where the tool cannot say).
run_c() {
	local c=$1 op=$2 arg=${3:-}

	case $c:$op in
	cuckoo-f*:create)
		ns "$c" "$CFCTL" create pfx family ip key src capacity "$arg" \
			fingerprint "${c#cuckoo-f}" hook prerouting priority raw \
			action drop ;;
	cuckoo-ss*:create)
		ns "$c" "$CFCTL" create pfx family ip key src capacity "$arg" \
			fingerprint "${c#cuckoo-ss}" semisort hook prerouting \
			priority raw action drop ;;
	cuckoo-*:load) nst "$c" "$CFCTL" add -f "$arg/list.txt" pfx ;;
	cuckoo-*:probe)
		read -r ENTRIES TOOL_BYTES COMBOS <<<"$(ns "$c" "$CFCTL" -j show pfx |
			jq -r '"\(.stats.items) \(.stats.bytes) \(.prefixes | length)"')" ;;
	ipset:create)
		ns "$c" ipset create pfx hash:net family inet hashsize "$arg" \
			maxelem "$arg" &&
			ns "$c" iptables -t raw -A PREROUTING \
				-m set --match-set pfx src -j DROP ;;
	ipset:load) nst "$c" ipset restore -f "$arg/ipset.txt" ;;
	ipset:probe)
		COMBOS=null
		read -r ENTRIES TOOL_BYTES <<<"$(ns "$c" ipset list -t pfx | awk '
			/^Number of entries:/ { n = $4 }
			/^Size in memory:/ { m = $4 }
			END { print n, m }')" ;;
	nft:create)
		ns "$c" nft -f - <<-EOF
		table ip hb {
			set nets {
				type ipv4_addr
				flags interval
			}
			chain pre {
				type filter hook prerouting priority raw;
				ip saddr @nets drop
			}
		}
		EOF
		;;
	nft:load) nst "$c" nft -f "$arg/nft.txt" ;;
	nft:probe)
		# nft can count a set's elements only by listing them, minutes
		# for a million intervals: the packets at 100% check them.
		ENTRIES=null TOOL_BYTES=null COMBOS=null ;;
	none:*) ;;
	*) echo "in_vm.sh: $c: no $op" >&2; return 1 ;;
	esac
}

# warm: each contender's modules loaded and caches filled, untimed.
warm() {
	local c

	for c in $CONTENDERS; do
		[ "$c" = none ] && continue
		ip netns add "pb-$c" && ns "$c" ip link set lo up || exit 1
		{ run_c "$c" create 1000 && run_c "$c" load "$LISTS/warm"; } \
			>/dev/null 2>&1 || say "warm-up load of $c failed"
		ip netns del "pb-$c"
	done
	sleep 2
}

# load CASE C: C created in a new namespace, loaded with CASE, measured.
declare -A READY
load() {
	local k=$1 c=$2 d=$LISTS/$1 n t0 t1 rc a0 s0 v0 p0 a1 s1 v1 p1 tool

	n=$(jq .prefixes "$d/meta.json")
	ip netns add "pb-$c" && ns "$c" ip link set lo up || exit 1
	[ "$c" = none ] && { READY[$c]=1; return; }
	settle
	read -r a0 s0 v0 p0 <<<"$(meminfo)"
	if ! run_c "$c" create "$n" >"$W/create.out" 2>&1; then
		sed 's/^/#   /' "$W/create.out" | tail -3
		emit type=error contender="$c" case="$k" what=create
		return
	fi
	rm -f "$W/load.us"
	t0=$(us)
	run_c "$c" load "$d" >"$W/load.out" 2>&1
	rc=$?
	t1=$(us)
	tool=$(cat "$W/load.us" 2>/dev/null) || tool=null
	[ $rc = 0 ] || tail -3 "$W/load.out" | sed 's/^/#   /'
	settle
	read -r a1 s1 v1 p1 <<<"$(meminfo)"
	run_c "$c" probe "$d"
	[ $rc = 0 ] && READY[$c]=1
	say "$k: $c loaded $n prefixes in $(secs $((t1 - t0))) s, status $rc, entries $ENTRIES, MemAvailable $((a1 - a0)) kB"
	emit type=load contender="$c" case="$k" prefixes="$n" us=$((t1 - t0)) \
		tool_us="$tool" \
		rc=$rc timed_out="$([ $rc = 124 ] || [ $rc = 137 ] && echo true || echo false)" \
		limit_s="$LOAD_MAX" entries="${ENTRIES:-null}" \
		tool_bytes="${TOOL_BYTES:-null}" combos="${COMBOS:-null}" \
		avail_kb="$((a0 - a1))" slab_kb="$((s1 - s0))" \
		vmalloc_kb="$((v1 - v0))" percpu_kb="$((p1 - p0))"
}

# run CASE C MATCH REP: one nfcf_hookbench run of the table written.
run() {
	local k=$1 c=$2 m=$3 r=$4 out

	if ! out=$(ns "$c" sh -c "echo 4 1 $m $PACKETS src >$HB/run && cat $HB/run" 2>&1); then
		echo "# run $k $c $m failed: $out"
		emit type=error contender="$c" case="$k" what=run match="$m"
		return
	fi
	echo "$TAG {\"type\":\"run\",\"case\":\"$k\",\"contender\":\"$c\",\"rep\":$r,$(
		echo "$out" | sed 's/\([a-z_]*\)=\([-0-9]*\)/"\1":\2/g; s/ /,/g')}"
}

# bench CASE: load every contender, time their hooks, unload them.
bench() {
	local k=$1 c m r t0 ready=()

	emit type=case case="$k" prefixes="$(jq .prefixes "$LISTS/$k/meta.json")" \
		lengths="$(jq .lengths "$LISTS/$k/meta.json")" \
		by_length="$(jq -c .by_length "$LISTS/$k/meta.json")"
	READY=()
	for c in $CONTENDERS; do
		load "$k" "$c"
		[ -n "${READY[$c]:-}" ] && ready+=("$c")
	done
	set -- "${ready[@]}"
	for ((r = 0; r <= REPS; r++)); do	# round 0: the warm-up, not kept
		for m in 0 100; do
			cat "$LISTS/$k/$([ $m = 0 ] && echo miss || echo hit).bin" \
				>"$HB/src" || exit 1
			for c in "$@"; do
				if [ $r = 0 ]; then
					ns "$c" sh -c "echo 4 1 $m 65536 src >$HB/run"
				else
					run "$k" "$c" "$m" "$r"
				fi
			done
		done
		set -- "${@:2}" "$1"	# rotate the order
		[ $r = 0 ] || say "$k: round $r done"
	done
	t0=$SECONDS
	for c in $CONTENDERS; do
		ip netns del "pb-$c"
	done
	sleep 2		# let the namespaces go
	say "$k: unloaded in $((SECONDS - t0)) s"
}

# --- start ---
W=/tmp/pb
mkdir -p "$W"
insmod "$KO_DIR/nf_cuckoo.ko" || { echo "in_vm.sh: cannot load nf_cuckoo.ko" >&2; exit 1; }
insmod "$REPO/bench/hook/nfcf_hookbench.ko" ||
	{ echo "in_vm.sh: cannot load nfcf_hookbench.ko" >&2; exit 1; }
emit type=env kernel="$(uname -r)" cpus="$(nproc)" cases="$CASES" reps="$REPS" \
	packets="$PACKETS" load_max_s="$LOAD_MAX" nft="$(nft -v)" \
	ipset="$(ipset -v | head -n1)" iptables="$(iptables -V)" \
	cfctl="$("$CFCTL" -V 2>&1 | head -n1)" contenders="$CONTENDERS"
warm
for k in $CASES; do
	bench "$k"
done
end_record
