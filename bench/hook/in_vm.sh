#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-kernel hook benchmark, run as root in the VM by bench/hook/run.sh
# (which builds nf_cuckoo.ko, cfctl and nfcf_hookbench.ko first):
#
#   in_vm.sh [--flows "N..."] [--families "4 6"] [--reps R]
#            [--packets P] [--splits S] [--traffic T]
#            [--ab KO --ab-name NAME]
#
# Contenders, each in its own network namespace hb-C, all loaded at once
# with the same N flows (nfcf_hookbench.c says which) for both families,
# everything at prerouting priority raw (-300), action drop:
#   none        no hook at all (the loop alone: the baseline)
#   cuckoo-f12  nf_cuckoo filters (family ip, family ip6), fingerprint 12
#   cuckoo-f16  the same, fingerprint 16
#   cuckoo-ss13 the same, semi-sorted buckets, fingerprint 13
#   cuckoo-st4  the same, fingerprint 12, grown to 4 stages: created with
#               a fifteenth of the flows' capacity, factor 2
#   nft         nftables sets of concatenated 5-tuples (tables ip, ip6)
#   ipset       ipsets hash:ip,port,ip (inet, inet6) and an iptables /
#               ip6tables rule in the raw table (Debian's iptables: its
#               nf_tables backend, the set match through nft_compat)
#   xt-cuckoo   nf_cuckoo filters of no hook of their own (fingerprint 12)
#               asked by an iptables / ip6tables rule in the raw table,
#               -m cuckoo, as ipset's are by -m set (not in the default
#               list: --contenders; xt_cuckoo.ko from the tree, its
#               extension from tools/xt)
# No conntrack is loaded.  For each N, R rounds; in each round, for each
# family and mix (0%: traffic of flows not loaded; 100%: loaded flows),
# every contender in turn (the order rotating from round to round) runs
# P packets through nfcf_hookbench: in S runs of P / S packets ("split"
# 1..S), every contender's first, then every contender's second, and so
# on, so that a round's figure (report.py: its fastest chunk) rests on
# stretches some seconds apart, and a second in which the host slowed
# the virtual CPU moves one of them only.  One line "HB-JSON {...}" per
# run, progress as "# ...".
#
# --ab KO: the contenders are no hook and nf_cuckoo alone, which runs
# each round once with the tree's nf_cuckoo.ko and once with KO (another
# build of it, reported as contender "cuckoo-ab", NAME saying which), the
# order alternating from round to round.  The filters are loaded once and
# saved; a swap unloads one module, loads the other and restores the
# save, so both look up the same table.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# The modules to load (bench/vmrun.sh: bench_module).
KO_DIR=${NFB_KO_DIR:-$REPO}
CFCTL=$REPO/tools/cfctl/cfctl
RUNF=/sys/kernel/debug/nfcf_hookbench/run

SIZES=100000
FAMILIES="4 6"
REPS=10
PACKETS=524288
SPLITS=1
TRAFFIC=65536
AB_KO=
AB_NAME=
CONTENDERS=
while [ $# -gt 0 ]; do
	case $1 in
	--flows) SIZES=$2; shift 2 ;;
	--families) FAMILIES=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--packets) PACKETS=$2; shift 2 ;;
	--splits) SPLITS=$2; shift 2 ;;
	--traffic) TRAFFIC=$2; shift 2 ;;
	--ab) AB_KO=$2; shift 2 ;;
	--ab-name) AB_NAME=$2; shift 2 ;;
	--contenders) CONTENDERS="none ${2//none/}"; shift 2 ;;
	*) echo "in_vm.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
: "${CONTENDERS:=none cuckoo-f12 cuckoo-f16 cuckoo-ss13 cuckoo-st4 nft ipset}"
[ -n "$AB_KO" ] && CONTENDERS="none cuckoo-f12"
W=/tmp/hb
mkdir -p "$W"

say() { echo "# [$SECONDS s] $*"; }
ns() { local c=$1; shift; nsenter --net="/run/netns/hb-$c" -- "$@"; }

# gen N: the flow files for N flows, both families (see nfcf_hookbench.c).
gen() {
	local n=$1

	awk -v n="$n" -v d="$W" 'BEGIN {
		for (k = 0; k < n; k++) {
			a = sprintf("11.%d.%d.%d", int(k / 65536), int(k / 256) % 256, k % 256)
			a6 = sprintf("2001:db8:1::%x:%x", int(k / 65536), k % 65536)
			sp = 1024 + k % 60000
			printf "add bench udp %s:%d 10.0.0.2:9000\n", a, sp > d "/cf4.txt"
			printf "add bench6 udp [%s]:%d [2001:db8::2]:9000\n", a6, sp > d "/cf6.txt"
			printf "add hb %s,17:%d,10.0.0.2\n", a, sp > d "/ipset4.txt"
			printf "add hb6 %s,17:%d,2001:db8::2\n", a6, sp > d "/ipset6.txt"
			if (k % 1000 == 0) {
				if (k) { print " }" > d "/nft4.txt"; print " }" > d "/nft6.txt" }
				printf "add element ip hb flows {" > d "/nft4.txt"
				printf "add element ip6 hb flows {" > d "/nft6.txt"
				sep = " "
			}
			printf "%s%s . 17 . %d . 10.0.0.2 . 9000", sep, a, sp > d "/nft4.txt"
			printf "%s%s . 17 . %d . 2001:db8::2 . 9000", sep, a6, sp > d "/nft6.txt"
			sep = ", "
		}
		print " }" > d "/nft4.txt"; print " }" > d "/nft6.txt"
	}'
}

