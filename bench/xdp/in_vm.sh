#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/xdp's run, as root in the VM (bench/xdp/run.sh boots it):
#
#   in_vm.sh --ko KO --hookmod KO [--flows N] [--families "4 6"]
#            [--repeat R] [--rounds K] [--loads L] [--samples S]
#            [--hook-packets P] [--traffic T] [--xf-calls C]
#            [--e2e-rounds E] [--e2e-seconds S] [--e2e-flows F]
#            [--e2e-families "4 6"]
#
# Flows: bench/hook's (nfcf_hookbench.c, xdpbench.c): N UDP flows a
# family.  Contenders, all loaded at once with the same N flows:
#   cuckoo     nf_cuckoo_xdp (tools/cfctl/nf_cuckoo.bpf.o) asking filters
#              xb4 / xb6 (fingerprint 12, hook none), restored from images
#              cfctl build made
#   hash       peers.bpf.o's xb_hash over BPF_MAP_TYPE_HASH maps
#   bloom      peers.bpf.o's xb_bloom over BPF_MAP_TYPE_BLOOM_FILTER maps
#   parse      the parser alone (the baseline)
#   xdpfilter  xdp-filter (xdp-tools), loaded on a veth in skb mode with
#              its default policy allow and features ipv4,ipv6, the flows'
#              source addresses on its list ("xdp-filter ip -m src"): it
#              drops every packet from a listed address, whatever the
#              protocol, ports and destination; what BPF_PROG_TEST_RUN
#              runs is the program attached to the device (libxdp's
#              dispatcher, which calls xdp-filter's through freplace).
#              Its maps hold at most their max_entries addresses: fewer
#              than N, it holds the first max_entries flows.
#   hook       nf_cuckoo's prerouting hook (filters hk4 / hk6, the same
#              flows, fingerprint 12, priority raw, action drop) in
#              namespace xb-hook, timed as bench/hook times it
#              (nfcf_hookbench.ko, nf_hook_slow() over prebuilt skbs of T
#              flows), against no hook in namespace xb-none.
# Then the end-to-end drop rate of the XDP program against the hook
# (e2e.sh: F flows, E rounds of S seconds, the families of
# --e2e-families, else --families; E 0: not measured).
# Load times: cuckoo by cfctl restore of the image, and by cfctl create +
# add -f; hash by bpf_map_update_batch, bloom by an update a flow (it has
# no batch), in xdpbench; each L times.  Memory: cfctl show's "Size in
# memory" for cuckoo; the memory cgroup's growth for the maps (xdpbench).
# Output: lines "XB-JSON {...}" (xdpbench.c describes its records; here
# env, cuckoo's load and mem, hook, end), progress as "# ...".

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CFCTL=$REPO/tools/cfctl/cfctl
OBJ=$REPO/tools/cfctl/nf_cuckoo.bpf.o
RUNF=/sys/kernel/debug/nfcf_hookbench/run
KO=
HOOKMOD=
N=20000
FAMILIES="4 6"
REPEAT=1000000
ROUNDS=5
LOADS=1
SAMPLES=1000
HOOKP=524288
TRAFFIC=65536
XFCALLS=50
E2E_ROUNDS=0
E2E_SECS=5
E2E_FLOWS=1000
E2E_FAMILIES=
while [ $# -gt 0 ]; do
	case $1 in
	--ko) KO=$2; shift 2 ;;
	--hookmod) HOOKMOD=$2; shift 2 ;;
	--flows) N=$2; shift 2 ;;
	--families) FAMILIES=$2; shift 2 ;;
	--repeat) REPEAT=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--loads) LOADS=$2; shift 2 ;;
	--samples) SAMPLES=$2; shift 2 ;;
	--hook-packets) HOOKP=$2; shift 2 ;;
	--traffic) TRAFFIC=$2; shift 2 ;;
	--xf-calls) XFCALLS=$2; shift 2 ;;
	--e2e-rounds) E2E_ROUNDS=$2; shift 2 ;;
	--e2e-seconds) E2E_SECS=$2; shift 2 ;;
	--e2e-flows) E2E_FLOWS=$2; shift 2 ;;
	--e2e-families) E2E_FAMILIES=$2; shift 2 ;;
	*) echo "in_vm.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
W=/tmp/xb
mkdir -p "$W"
say() { echo "# [$SECONDS s] $*"; }
now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }
ns() { local n=$1; shift; nsenter --net="/run/netns/$n" -- "$@"; }
fam_name() { [ "$1" = 6 ] && echo ip6 || echo ip; }

