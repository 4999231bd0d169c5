#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The memory ceilings bound what filters hold, parallel requests included.
#
# 16 creates of filters of 36 MiB run at once, as an unprivileged user in
# a user and network namespace of its own, under a 64 MiB ceiling for the
# namespace: one succeeds, every other says why (EDQUOT with the
# ceiling's message, or EEXIST: the names come in pairs), and the memory
# they held never exceeded the ceiling.  That is measured by the kernel,
# not by the module: the tables are charged to the caller's memory cgroup,
# and the test's cgroup's memory.peak is its high-water mark, however
# brief (a table allocated, zeroed and freed by a refused request counts).
#
# Then the module-wide ceiling (mem_max_mb) refuses a filter of a second
# namespace that its own ceiling would take, for NEW and for a restore
# (LOAD_BEGIN), and takes it once the first namespace's filter is gone;
# mem_used_bytes follows.  The module's parameters are put back at the end.
# TAP output.

. "$(dirname "$0")/lib.sh"
require_env
CG=/sys/fs/cgroup
P=/sys/module/nf_cuckoo/parameters
grep -qw memory $CG/cgroup.controllers 2>/dev/null ||
	skip_all "no cgroup2 memory controller at $CG"
isolate "$@"

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
$NOBODY unshare -U -r --net true 2>/dev/null ||
	skip_all "unprivileged user namespaces are disabled here"

plan 14

TMP=$(mktemp -d)
chmod 777 "$TMP"
MCG=$CG/nfceil$$
OLD_NETNS=$(cat $P/netns_mem_max_mb)
# A module without them fails here, but part one still measures it.
OLD_MAX=$(cat $P/mem_max_mb) ||
	not_ok "the module has a module-wide ceiling, $P/mem_max_mb"