# setup C N: create C's structures for N flows and load them.
setup() {
	local c=$1 n=$2 f

	case $c in
	none) ;;
	cuckoo-st4)
		# 1 + 2 + 4 + 8 = 15 times the first stage's capacity
		for f in $FAMILIES; do
			ns "$c" "$CFCTL" create "bench$([ "$f" = 6 ] && echo 6)" \
				family "ip$([ "$f" = 6 ] && echo 6)" \
				capacity $(((n + 14) / 15)) fingerprint 12 \
				hook prerouting priority raw action drop &&
			ns "$c" "$CFCTL" -q restore -f "$W/cf$f.txt" || return 1
		done ;;
	cuckoo-*)
		# cuckoo-fF: fingerprint F; cuckoo-ssF: F, semi-sorted
		local fp=${c#cuckoo-f} enc=
		[ "$c" = "${c#cuckoo-ss}" ] || fp=${c#cuckoo-ss} enc=semisort
		for f in $FAMILIES; do
			# shellcheck disable=SC2086
			ns "$c" "$CFCTL" create "bench$([ "$f" = 6 ] && echo 6)" \
				family "ip$([ "$f" = 6 ] && echo 6)" capacity "$n" \
				fingerprint "$fp" $enc hook prerouting priority raw action drop &&
			ns "$c" "$CFCTL" -q restore -f "$W/cf$f.txt" || return 1
		done ;;
	nft)
		for f in $FAMILIES; do
			local fam=ip a=ipv4_addr proto="ip protocol"
			[ "$f" = 6 ] && fam=ip6 a=ipv6_addr proto="ip6 nexthdr"
			ns "$c" nft -f - <<-EOF || return 1
			table $fam hb {
				set flows {
					type $a . inet_proto . inet_service . $a . inet_service
					size $n
				}
				chain pre {
					type filter hook prerouting priority raw;
					$fam saddr . $proto . udp sport . $fam daddr . udp dport @flows drop
				}
			}
			EOF
			ns "$c" nft -f "$W/nft$f.txt" || return 1
		done ;;
	xt-cuckoo)
		for f in $FAMILIES; do
			local name=bench fam=ip ipt=iptables
			[ "$f" = 6 ] && name=bench6 fam=ip6 ipt=ip6tables
			ns "$c" "$CFCTL" create "$name" family "$fam" capacity "$n" \
				fingerprint 12 hook none action drop &&
			ns "$c" "$CFCTL" -q restore -f "$W/cf$f.txt" &&
			ns "$c" "$ipt" -t raw -A PREROUTING \
				-m cuckoo --filter "$name" -j DROP || return 1
		done ;;
	ipset)
		for f in $FAMILIES; do
			local s=hb fam=inet ipt=iptables
			[ "$f" = 6 ] && s=hb6 fam=inet6 ipt=ip6tables
			ns "$c" ipset create "$s" hash:ip,port,ip family "$fam" \
				hashsize "$n" maxelem "$n" &&
			ns "$c" ipset restore -f "$W/ipset$f.txt" &&
			ns "$c" "$ipt" -t raw -A PREROUTING \
				-m set --match-set "$s" src,src,dst -j DROP || return 1
		done ;;
	esac
}

# run C FAMILY N MATCH REP [LABEL [SPLIT]]: one run of PACKETS / SPLITS
# packets in C's namespace, one JSON line naming the contender LABEL
# (default C) and the split (default 1).
run() {
	local c=$1 f=$2 n=$3 m=$4 r=$5 label=${6:-$1} split=${7:-1} out
	local p=$((PACKETS / SPLITS))

	if ! out=$(ns "$c" sh -c "echo $f $n $m $p >$RUNF && cat $RUNF" 2>&1); then
		echo "# run $c $f $n $m failed: $out"
		echo "HB-JSON {\"type\":\"error\",\"contender\":\"$label\",\"family\":$f,\"flows\":$n,\"match\":$m}"
		return
	fi
	# "k=v k=v ..." -> JSON numbers
	echo "HB-JSON {\"type\":\"run\",\"contender\":\"$label\",\"rep\":$r,\"split\":$split,$(
		echo "$out" | sed 's/\([a-z_]*\)=\([-0-9]*\)/"\1":\2/g; s/ /,/g')}"
}

