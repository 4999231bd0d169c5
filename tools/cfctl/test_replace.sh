#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Replacing filters whole, and saves that are safe to restore: swap,
# compact, restore -replace and -exist, a restore that fails leaving
# nothing it made, and save -f keeping the previous file when the new one
# holds fewer filters.  Against fake_nl.c (cfctl_fake) on the host, and
# with --real against the module and the real cfctl in the VM
# (selftests/cfctl_replace.sh), leaving out the failures only the fake can
# inject.  TAP output.
#   test_replace.sh [--real] [PATH/TO/cfctl_fake]
set -u
real=0
if [ "${1:-}" = --real ]; then
	real=1
	shift
fi
CFCTL=${1:-$(dirname "$0")/cfctl_fake}
prefix=${TAP_PREFIX:-cfctl replace}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export CFCTL_FAKE_STATE=$dir/state
unset CFCTL_FAKE_FAIL_AT
# shellcheck source=tools/cfctl/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

# srcs FROM TO: source addresses, one a line, all distinct
srcs() {
	awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i <= b; i++)
		printf "10.%d.%d.%d\n", int(i / 65536), int(i / 256) % 256, i % 256 }'
}

# stages NAME: how many stages the filter has
stages() {
	"$CFCTL" show "$1" 2>/dev/null | sed -n 's/^Stages: \([0-9]*\).*/\1/p'
}

# no_tmp DESCRIPTION: no temporary filter of cfctl's is left
no_tmp() {
	cf list -n
	! grep -q '^\.cfctl-' <<<"$out"
	result $? "$1"
}

echo "TAP version 13"
echo "1..$((56 - 3 * real))"

# ---- swap ----
cf create sa family ip key src capacity 1000 fingerprint 32 hook input
cf add sa src 10.0.0.1
cf create sb family ip key src capacity 5000 fingerprint 32 hook forward
cf add sb src 10.0.0.2
t "swap sa sb: status 0" 0 "^$" -- swap sa sb
t "... sa holds what sb held" 0 "is in sa" -- test sa src 10.0.0.2
t "... and not what it held" 1 "is NOT in sa" -- test sa src 10.0.0.1
cf show sa
grep -q "^Header: capacity 5000 " <<<"$out" && grep -q "^Hook: forward " <<<"$out"
result $? "... with sb's settings: each filter keeps its own, only the names change"
t "... sb is the old sa" 0 "is in sb" -- test sb src 10.0.0.1
t "swap with a missing filter: status 3, the missing one named" 3 \
	"no filter of that name .*second filter name" -- swap sa nosuch
t "swap a filter with itself: status 2" 2 "cannot swap sa with itself" -- swap sa sa
t "swap with one name: status 2" 2 "usage: cfctl swap NAME NAME2" -- swap sa
t "swap: a bad name, status 2" 2 "bad filter name" -- swap sa 'a b'
cf destroy sa sb

# ---- compact: a grown filter deletes exactly again ----
srcs 1 100000 >"$dir/all"
srcs 1 3500 >"$dir/gone"
srcs 3501 100000 >"$dir/kept"
cf create g family ip key src capacity 1000 hook input action count
cf add -f "$dir/all" g
[ "$rc" = 0 ] && [ "$(stages g)" -ge 6 ]
result $? "compact: a filter created for 1,000 grew to hold 100,000 ($(stages g) stages)"
cp "$CFCTL_FAKE_STATE" "$dir/state.grown" 2>/dev/null
cf del -f "$dir/gone" g
[ "$rc" = 3 ] && grep -q "ambiguous\|more than one of its stages" <<<"$out"
result $? "compact: before, deleting 3,500 of them is refused as ambiguous"
t "compact: no -f LIST, status 2" 2 "missing -f LIST" -- compact g
printf '10.0.0.1\nnot-an-address\n' >"$dir/badlist"
t "compact: a bad line in the list, status 2, nothing done" 2 "line 2" -- \
	compact -f "$dir/badlist" g
[ "$(stages g)" -ge 6 ]
result $? "... the filter as it was"
t "compact: a missing filter, status 3" 3 "no filter" -- compact -f "$dir/all" nosuch
t "compact g -f LIST (the list after the name): status 0" 0 "" -- compact g -f "$dir/all"
[ "$(stages g)" = 1 ]
result $? "... one stage"
t "... every entry of the list present" 0 "g: 100000 of 100000 entries present" -- \
	test -f "$dir/all" g
cf show g
grep -q "^Items: 100000$" <<<"$out" && grep -q "^Hook: input " <<<"$out" &&
	grep -q "^Action: count" <<<"$out" && grep -q "^Header: capacity 125000 " <<<"$out"
