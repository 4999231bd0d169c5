#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The memory ceilings hold against filters that a pending dump keeps
# alive (issue 30).  A destroyed filter gives its charge back, but its
# memory is freed only at its last reference, and a SAVE dump holds one
# until its socket is read to the end or closed: the charge must go with
# the memory, not before.
#
# As an unprivileged user in a user and network namespace of its own,
# under a 24 MiB ceiling for the namespace (netns_mem_max_mb; the
# module-wide one off), filters x of 18 MiB (capacity 12M):
#  - 16 x {create x; destroy x}, no dump: every create succeeds (a
#    filter destroyed and not pinned does not stand in the way of the
#    next);
#  - 16 x {create x; start a SAVE dump of x on a new netlink socket and
#    read nothing (nfc_nl.py pin: the socket stays open); destroy x}:
#    while the first x is pinned every later create is refused with
#    EDQUOT and the ceiling's message, mem_used_bytes counts what the
#    pinned filters hold, and the memory the creates held at once (the
#    memory.peak of a cgroup of their own: the tables are charged to it)
#    stays under the ceiling.  The slack for what is not a table (the
#    processes, the filters' small allocations) is the ceiling's own
#    headroom over one table: 6 MiB.  The module before the fix lets all
#    16 be made, 288 MiB, with mem_used_bytes near 0;
#  - once the pinning sockets are closed, x can be made again (within 15
#    s: the dumps end and the filters are freed after grace periods),
#    and mem_used_bytes is back where it was once it is destroyed.
# The creates run in the namespace through nsenter, in the cgroup; the
# pinning process runs in the namespace too, outside the cgroup (its
# Python is no filter's memory).  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
CG=/sys/fs/cgroup
P=/sys/module/nf_cuckoo/parameters
grep -qw memory $CG/cgroup.controllers 2>/dev/null ||
	skip_all "no cgroup2 memory controller at $CG"
command -v python3 >/dev/null || skip_all "python3 missing"
command -v nsenter >/dev/null || skip_all "nsenter (util-linux) missing"
isolate "$@"

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
$NOBODY unshare -U -r --net true 2>/dev/null ||
	skip_all "unprivileged user namespaces are disabled here"

plan 7

