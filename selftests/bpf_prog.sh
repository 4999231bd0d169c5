#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The program users get (tools/cfctl/bpf/nf_cuckoo.bpf.c, what cfctl xdp
# and cfctl tc attach), both its XDP and its tc program, run on crafted
# packets with BPF_PROG_TEST_RUN (bpf/prog_test.c) against real filters:
# it must answer as the filter's netfilter hook would, because it builds
# the key as kmod/skbkey.c does.  Packets are built with scapy; what each
# must get is written by hand for the cases named below, and for every
# packet cut at every length by a python copy of skbkey.c's parser (which
# must itself agree with the hand-written answers):
#  - the object loads: both programs pass the verifier;
#  - untagged, one and two VLAN tags (802.1Q, 802.1ad), three (not IP);
#  - IPv4 options; IPv4 fragments, first and non-first, against a filter
#    of the 5-tuple and one of protocol and addresses;
#  - IPv6 hop-by-hop, routing, destination options, AH and fragment
#    headers (first and non-first), "no next header";
#  - SCTP, UDP-Lite, DCCP ports; ICMP and ICMPv6 (ports 0);
#  - the IP length fields, not the frame, bound the key; malformed
#    headers; an invert filter; no filter id, an unknown one;
#  - IPv6 extension header chains of any length walked to their end, as
#    the hook walks them (17, 40 and 200 headers);
#  - every packet of several kinds cut at every length, raw and with its
#    IP length cut to fit: no crash, the hook's verdict;
#  - the filters counted exactly the lookups the programs should make.
# TAP output.

. "$(dirname "$0")/lib.sh"
require_env
OUTDIR=${OUTPUT:-$REPO/build/selftests}
RUNNER=$OUTDIR/prog_test
OBJ=${NFCF_BPF_OBJ:-$REPO/tools/cfctl/nf_cuckoo.bpf.o}
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=python3
[ -f "$OBJ" ] && [ -x "$RUNNER" ] ||
	skip_all "the program or its runner is not built: make -C selftests (needs clang, libbpf-dev, libxdp-dev)"