cleanup() {
	echo "$OLD_NETNS" >$P/netns_mem_max_mb
	[ -n "$OLD_MAX" ] && echo "$OLD_MAX" >$P/mem_max_mb
	rmdir "$MCG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
grep -qw memory $CG/cgroup.subtree_control ||
	echo +memory >$CG/cgroup.subtree_control || bail "cannot enable memcg"
mkdir "$MCG" || bail "cannot create $MCG"
[ -r "$MCG/memory.peak" ] || bail "no memory.peak in $MCG"

MiB=1048576
CEIL=64
# 24M entries of 12-bit fingerprints, buckets of 4: a 36 MiB table; two
# do not fit under 64 MiB.
CAP=24M

# --- 16 at once, rootless, under the namespace's ceiling ---

echo $CEIL >$P/netns_mem_max_mb
[ -n "$OLD_MAX" ] && echo 0 >$P/mem_max_mb
base=$(mem_used)
cat >"$TMP/par.sh" <<EOF
for i in \$(seq 0 15); do
	( "$CFCTL" create f\$((i % 8)) capacity $CAP >"$TMP/out.\$i" 2>&1
	  echo \$? >"$TMP/rc.\$i" ) &
done
wait
cat $P/mem_used_bytes >"$TMP/used"
"$CFCTL" list -n >"$TMP/list"
EOF
# The shell joins the cgroup as root, then drops every privilege: all
# that runs from there on (and the tables it makes) is charged there.
run bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$MCG" \
	$NOBODY unshare -U -r --net bash "$TMP/par.sh"
[ "$RC" = 0 ] || diag "the parallel creates: status $RC" "$OUT"

won=0 quota=0 exists=0 other=0
for i in $(seq 0 15); do
	rc=$(cat "$TMP/rc.$i" 2>/dev/null)
	out=$(cat "$TMP/out.$i" 2>/dev/null)
	if [ "$rc" = 0 ]; then
		won=$((won + 1))
	elif [ "$rc" = 3 ] && grep -qE "memory ceiling \(netns_mem_max_mb\) \(Disk quota exceeded\)" <<<"$out"; then
		quota=$((quota + 1))
	elif [ "$rc" = 3 ] && grep -qE "exists.* \(File exists\)" <<<"$out"; then
		exists=$((exists + 1))
	else
		other=$((other + 1))
		diag "create $i: status $rc: $out"
	fi
done
[ $won = 1 ] && ok "16 parallel rootless creates of 36 MiB under a ${CEIL} MiB ceiling: one succeeds" ||
	not_ok "16 parallel rootless creates of 36 MiB under a ${CEIL} MiB ceiling: one succeeds" \
		"$won succeeded" "list: $(cat "$TMP/list" 2>/dev/null)"
[ $other = 0 ] && [ $((quota + exists)) = $((16 - won)) ] && [ $quota -ge 1 ] && [ $exists -ge 1 ] &&
	ok "every refused one says why: $quota EDQUOT with the ceiling's message, $exists EEXIST" ||
	not_ok "every refused one says why: $quota EDQUOT with the ceiling's message, $exists EEXIST" \
		"$other others"
peak=$(cat "$MCG/memory.peak")
diag "the cgroup's memory peak: $((peak / MiB)) MiB ($peak bytes)"
[ "$peak" -lt $((CEIL * MiB)) ] &&
	ok "the memory they held at once ($((peak / MiB)) MiB) never exceeded the ceiling" ||
	not_ok "the memory they held at once ($((peak / MiB)) MiB) never exceeded the ceiling" \
		"memory.peak $peak bytes, ceiling $((CEIL * MiB))"
held=$(( $(cat "$TMP/used" 2>/dev/null || echo 0) - ${base/none/0} ))
[ $held -ge $((35 * MiB)) ] && [ $held -le $((37 * MiB)) ] &&
	ok "mem_used_bytes counted the filter that was made ($held bytes)" ||
	not_ok "mem_used_bytes counted the filter that was made ($held bytes)"
wait_mem_used "$base" && ok "... and nothing once its namespace is gone" ||
	not_ok "... and nothing once its namespace is gone" "$(mem_used), was $base"

# --- the module-wide ceiling, across two namespaces ---

[ -n "$OLD_MAX" ] || bail "no module-wide ceiling to test"
echo $CEIL >$P/mem_max_mb
base=$(mem_used)
check "one namespace makes a 36 MiB filter under a module-wide ceiling of $CEIL MiB" \
	"$CFCTL" create a family ip key src capacity $CAP
"$CFCTL" add a src 10.0.0.1 >/dev/null
check "the big filter is flushed" "$CFCTL" flush a
check "... and saved" "$CFCTL" save -f "$TMP/a.save" a
# Renamed, so no longer the save its checksum (first and last lines) says.
sed '1d;$d; s/^create a /create b /; s/^load a /load b /' "$TMP/a.save" >"$TMP/b.save"
chmod 644 "$TMP/b.save"
MSG="module's memory ceiling \(mem_max_mb\) \(Disk quota exceeded\)"
expect "another namespace, under its own ceiling, is refused by the module's (NEW)" 3 \
	"$MSG" unshare --net "$CFCTL" create b capacity $CAP
expect "... and so is a restore there (LOAD_BEGIN)" 3 "$MSG" \
	unshare --net "$CFCTL" restore -f "$TMP/b.save"
expect "... as an unprivileged user in a namespace of its own, too" 3 "$MSG" \
	$NOBODY unshare -U -r --net "$CFCTL" create b capacity $CAP
"$CFCTL" destroy a
check "once the first filter is gone, the other namespace restores its copy" \
	unshare --net bash -c "'$CFCTL' restore -f '$TMP/b.save' && '$CFCTL' list -n | grep -qx b"
wait_mem_used "$base" || diag "mem_used_bytes $(mem_used), not back to $base"
check "... and the first namespace can make it again" "$CFCTL" create a capacity $CAP
"$CFCTL" destroy a
[ "$(mem_used)" = "$base" ] && ok "mem_used_bytes is back where it was" ||
	not_ok "mem_used_bytes is back where it was" "$(mem_used), was $base"

finish