NFCNL=$SELFTESTS/nfc_nl.py
MiB=1048576
CEIL=24
# 12M entries of 12-bit fingerprints, buckets of 4: a table of 18 MiB;
# two do not fit under 24 MiB.
CAP=12M
TABLE=18
N=16
TMP=$(mktemp -d)
MCGA=$CG/nfceilA$$
MCGB=$CG/nfceilB$$
OLD_NETNS=$(cat $P/netns_mem_max_mb)
OLD_MAX=$(cat $P/mem_max_mb 2>/dev/null)
HOLD=
PIN_PID=
cleanup() {
	[ -n "$PIN_PID" ] && kill "$PIN_PID" 2>/dev/null
	[ -n "$HOLD" ] && kill "$HOLD" 2>/dev/null
	wait 2>/dev/null
	echo "$OLD_NETNS" >$P/netns_mem_max_mb
	[ -n "$OLD_MAX" ] && echo "$OLD_MAX" >$P/mem_max_mb
	rmdir "$MCGA" "$MCGB" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
grep -qw memory $CG/cgroup.subtree_control ||
	echo +memory >$CG/cgroup.subtree_control || bail "cannot enable memcg"
mkdir "$MCGA" "$MCGB" || bail "cannot create the cgroups"
[ -r "$MCGA/memory.peak" ] || bail "no memory.peak in $MCGA"


echo $CEIL >$P/netns_mem_max_mb
[ -n "$OLD_MAX" ] && echo 0 >$P/mem_max_mb
base=$(mem_used)

# The namespace: a process of nobody's in a user and network namespace
# of its own, that the commands below enter.
$NOBODY unshare -U -r --net sleep 3600 &
HOLD=$!
wait_until 10 bash -c '[ "$(readlink /proc/$1/ns/net)" != "$(readlink /proc/self/ns/net)" ]' _ $HOLD ||
	bail "the namespace of pid $HOLD did not come up"
# ns CMD...: CMD in the namespace, as its root (nobody outside).
ns() {
	nsenter -t "$HOLD" -U -n -- "$@"
}
# in_cg CGROUP CMD...: ns CMD..., charged to CGROUP.
in_cg() {
	local cg=$1

	shift
	bash -c 'echo $$ >"$1/cgroup.procs" && t=$2 && shift 2 &&
		 exec nsenter -t "$t" -U -n -- "$@"' _ "$cg" "$HOLD" "$@"
}
# Read cfctl from the disk outside the cgroups.
ns "$CFCTL" list >/dev/null 2>&1

QUOTA_RE="memory ceiling \(netns_mem_max_mb\) \(Disk quota exceeded\)"

# --- no dump: a destroyed filter makes room at once ---
fails=$(in_cg "$MCGB" bash -c '
	for i in $(seq $2); do
		out=$("$1" create x family ip key src capacity $3 2>&1) ||
			echo "create $i: status $?: $out"
		out=$("$1" destroy x 2>&1) || echo "destroy $i: status $?: $out"
	done' _ "$CFCTL" $N $CAP 2>&1)
[ -z "$fails" ] &&
	ok "$N x {create x of $TABLE MiB; destroy x} under a $CEIL MiB ceiling, no dump: every create succeeds" ||
	not_ok "$N x {create x of $TABLE MiB; destroy x} under a $CEIL MiB ceiling, no dump: every create succeeds" \
		"$fails"
diag "their memory.peak: $(( $(cat "$MCGB/memory.peak") / MiB )) MiB"
wait_mem_used "$base" || diag "mem_used_bytes $(mem_used), not back to $base"

# --- SAVE dumps left unread ---
mkfifo "$TMP/pin.in" "$TMP/pin.out"
nsenter -t "$HOLD" -U -n -- python3 "$NFCNL" pin <"$TMP/pin.in" >"$TMP/pin.out" 2>"$TMP/pin.err" &
PIN_PID=$!
exec 8>"$TMP/pin.in" 9<"$TMP/pin.out"
# pin CMD: a command to the pinning process, its answer in PINNED.
pin() {
	echo "$1" >&8
	read -r -t 60 PINNED <&9 || PINNED="no answer: $(cat "$TMP/pin.err")"
}

made=0 pinned=0 quota=0 other='' first='' second='' tbytes=''
for i in $(seq $N); do
	run in_cg "$MCGA" "$CFCTL" create x family ip key src capacity $CAP
	if [ "$RC" = 0 ]; then
		made=$((made + 1))
		if [ $i = 1 ]; then
			st=$(ns "$CFCTL" show x | grep '^Stage 0')
			diag "x: $st"
			tbytes=$(sed -n 's/.* bytes \([0-9]*\) .*/\1/p' <<<"$st")
		fi
		pin "pin x"
		[ "$PINNED" = "pinned x" ] && pinned=$((pinned + 1)) ||
			other+="pin $i: $PINNED"$'\n'
		run ns "$CFCTL" destroy x
		[ "$RC" = 0 ] || other+="destroy $i: status $RC: $OUT"$'\n'
		[ $i = 1 ] && first="made, $PINNED, destroyed (status $RC)"
	elif [ "$RC" = 3 ] && out_matches "$QUOTA_RE"; then
		quota=$((quota + 1))
		[ $i = 1 ] && first="refused: $OUT"
	else
		other+="create $i: status $RC: $OUT"$'\n'
	fi
	[ $i = 2 ] && second="status $RC: $OUT"
done
held=$(( $(mem_used) - base ))
peak=$(cat "$MCGA/memory.peak")
diag "$made made and pinned by their dumps, $quota refused; mem_used_bytes counts $((held / MiB)) MiB; memory.peak $((peak / MiB)) MiB"
[ "$first" = "made, pinned x, destroyed (status 0)" ] &&
	ok "the first x is made, pinned by a SAVE dump left unread, and destroyed" ||
	not_ok "the first x is made, pinned by a SAVE dump left unread, and destroyed" \
		"${first:-}" "$other"
[ $made = 1 ] && [ $quota = $((N - 1)) ] && [ -z "$other" ] &&
	ok "while its dump pins it, the $((N - 1)) creates after it are refused: status 3, EDQUOT, the ceiling's message" ||
	not_ok "while its dump pins it, the $((N - 1)) creates after it are refused: status 3, EDQUOT, the ceiling's message" \
		"$made made, $quota refused" "the second create: ${second:-}" "$other"
# What the pinned filters hold: at least their tables.
[ $pinned -ge 1 ] && [ -n "$tbytes" ] && [ $held -ge $((pinned * tbytes)) ] &&
	ok "mem_used_bytes counts what the $pinned pinned filters hold ($((held / MiB)) MiB)" ||
	not_ok "mem_used_bytes counts what the pinned filters hold" \
		"$pinned pinned filters of tables of ${tbytes:-?} bytes, mem_used_bytes $held bytes over the $base before"
[ "$peak" -lt $((CEIL * MiB)) ] &&
	ok "the memory the creates held at once ($((peak / MiB)) MiB) never exceeded the $CEIL MiB ceiling" ||
	not_ok "the memory the creates held at once ($((peak / MiB)) MiB) never exceeded the $CEIL MiB ceiling" \
		"memory.peak $peak bytes, ceiling $((CEIL * MiB))"

pin release
diag "the pinning process: $PINNED"
exec 8>&- 9<&-
wait "$PIN_PID"
PIN_PID=
try_create() {
	run in_cg "$MCGA" "$CFCTL" create x family ip key src capacity $CAP
	[ "$RC" = 0 ]
}
t0=$(now)
if wait_until 15 try_create; then
	ok "once the dumps' sockets are closed, x is made again (after $(elapsed "$t0") s)"
else
	not_ok "once the dumps' sockets are closed, x is made again (within 15 s)" \
		"status $RC: $OUT"
fi
ns "$CFCTL" destroy x >/dev/null 2>&1
wait_mem_used "$base" && ok "... and once it is destroyed, mem_used_bytes is back where it was" ||
	not_ok "... and once it is destroyed, mem_used_bytes is back where it was" \
		"$(mem_used), was $base"

finish