"$PYTHON" -c 'import scapy' 2>/dev/null || skip_all "python3-scapy missing"
isolate "$@"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The filters made here, and two ids that name none: 0 (the program's
# "no filter") and one no filter has.
FILTERS="full pa src inv"
RUNS="$FILTERS zero noent"
NOENT=999999

plan 21
kmsg_mark

# The packets, what each must get, the filters and the lookups they
# must count: bpf/prog_packets.py's files, written by make on the host
# when the script and its model of skbkey.c have not changed since, else
# here.
t0=$(now)
PKTS=$OUTDIR/prog_packets
if [ -f "$PKTS/groups" ] && [ "$PKTS/groups" -nt "$SELFTESTS/bpf/prog_packets.py" ] &&
	[ "$PKTS/groups" -nt "$SELFTESTS/packet/skbkey.py" ]; then
	cp "$PKTS"/* "$TMP"/ || bail "cannot copy the packets of $PKTS"
	how="by make -C selftests ($PKTS)"
else
	"$PYTHON" "$SELFTESTS/bpf/prog_packets.py" "$TMP" >"$TMP/gen.log" 2>&1 ||
		bail "cannot build the packets: $(tail -n 5 "$TMP/gen.log")"
	how="in $(elapsed "$t0") s"
fi
diag "$(cat "$TMP"/pkts.* | wc -l) packets built $how"

if [ -s "$TMP/mirror" ]; then
	not_ok "the python copy of skbkey.c agrees with the hand-written verdicts" "$(head -n 20 "$TMP/mirror")"
else
	ok "the python copy of skbkey.c agrees with the hand-written verdicts"
fi

# Every filter's id and lookups into ID and LOOKUPS (one python: it
# starts slowly in an emulated VM).
declare -A ID=([zero]=0 [noent]=$NOENT) LOOKUPS=() L0=()
read_filters() {
	local name id n

	while read -r name id n; do
		ID[$name]=$id
		LOOKUPS[$name]=$n
	done <<<"$("$CFCTL" -j list 2>/dev/null | "$PYTHON" -c '
import json, sys
for f in json.load(sys.stdin):
    print(f["name"], f["id"], f["stats"]["packets"]["lookups"])')"
}
for f in $FILTERS; do
	# shellcheck disable=SC2046
	"$CFCTL" create "$f" $(cat "$TMP/create.$f") &&
		"$CFCTL" add -f "$TMP/entries.$f" "$f" || bail "cannot make filter $f"
done
read_filters
check_all "cfctl list gives the filters' ids (${ID[full]} ${ID[pa]} ${ID[src]} ${ID[inv]})" \
	"${ID[full]:-0}" -ge 1 "${ID[pa]:-0}" -ge 1 "${ID[src]:-0}" -ge 1 \
	"${ID[inv]:-0}" -ge 1 "${ID[full]:-0}" -lt $NOENT
for f in $FILTERS; do
	L0[$f]=${LOOKUPS[$f]:-}
done

if "$RUNNER" -v -o "$OBJ" "${ID[full]}" - </dev/null >"$TMP/load.log" 2>&1; then
	ok "the object loads: both programs pass the verifier"
	diag "$(cat "$TMP/load.log")"
else
	not_ok "the object loads: both programs pass the verifier" "$(tail -n 40 "$TMP/load.log")"
	bail "the programs do not load"
fi

# Each program on each packet: "LABEL XDP-VERDICT TC-VERDICT".
t0=$(now)
for r in $RUNS; do
	"$RUNNER" -o "$OBJ" "${ID[$r]}" "$TMP/pkts.$r" >"$TMP/res.$r" 2>"$TMP/err.$r" ||
		echo "prog_test on $r: status $? $(tail -n 3 "$TMP/err.$r")" >>"$TMP/run.err"
done
diag "$(cat "$TMP"/pkts.* | wc -l) packets through both programs in $(elapsed "$t0") s"

# One line a group: "GROUP<TAB>PACKETS<TAB>FAILED<TAB>DESCRIPTION<TAB>WHAT".
# shellcheck disable=SC2086
"$PYTHON" - "$TMP" $RUNS <<'PY' >"$TMP/cmp" 2>&1 || bail "cannot compare: $(tail -n 5 "$TMP/cmp")"
import sys

T, runs = sys.argv[1], sys.argv[2:]
WANT = {"DROP": ({"XDP_DROP"}, {"TC_ACT_SHOT"}),
        "PASS": ({"XDP_PASS"}, {"TC_ACT_UNSPEC"}),
        # BPF_PROG_TEST_RUN refuses frames shorter than Ethernet's header,
        "SHORT": ({"EINVAL", "XDP_PASS"}, {"EINVAL", "TC_ACT_UNSPEC"}),
        # and for tc, untagged IPv4 and IPv6 shorter than their header.
        "SHORTTC": ({"XDP_PASS"}, {"EINVAL", "TC_ACT_UNSPEC"})}
groups = [l.rstrip("\n").split("\t") for l in open(T + "/groups")]
n = {g: 0 for g, _ in groups}
bad = {g: [] for g, _ in groups}
for r in runs:
    want = [l.split() for l in open("%s/want.%s" % (T, r))]
    got = [l.split() for l in open("%s/res.%s" % (T, r))]
    pkts = [l.split() for l in open("%s/pkts.%s" % (T, r))]
    for i, (lab, g, w) in enumerate(want):
        n[g] += 1
        res = got[i] if i < len(got) else []
        if len(res) != 3 or res[0] != lab:
            bad[g].append("%s on %s: no verdict (%s)" % (lab, r, " ".join(res)))
        elif res[1] not in WANT[w][0] or res[2] not in WANT[w][1]:
            bad[g].append("%s on %s: want %s, got %s %s, packet %s"
                          % (lab, r, w, res[1], res[2], pkts[i][1]))
for g, desc in groups:
    print("%s\t%d\t%d\t%s\t%s" % (g, n[g], len(bad[g]), desc,
                                  " | ".join(bad[g][:8])))
PY

[ -s "$TMP/run.err" ] && diag "$(cat "$TMP/run.err")"
ngroups=0
while IFS=$'\t' read -r _ count failed desc what; do
	ngroups=$((ngroups + 1))
	if [ "$failed" = 0 ] && [ "$count" -gt 0 ]; then
		ok "$desc ($count verdicts of both programs)"
	else
		not_ok "$desc" "$failed of $count wrong:" "${what//' | '/$'\n'}"
	fi
done <"$TMP/cmp"
[ "$ngroups" = 16 ] || diag "$ngroups groups of packets, the plan counts 16"

bad=()
read_filters
for f in $FILTERS; do
	got=$((${LOOKUPS[$f]:-0} - ${L0[$f]:-0}))
	want=$(cat "$TMP/lookups.$f")
	[ "$got" = "$want" ] || bad+=("$f: $got lookups, want $want")
done
if [ ${#bad[@]} = 0 ]; then
	ok "each filter counted one lookup a program made for each packet holding the fields it needs"
else
	not_ok "each filter counted one lookup a program made for each packet holding the fields it needs" "${bad[@]}"
fi
# shellcheck disable=SC2086
"$CFCTL" destroy $FILTERS

check_klog
finish
