#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The BPF kfuncs (kmod/kfunc.c): an XDP and a tc program
# (bpf/kfunc_test.bpf.c, run with BPF_PROG_TEST_RUN by bpf/kfunc_test.c)
# ask a filter about a packet by the filter's id, as its netfilter hook
# would:
#  - the module has BTF of its own, and its kfuncs registered;
#  - a listed flow matches (XDP_DROP, TC_ACT_SHOT), IPv4 and IPv6, an
#    unlisted one does not, and the filter counts the lookups;
#  - a disabled filter, an IPv4-only filter asked about IPv6, and an
#    invert filter answer as the hook does;
#  - the id goes with the name through a swap (restore -replace);
#  - an id that no filter has, a destroyed filter's, and a filter of
#    another network namespace: -ENOENT;
#  - the module cannot be unloaded while a program that uses it is
#    loaded, and can after.
# TAP output.

. "$(dirname "$0")/lib.sh"
require_env
OUTDIR=${OUTPUT:-$REPO/build/selftests}
OBJ=$OUTDIR/kfunc_test.bpf.o
RUNNER=$OUTDIR/kfunc_test
[ -f "$OBJ" ] && [ -x "$RUNNER" ] ||
	skip_all "the BPF test programs are not built: make -C selftests (needs clang and libbpf-dev)"
isolate "$@"

plan 12
kmsg_mark

# kf xdp|tc ID PROTO SRC DST [PROTO SRC DST]...: the program loaded once
# and run on each packet; the lines "PROGRAM-RETURN KFUNC-ANSWER" (or the
# error) into the array R.
# (A here-string, not <(...): the VM has no /dev/fd.)
kf() {
	mapfile -t R <<<"$("$RUNNER" "$OBJ" "$@" 2>&1 |
		sed -n 's/^retval \([0-9]*\) kfunc \(-\{0,1\}[0-9]*\)$/\1 \2/p;/^kfunc_test:/p')"
}
id_of() { jfield "$1" 'f["id"]'; }
lookups() { jfield "$1" 'f["stats"]["packets"]["lookups"]'; }
XDP_DROP=1 XDP_PASS=2 TC_OK=0 TC_SHOT=2
FLOW4="udp 10.0.0.1:1000 10.0.0.2:53"
FLOW6="tcp [fd00::1]:1000 [fd00::2]:80"

if [ -e /sys/kernel/btf/nf_cuckoo ] && ! dmesg | grep -q 'nf_cuckoo: no BPF kfuncs'; then
	ok "the module has its BTF (/sys/kernel/btf/nf_cuckoo), its kfuncs registered"
else
	not_ok "the module has its BTF, its kfuncs registered" \
		"$(ls /sys/kernel/btf 2>&1 | tr '\n' ' ')" "$(dmesg | grep nf_cuckoo | tail -n 3)"
fi

"$CFCTL" create bl family inet capacity 1000 &&
	"$CFCTL" add bl "$FLOW4" "$FLOW6" || bail "cannot make filter bl"
id=$(id_of bl)
[ "${id:-0}" -ge 1 ] && ok "cfctl show gives the filter's id ($id)" ||
	not_ok "cfctl show gives the filter's id" "$("$CFCTL" -j show bl 2>&1)"

l0=$(lookups bl)
# shellcheck disable=SC2086
kf xdp "$id" $FLOW4 udp 10.0.0.1:1001 10.0.0.2:53 $FLOW6 tcp [fd00::1]:1000 [fd00::3]:80
check_all "XDP: the listed flows dropped (IPv4, IPv6), the others passed" \
	"${R[0]:-}" = "$XDP_DROP 1" "${R[1]:-}" = "$XDP_PASS 0" \
	"${R[2]:-}" = "$XDP_DROP 1" "${R[3]:-}" = "$XDP_PASS 0"
# shellcheck disable=SC2086
kf tc "$id" $FLOW4 udp 10.0.0.9:1000 10.0.0.2:53 $FLOW6
check_all "tc: the listed flows shot (IPv4, IPv6), the other passed" \
	"${R[0]:-}" = "$TC_SHOT 1" "${R[1]:-}" = "$TC_OK 0" "${R[2]:-}" = "$TC_SHOT 1"