result $? "... 100,000 items, hook and action kept, capacity the list's and a quarter"
no_tmp "... no temporary filter left"
t "compact: afterwards every delete applies" 0 "" -- del -f "$dir/gone" g
want_items g 96500 "... exactly 3,500 entries fewer"
t "... the others stay" 0 "g: 96500 of 96500 entries present" -- \
	test -f "$dir/kept" g
if [ "$real" = 0 ]; then
	# The requests of compact: GET g, LOAD_BEGIN, chunks, LOAD_END, SWAP.
	cf show g
	before=$out
	CFCTL_FAKE_FAIL_AT=4 cf compact -f "$dir/kept" g
	[ "$rc" = 3 ] && grep -q "g was left as it was" <<<"$out"
	result $? "compact: a load the kernel refuses, status 3, g left as it was"
	cf show g
	[ "$out" = "$before" ]
	result $? "... g unchanged"
	no_tmp "... no temporary filter left"
fi
if [ "$real" = 1 ]; then
	# cfctl killed (-9) at a random moment of a compact, five times: g
	# is always whole (the old table or the new), and what a kill leaves
	# is at most a temporary filter, only if it came after LOAD_END.
	# The moments are spread over what a whole compact takes.
	t0=$(date +%s%N)
	"$CFCTL" compact -f "$dir/kept" g >/dev/null 2>&1
	ms=$((($(date +%s%N) - t0) / 1000000 + 1))
	lost=
	left=0
	for i in 1 2 3 4 5; do
		"$CFCTL" compact -f "$dir/kept" g >/dev/null 2>&1 &
		pid=$!
		d=$((RANDOM * ms / 32768))
		sleep "$((d / 1000)).$(printf %03d $((d % 1000)))"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		"$CFCTL" -q test -f "$dir/kept" g >/dev/null 2>&1 || lost="$lost $i"
		left=$((left + $("$CFCTL" list -n | grep -c '^\.cfctl-')))
	done
	out="rounds where g lost entries:${lost:- none}; temporary filters seen after the kills: $left"
	rc=-
	[ -z "$lost" ]
	result $? "compact killed at random moments of its $ms ms (5 times): g always holds every entry ($left temporary seen after a kill)"
	cf compact -f "$dir/kept" g
	no_tmp "... and the next compact destroys the temporary filters the kills left"
fi
cf destroy g

# ---- restore -exist, -replace, and all or nothing ----
cf create r1 family ip key src capacity 1000 fingerprint 32
cf add r1 src 192.0.2.1
cf create r2 family ip key src capacity 1000 fingerprint 32
cf add r2 src 192.0.2.2
cf create f2b-x family ip key src capacity 100 fingerprint 32
cf add f2b-x src 198.51.100.1
cf save -f "$dir/r.save"
cf add r1 src 192.0.2.99
cf add f2b-x src 198.51.100.2
cf destroy r2
t "restore of a file whose filter exists: refused, status 2" 2 \
	"a filter named r1 already exists; nothing was applied" -- restore -f "$dir/r.save"
t "restore -exist: status 0, the existing filters kept" 0 \
	"2 filters kept as the kernel holds them" -- restore -exist -f "$dir/r.save"
t "... r1 as the kernel held it (its later entry there)" 0 "is in r1" -- \
	test r1 src 192.0.2.99
t "... r2, missing, restored" 0 "is in r2" -- test r2 src 192.0.2.2
t "restore -exist again: nothing to do, status 0" 0 "3 filters kept" -- \
	restore -exist -f "$dir/r.save"
cf create other family ip key src capacity 100
t "restore -replace -keep 'f2b-*': status 0" 0 "1 filter kept as the kernel holds it" -- \
	restore -replace -keep 'f2b-*' -f "$dir/r.save"
t "... the kept filter as the kernel held it" 0 "is in f2b-x" -- \
	test f2b-x src 198.51.100.2
t "... r1 is the file's: its later entry gone" 1 "is NOT in r1" -- \
	test r1 src 192.0.2.99
t "... and the file's entry there" 0 "is in r1" -- test r1 src 192.0.2.1
t "... a filter the file does not name is left alone" 0 "^other$" -- list -n other
no_tmp "... no temporary filter left"
t "-replace and -exist together: status 2" 2 "exclude each other" -- \
	restore -replace -exist -f "$dir/r.save"
t "-replace is restore's: status 2" 2 "-replace is restore's" -- save -replace
t "-keep is restore's: status 2" 2 "-keep is restore's" -- save -keep x
cf add r1 src 192.0.2.99
# The second filter's image of another version: the kernel refuses it.
sed '1d;$d' "$dir/r.save" >"$dir/r.body"
hdr=$(sed -n 's/^create r2 .* image \([A-Za-z0-9+/=]*\)$/\1/p' "$dir/r.body")
v1=$(python3 -c 'import base64, sys; h = bytearray(base64.b64decode(sys.argv[1])); h[4:6] = (1).to_bytes(2, "little"); print(base64.b64encode(bytes(h)).decode())' "$hdr")
sed "s|image $hdr|image $v1|" "$dir/r.body" >"$dir/r.v1"
t "restore -replace, the second filter refused by the kernel: status 3" 3 \
	"those it was to replace left as they were" -- restore -replace -f "$dir/r.v1"