insmod "$KO" || { echo "in_vm.sh: cannot load $KO" >&2; exit 1; }
[ -d /sys/kernel/btf/nf_cuckoo ] || [ -f /sys/kernel/btf/nf_cuckoo ] ||
	echo "# in_vm.sh: no BTF for nf_cuckoo: the kfuncs will not load"
echo "XB-JSON {\"type\":\"env\",\"kernel\":\"$(uname -r)\",\"cpus\":$(nproc),\"flows\":$N,\"families\":\"$FAMILIES\",\"repeat\":$REPEAT,\"rounds\":$ROUNDS,\"loads\":$LOADS,\"samples\":$SAMPLES,\"hook_packets\":$HOOKP,\"traffic\":$TRAFFIC,\"xdp_filter\":\"$(xdp-filter load --version 2>&1 | head -n1)\"}"

# The flows, as add -f reads them.
say "generating $N flows"
awk -v n="$N" -v d="$W" 'BEGIN {
	for (k = 0; k < n; k++) {
		sp = 1024 + k % 60000
		printf "udp 11.%d.%d.%d:%d 10.0.0.2:9000\n", int(k / 65536),
			int(k / 256) % 256, k % 256, sp > d "/f4.txt"
		printf "udp [2001:db8:1::%x:%x]:%d [2001:db8::2]:9000\n",
			int(k / 65536), k % 65536, sp > d "/f6.txt"
	}
}'
for f in $FAMILIES; do
	t0=$(now)
	"$CFCTL" -q build -f "$W/f$f.txt" -o "$W/xb$f.img" "xb$f" \
		family "$(fam_name "$f")" capacity "$N" fingerprint 12 \
		hook none action drop &&
		"$CFCTL" -q build -f "$W/f$f.txt" -o "$W/hk$f.img" "hk$f" \
			family "$(fam_name "$f")" capacity "$N" fingerprint 12 \
			hook prerouting priority raw action drop ||
		{ echo "in_vm.sh: cfctl build failed" >&2; exit 1; }
	say "IPv$f: two images built in $(dt "$t0" "$(now)") s"
done

# (a) load times: add -f, then restore of the image, L times each; the
# last restore stays.
for f in $FAMILIES; do
	for ((r = 1; r <= LOADS; r++)); do
		"$CFCTL" create "xb$f" family "$(fam_name "$f")" capacity "$N" \
			fingerprint 12 hook none action drop || exit 1
		t0=$(now)
		"$CFCTL" -q add -f "$W/f$f.txt" "xb$f" || { echo "in_vm.sh: add -f failed" >&2; exit 1; }
		t1=$(now)
		"$CFCTL" destroy "xb$f"
		echo "XB-JSON {\"type\":\"load\",\"contender\":\"cuckoo-add\",\"family\":$f,\"flows\":$N,\"rep\":$r,\"s\":$(dt "$t0" "$t1")}"
		t0=$(now)
		"$CFCTL" -q restore -f "$W/xb$f.img" || { echo "in_vm.sh: restore failed" >&2; exit 1; }
		t1=$(now)
		[ "$r" -lt "$LOADS" ] && "$CFCTL" destroy "xb$f"
		echo "XB-JSON {\"type\":\"load\",\"contender\":\"cuckoo\",\"family\":$f,\"flows\":$N,\"rep\":$r,\"s\":$(dt "$t0" "$t1")}"
	done
	"$CFCTL" show "xb$f" >"$W/show$f"
	id=$(sed -n 's/^Id: //p' "$W/show$f")
	bytes=$(sed -n 's/^Size in memory: \([0-9]*\) bytes.*/\1/p' "$W/show$f")
	eval "ID$f=\$id"
	echo "XB-JSON {\"type\":\"mem\",\"contender\":\"cuckoo\",\"family\":$f,\"flows\":$N,\"bytes\":${bytes:-0},\"id\":${id:-0}}"
	say "IPv$f: filter xb$f id $id, $bytes bytes"
done