check_eq "the filter counted the 7 lookups" "$(($(lookups bl) - l0))" 7

"$CFCTL" create v4 family ip capacity 100 && "$CFCTL" add v4 "$FLOW4" &&
	"$CFCTL" create inv family inet capacity 100 invert ||
	bail "cannot make filters v4 and inv"
"$CFCTL" set bl disable
# shellcheck disable=SC2086
kf xdp "$id" $FLOW4
r=("${R[0]:-}")
# shellcheck disable=SC2086
kf xdp "$(id_of v4)" $FLOW6
r+=("${R[0]:-}")
# shellcheck disable=SC2086
kf xdp "$(id_of inv)" $FLOW4
r+=("${R[0]:-}")
"$CFCTL" set bl enable
# shellcheck disable=SC2086
kf xdp "$id" $FLOW4
check_all "a disabled filter: no match (and a match once enabled); an IPv4 filter asked about IPv6: no match; an empty invert filter: a match" \
	"${r[0]}" = "$XDP_PASS 0" "${R[0]:-}" = "$XDP_DROP 1" \
	"${r[1]}" = "$XDP_PASS 0" "${r[2]}" = "$XDP_DROP 1"

# restore -replace and compact swap a new filter in under the name: the
# id follows the name.
"$CFCTL" create bl2 family inet capacity 1000 && "$CFCTL" add bl2 "$FLOW6" &&
	"$CFCTL" swap bl bl2 || bail "cannot swap bl and bl2"
# shellcheck disable=SC2086
kf xdp "$id" $FLOW4 $FLOW6
r=("${R[@]}")
# shellcheck disable=SC2086
kf xdp "$(id_of bl2)" $FLOW4
check_all "after a swap the id names the filter that now has the name" \
	"$(id_of bl)" = "$id" "${r[0]:-}" = "$XDP_PASS 0" \
	"${r[1]:-}" = "$XDP_DROP 1" "${R[0]:-}" = "$XDP_DROP 1"

# shellcheck disable=SC2086
kf xdp 999999 $FLOW4
r=("${R[0]:-}")
# shellcheck disable=SC2086
kf tc 999999 $FLOW4
check_all "an id that no filter has: -ENOENT, the packet passes" \
	"${r[0]}" = "$XDP_PASS -2" "${R[0]:-}" = "$TC_OK -2"
old=$(id_of bl2)
"$CFCTL" destroy bl2
# shellcheck disable=SC2086
kf xdp "$old" $FLOW4
check_eq "a destroyed filter's id: -ENOENT" "${R[0]:-}" "$XDP_PASS -2"
# shellcheck disable=SC2086
check_eq "another network namespace's filter: -ENOENT from this one" \
	"$(unshare --net -- "$RUNNER" "$OBJ" xdp "$id" $FLOW6 2>&1 | sed -n 's/^retval \([0-9]*\) kfunc \(-\{0,1\}[0-9]*\)$/\1 \2/p')" \
	"$XDP_PASS -2"

# A loaded program that calls the kfuncs holds the module.
# shellcheck disable=SC2086
KFUNC_TEST_HOLD=5 "$RUNNER" "$OBJ" xdp "$id" $FLOW4 >"${TMPDIR:-/tmp}/hold.$$" 2>&1 &
holder=$!
for _ in $(seq 50); do
	grep -q '^retval' "${TMPDIR:-/tmp}/hold.$$" 2>/dev/null && break
	sleep 0.1
done
held=$(cat /sys/module/nf_cuckoo/refcnt)
wait "$holder"
# The program is freed after a grace period, and the module with it.
for _ in $(seq 50); do
	after=$(cat /sys/module/nf_cuckoo/refcnt)
	[ "$after" -lt "$held" ] && break
	sleep 0.1
done
check_all "a loaded program that uses the kfuncs holds the module (refcnt $held, then $after)" \
	"${held:-0}" -ge 1 "${after:-0}" -lt "${held:-0}"
rm -f "${TMPDIR:-/tmp}/hold.$$"
"$CFCTL" destroy bl v4 inv

check_klog
finish