t "... r1 not replaced: its later entry still there" 0 "is in r1" -- \
	test r1 src 192.0.2.99
no_tmp "... no temporary filter left"
cf destroy r1 r2 other f2b-x
t "restore of two filters, the second refused by the kernel: status 3" 3 \
	"the filters this restore created were destroyed again" -- restore -f "$dir/r.v1"
cf list -n
[ -z "$out" ]
result $? "... all or nothing: the first is not left behind"
if [ "$real" = 0 ]; then
	# Requests: lookups of r1, r2; LOAD_BEGIN, CHUNK, END of r1, then
	# r2's: its LOAD_END fails.
	CFCTL_FAKE_FAIL_AT=8 cf restore -f "$dir/r.save"
	[ "$rc" = 3 ] && grep -q "destroyed again" <<<"$out"
	result $? "restore: a failure in the last request of the second filter, status 3"
	cf list -n
	[ -z "$out" ]
	result $? "... nothing left"
fi

# ---- save -f keeps the previous file when the new one holds fewer ----
cf restore -f "$dir/r.save"
cf save -f "$dir/s"
[ "$rc" = 0 ] && [ ! -e "$dir/s.1" ] && [ "$(grep -c '^create ' "$dir/s")" = 3 ]
result $? "save -f: three filters, no previous file kept"
cf destroy f2b-x
cf save -f "$dir/s"
cf destroy r2
cf save -f "$dir/s"
[ "$rc" = 0 ] && grep -q "held 2 filters, this save 1: the previous save is kept as $dir/s.1" <<<"$out" &&
	[ "$(grep -c '^create ' "$dir/s.1")" = 2 ] && [ "$(grep -c '^create ' "$dir/s")" = 1 ]
result $? "save -f of fewer filters: the previous file kept as FILE.1, and said"
cf destroy r1
cf save -f "$dir/s"
[ "$rc" = 0 ] && [ "$(grep -c '^create ' "$dir/s")" = 0 ] &&
	[ "$(grep -c '^create ' "$dir/s.1")" = 1 ] && tail -n 1 "$dir/s" | grep -q "^# end sha256 "
result $? "save -f of none: an empty, checked save; FILE.1 the one before"
cf restore -f "$dir/s"
[ "$rc" = 0 ]
result $? "... which restores (to nothing)"
cf create .cfctl-1-0 family ip capacity 10
t "a save of a filter named like cfctl's temporary ones skips it" 0 \
	"skipping .cfctl-1-0: the temporary filter of a cfctl that was interrupted" -- \
	save -f "$dir/t"
! grep -q '^create \.cfctl' "$dir/t"
result $? "... it is not in the file"
cf destroy .cfctl-1-0

# A temporary filter whose cfctl is gone (killed after LOAD_END) is
# destroyed by the next replacement; one of a live cfctl, of another PID
# namespace or named as cfctl did before they held the PID namespace is
# left alone.
ns=$(readlink /proc/self/ns/pid | tr -dc 0-9)
ns=$(printf %x "$ns")
true &
dead=$!
wait "$dead"
sleep 600 &
live=$!
orphan=.cfctl-$ns-$(printf %x "$dead")-0
kept=".cfctl-$ns-$(printf %x "$live")-0 .cfctl-$(printf %x $((0x$ns ^ 1)))-$(printf %x "$dead")-0 .cfctl-$dead-0"
for f in $orphan $kept; do
	"$CFCTL" create "$f" family ip capacity 10 >/dev/null 2>&1
done
cf create rp family ip key src capacity 100
cf save -f "$dir/rp" rp
t "restore -replace destroys a temporary filter whose cfctl was killed, and says so" 0 \
	"destroyed $orphan, the temporary filter of a cfctl that was killed" -- \
	restore -replace -f "$dir/rp"
cf list -n
! grep -qx -- "$orphan" <<<"$out"
result $? "... it is gone"
gone=
for f in $kept; do
	grep -qx -- "$f" <<<"$out" || gone="$gone $f"
done
[ -z "$gone" ]
result $? "... those of a live cfctl, of another PID namespace, and of the older form are left"
kill "$live" 2>/dev/null
wait "$live" 2>/dev/null
for f in $kept rp; do
	"$CFCTL" destroy "$f" >/dev/null 2>&1
done

echo "# $failed of $n failed"
[ "$failed" = 0 ]