# xdp-filter on a veth, in skb mode.
XF=()
ip link add xbv0 type veth peer name xbv1 && ip link set xbv0 up && ip link set xbv1 up
if xdp-filter load -m skb -f ipv4,ipv6 xbv0 >"$W/xf.log" 2>&1; then
	xfid=$(ip -d link show xbv0 | grep -oE 'prog/xdp id [0-9]+' | awk '{ print $3; exit }')
	t0=$(now)
	nx=0
	for f in $FAMILIES; do
		# Flow 0 and the next ones by the tool itself, one call each.
		for ((k = 0; k < XFCALLS && k < N; k++)); do
			if [ "$f" = 4 ]; then a=11.0.$((k / 256)).$((k % 256)); else a=2001:db8:1::0:$(printf %x "$k"); fi
			xdp-filter ip -m src "$a" >>"$W/xf.log" 2>&1 || { echo "# xdp-filter ip $a failed"; break; }
			nx=$((nx + 1))
		done
	done
	t1=$(now)
	echo "XB-JSON {\"type\":\"load\",\"contender\":\"xdpfilter-tool\",\"calls\":$nx,\"s\":$(dt "$t0" "$t1")}"
	pins=$(ls /sys/fs/bpf/xdp-filter/ 2>/dev/null | tr '\n' ' ')
	say "xdp-filter: program id $xfid, pinned maps: $pins"
	XF=(--xf-prog "$xfid" --xf-map4 /sys/fs/bpf/xdp-filter/filter_ipv4 --xf-map6 /sys/fs/bpf/xdp-filter/filter_ipv6)
else
	sed 's/^/#   /' "$W/xf.log" | tail -5
	echo "# xdp-filter load failed: not measured"
fi

# The memory cgroup xdpbench runs in, for its maps' memory.
cg=/sys/fs/cgroup/xb
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p "$cg" 2>/dev/null
[ -f "$cg/memory.current" ] || echo "# no memory cgroup: the maps' memory not measured"

say "xdpbench"
# shellcheck disable=SC2016
sh -c 'echo $$ >"$1/cgroup.procs" 2>/dev/null; shift; exec "$@"' sh "$cg" \
	"$HERE/xdpbench" --flows "$N" --id4 "${ID4:-0}" --id6 "${ID6:-0}" \
	--obj "$OBJ" --peers "$HERE/peers.bpf.o" --families "$FAMILIES" \
	--repeat "$REPEAT" --rounds "$ROUNDS" --loads "$LOADS" \
	--samples "$SAMPLES" "${XF[@]}" 2>&1 || echo "# xdpbench failed: status $?"
for f in $FAMILIES; do
	"$CFCTL" show "xb$f" | grep -iE 'xdp|lookups' | head -3 | sed "s/^/# xb$f: /"
done

# (e) the hook, bench/hook's way.
say "the hook"
if insmod "$HOOKMOD" "traffic=$TRAFFIC"; then
	for c in none hook; do
		ip netns add "xb-$c" && ns "xb-$c" ip link set lo up
	done
	for f in $FAMILIES; do
		ns xb-hook "$CFCTL" -q restore -f "$W/hk$f.img" || echo "# restore of hk$f failed"
		for c in none hook; do		# warm-up
			ns "xb-$c" sh -c "echo $f $N 0 $TRAFFIC >$RUNF"
		done
	done
	set -- none hook
	for ((r = 1; r <= ROUNDS; r++)); do
		for f in $FAMILIES; do
			for m in 0 100; do
				for c in "$@"; do
					if out=$(ns "xb-$c" sh -c "echo $f $N $m $HOOKP >$RUNF && cat $RUNF" 2>&1); then
						echo "XB-JSON {\"type\":\"hook\",\"contender\":\"$c\",\"rep\":$r,$(
							echo "$out" | sed 's/\([a-z_]*\)=\([-0-9]*\)/"\1":\2/g; s/ /,/g')}"
					else
						echo "# hook run $c $f $m failed: $out"
					fi
				done
			done
		done
		set -- "${@:2}" "$1"
		say "hook round $r done"
	done
else
	echo "# cannot load $HOOKMOD: the hook not measured"
fi
if [ "$E2E_ROUNDS" -gt 0 ]; then
	say "end to end"
	"$HERE/e2e.sh" --cfctl "$CFCTL" --flow-dir "$W" --flows "$E2E_FLOWS" \
		--families "${E2E_FAMILIES:-$FAMILIES}" \
		--rounds "$E2E_ROUNDS" --seconds "$E2E_SECS" || echo "# e2e.sh failed: status $?"
fi
oops='BUG:|WARNING:|Oops|general protection|refcount_t:|soft lockup|RCU stall'
dmesg | grep -E "$oops" | head -5 | sed 's/^/# dmesg: /'
echo "XB-JSON {\"type\":\"end\",\"kernel_warnings\":$(dmesg | grep -cE "$oops")}"
