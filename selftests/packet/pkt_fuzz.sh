#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzzing the packet parser: crafted packets (scapy) through a filter at
# every hook (prerouting, input, forward, output, postrouting) and of every
# family (ip, ip6, inet), on a router r between a client c and a server s.
# Packets go onto c's or s's wire into r (AF_PACKET) or leave r from raw
# sockets; nftables logs every packet at each hook of r to NFLOG just
# before nf_cuckoo and just after it, and nfcfuzz.py judges each one
# against a model of the documented packet path (doc/design.md, "The
# packet path"): listed flows that can be parsed are dropped or marked,
# the rest pass untouched.  First structured cases with explicit
# expectations, then
# random ones for a bounded time (NFC_FUZZ_SEED to replay a seed,
# NFC_FUZZ_TIME seconds, default 20), then every filter's counters against
# the model's; last, the same packets through cfctl's XDP and tc program
# (BPF_PROG_TEST_RUN), each filter asked, against the same model.  No
# oops or warning in the kernel log.

. "$(dirname "$0")/pktlib.sh"
require_env
"$PYTHON" -c 'import scapy' 2>/dev/null || skip_all "python3-scapy missing"
modprobe nfnetlink_log 2>/dev/null
FUZZ=$PKTDIR/nfcfuzz.py
POINTS=$(sed -n 's/^POINTS = \([0-9]*\).*/\1/p' "$FUZZ")
plan $((POINTS + 2))

kmsg_mark
SEED=${NFC_FUZZ_SEED:-$(date +%s)}
diag "seed $SEED (NFC_FUZZ_SEED=$SEED to replay)"

C4=10.1.0.2 R4C=10.1.0.1 R4S=10.2.0.1 S4=10.2.0.2 S4B=10.2.0.3
C6=fd01::2 R6C=fd01::1 R6S=fd02::1 S6=fd02::2 S6B=fd02::3
mkns c r s
# Fewer stray packets: no DAD, no router solicitations.
for n in c r s; do
	ns $n sysctl -qw net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.all.router_solicitations=0 ||
		bail "sysctl failed in $n"
done
link c vc $C4/24 $C6/64 r rc $R4C/24 $R6C/64
link r rs $R4S/24 $R6S/64 s vs $S4/24 $S6/64
route_via c $R4C $R6C
route_via s $R4S $R6S
ns s ip -batch - <<EOF || bail "cannot set up s's second addresses"
addr add $S4B/24 dev vs
addr add $S6B/64 dev vs nodad
EOF
ns r ip -batch - <<EOF || bail "cannot set up r's neighbours"
neigh replace $S4B lladdr ${MAC[s/vs]} dev rs nud permanent
neigh replace $S6B lladdr ${MAC[s/vs]} dev rs nud permanent
EOF
ns r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
	net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 ||
	bail "cannot enable forwarding"

# Group 1 just before nf_cuckoo's filters (-300), group 2 just after.
{
	echo "table inet nfcfuzz {"
	for h in prerouting input forward output postrouting; do
		echo "chain b_$h { type filter hook $h priority -301;"
		echo "	counter log group 1 queue-threshold 1; }"
		echo "chain a_$h { type filter hook $h priority -299;"
		echo "	counter log group 2 queue-threshold 1; }"
	done
	echo "}"
} | nft_load r

"$PYTHON" -I "$FUZZ" --ns-c "/run/netns/${NSP}c" --ns-r "/run/netns/${NSP}r" \
	--ns-s "/run/netns/${NSP}s" --mac-rc "${MAC[r/rc]}" \
	--mac-rs "${MAC[r/rs]}" --cfctl "$CFCTL" --seed "$SEED" \
	--prog-test "$REPO/build/selftests/prog_test" \
	--bpf-obj "$REPO/tools/cfctl/nf_cuckoo.bpf.o" \
	--time "${NFC_FUZZ_TIME:-20}" >"$SCRATCH/fuzz.out" 2>"$SCRATCH/fuzz.err"
rc=$?
fuzzed=
while IFS= read -r line; do
	case $line in
	"ok "*) ok "${line#ok }" ;;
	"not ok "*) not_ok "${line#not ok }" ;;
	"FUZZED "*) fuzzed=${line#FUZZED } ;;
	*) echo "$line" ;;
	esac
done <"$SCRATCH/fuzz.out"
if [ "$rc" = 0 ] && [ -n "$fuzzed" ]; then
	ok "nfcfuzz.py ran to the end ($((${fuzzed% *} + ${fuzzed#* })) packets)"
else
	not_ok "nfcfuzz.py ran to the end" "status $rc" \
		"$(tail -20 "$SCRATCH/fuzz.err")"
fi

check_klog
finish