# use_module KO: nf_cuckoo.ko or KO loaded, holding the saved filters.
LOADED=
use_module() {
	[ "$LOADED" = "$1" ] && return
	rmmod nf_cuckoo && insmod "$1" &&
		ns cuckoo-f12 "$CFCTL" -q restore -f "$W/cuckoo.save" || {
		echo "in_vm.sh: cannot swap to $1" >&2
		exit 1
	}
	LOADED=$1
}

# ab_round N REP: one round of the --ab comparison.
ab_round() {
	local n=$1 r=$2 ko f m label

	for ko in "${ORDER[@]}"; do
		use_module "$ko"
		label=cuckoo-f12
		[ "$ko" = "$AB_KO" ] && label=cuckoo-ab
		for f in $FAMILIES; do
			for m in 0 100; do
				[ "$ko" = "${ORDER[0]}" ] && run none "$f" "$n" "$m" "$r"
				run cuckoo-f12 "$f" "$n" "$m" "$r" "$label"
			done
		done
	done
	ORDER=("${ORDER[1]}" "${ORDER[0]}")
}

# --- start ---
modprobe -q dummy 2>/dev/null
insmod "$KO_DIR/nf_cuckoo.ko" || { echo "in_vm.sh: cannot load nf_cuckoo.ko" >&2; exit 1; }
if [[ " $CONTENDERS " == *" xt-cuckoo "* ]]; then
	export XTABLES_LIBDIR=$REPO/tools/xt:/usr/lib/x86_64-linux-gnu/xtables
	modprobe x_tables && insmod "$KO_DIR/xt_cuckoo.ko" ||
		{ echo "in_vm.sh: cannot load xt_cuckoo.ko" >&2; exit 1; }
fi
insmod "$HERE/nfcf_hookbench.ko" "traffic=$TRAFFIC" ||
	{ echo "in_vm.sh: cannot load nfcf_hookbench.ko" >&2; exit 1; }
echo "HB-JSON {\"type\":\"env\",\"kernel\":\"$(uname -r)\",\"cpus\":$(nproc),\"sizes\":\"$SIZES\",\"families\":\"$FAMILIES\",\"reps\":$REPS,\"packets\":$PACKETS,\"splits\":$SPLITS,\"traffic\":$TRAFFIC,\"nft\":\"$(nft -v)\",\"ipset\":\"$(ipset -v | head -n1)\",\"iptables\":\"$(iptables -V)\",\"ab\":\"$AB_NAME\"}"

for n in $SIZES; do
	say "$n flows: generating"
	gen "$n" || exit 1
	for c in $CONTENDERS; do
		ip netns add "hb-$c" && ns "$c" ip link set lo up || exit 1
		t0=$SECONDS
		if ! setup "$c" "$n" >"$W/setup.out" 2>&1; then
			sed 's/^/#   /' "$W/setup.out" | tail -5
			echo "in_vm.sh: loading $c failed" >&2
			exit 1
		fi
		say "$n flows: $c loaded in $((SECONDS - t0)) s"
	done
	for c in $CONTENDERS; do		# warm-up, not reported
		for f in $FAMILIES; do
			ns "$c" sh -c "echo $f $n 0 $TRAFFIC >$RUNF"
		done
	done
	if [ -n "$AB_KO" ]; then
		ns cuckoo-f12 "$CFCTL" save -f "$W/cuckoo.save" || exit 1
		LOADED=$KO_DIR/nf_cuckoo.ko
		ORDER=("$KO_DIR/nf_cuckoo.ko" "$AB_KO")
		for ((r = 1; r <= REPS; r++)); do
			ab_round "$n" "$r"
			say "$n flows: round $r done"
		done
		use_module "$KO_DIR/nf_cuckoo.ko"
		continue
	fi
	# shellcheck disable=SC2086
	set -- $CONTENDERS
	for ((r = 1; r <= REPS; r++)); do
		for f in $FAMILIES; do
			for m in 0 100; do
				for ((s = 1; s <= SPLITS; s++)); do
					for c in "$@"; do
						run "$c" "$f" "$n" "$m" "$r" "$c" "$s"
					done
				done
			done
		done
		set -- "${@:2}" "$1"	# rotate the order
		say "$n flows: round $r done"
	done
	for c in $CONTENDERS; do
		ip netns del "hb-$c"
	done
	sleep 2		# let the namespaces go
done
oops='BUG:|WARNING:|Oops|general protection|refcount_t:|soft lockup|RCU stall'
dmesg | grep -E "$oops" | head -5 | sed 's/^/# dmesg: /'
echo "HB-JSON {\"type\":\"end\",\"kernel_warnings\":$(dmesg | grep -cE "$oops")}"
