#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nf_cuckoo as installed (make install, or the Debian packages), run as
# root inside a VM whose module tree holds the installed module:
#
#   installed.sh CFCTL [UNIT]
#
# CFCTL is the installed cfctl.  Nothing is insmod'ed: the first cfctl
# command must load the module by itself (its genetlink family alias), from
# the module tree (updates/).  Then a flow is dropped and another passes;
# and from an iptables rule (-m cuckoo, the extension from the same
# install: libxt_cuckoo.so under CFCTL's root) whose match loads xt_cuckoo
# by itself, a flow of a filter of no hook of its own.
# With UNIT (the nf-cuckoo.service file), the unit's own ExecStop lines save
# three filters holding 100,000 entries, the module is unloaded, the unit's
# own ExecCondition and ExecStart lines load and restore it, and every
# entry and every setting must be back; ExecStart again (a restart) keeps
# what the kernel holds; ExecReload replaces the filters the file names
# and leaves the others; a file cut short fails ExecStart, nothing is
# created and the file is kept; ExecStop with the module unloaded saves
# nothing.  The unit's state directory is moved to a scratch directory
# (the VM's root is read-only) and cfctl is CFCTL; nothing else of its
# lines changes.
#
# Prints TAP; exit status 0 when every point passed.

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TEST=installed
# shellcheck source=../tap.sh
. "$HERE/../tap.sh"

CFCTL=$1
UNIT=${2:-}
PY=(/usr/bin/python3 -I -S "$HERE/../packet/nfcpkt.py")
NS=inst-client
CLIENT=10.0.0.1
HOST=10.0.0.2
SCRATCH=$(mktemp -d)
N=100000

plan $([ -n "$UNIT" ] && echo 16 || echo 7)

cleanup() {
	"$CFCTL" destroy >/dev/null 2>&1
	nft delete table inet inst 2>/dev/null
	iptables -F INPUT 2>/dev/null
	ip netns del $NS 2>/dev/null
	rm -rf "$SCRATCH"
}
trap cleanup EXIT

[ ! -d /sys/module/nf_cuckoo ] && ok "nf_cuckoo is not loaded at first" ||
	not_ok "nf_cuckoo is not loaded at first"

out=$("$CFCTL" create bl capacity 1000 2>&1)
if [ $? = 0 ] && [ -d /sys/module/nf_cuckoo ]; then
	ok "cfctl create loads the module by itself"
else
	not_ok "cfctl create loads the module by itself" "$out"
fi

path=$(modinfo -n nf_cuckoo 2>&1)
case $path in
*/updates/*nf_cuckoo.ko*) ok "modprobe finds nf_cuckoo in updates/ ($path)" ;;
*) not_ok "modprobe finds nf_cuckoo in updates/" "$path" ;;
esac

ip netns add $NS &&
ip link add veth0 type veth peer name veth1 netns $NS &&
ip addr add $HOST/24 dev veth0 && ip link set veth0 up &&
ip -n $NS addr add $CLIENT/24 dev veth1 && ip -n $NS link set veth1 up &&
nft -f - <<EOF || bail "cannot set up the network"
table inet inst {
	counter c5000 {}
	counter c5001 {}
	chain input {
		type filter hook input priority 0;
		ip saddr $CLIENT udp dport 5000 counter name c5000
		ip saddr $CLIENT udp dport 5001 counter name c5001
	}
}
EOF

arrived() {	# DPORT: datagrams of 5 sent from port 40000 that arrived
	local c=c$1 before after

	before=$(nft list counter inet inst $c | awk '$1 == "packets" { print $2 }')
	ip netns exec $NS "${PY[@]}" udp --dst $HOST --sport 40000 \
		--dport "$1" -n 5 >/dev/null
	after=$(nft list counter inet inst $c | awk '$1 == "packets" { print $2 }')
	echo $((after - before))
}

"$CFCTL" add bl udp $CLIENT:40000 $HOST:5000 || not_ok "cfctl add"
a=$(arrived 5000)
[ "$a" = 0 ] && ok "the flow added is dropped (0 of 5 arrived)" ||
	not_ok "the flow added is dropped" "$a of 5 arrived"
a=$(arrived 5001)
[ "$a" = 5 ] && ok "another flow passes (5 of 5 arrived)" ||
	not_ok "another flow passes" "$a of 5 arrived"
"$CFCTL" destroy bl

# An iptables rule: /usr/sbin/cfctl's extension is in the system's xtables
# directory, make install's under DESTDIR's (CFCTL's root).
root=${CFCTL%/usr/*}
export XTABLES_LIBDIR=$root/usr/lib/x86_64-linux-gnu/xtables:/usr/lib/x86_64-linux-gnu/xtables
"$CFCTL" create rl family ip hook none &&
	"$CFCTL" add rl udp $CLIENT:40000 $HOST:5001 || not_ok "cfctl create rl"
out=$(iptables -A INPUT -m cuckoo --filter rl -j DROP 2>&1)
rc=$?
path=$(modinfo -n xt_cuckoo 2>&1)
if [ $rc = 0 ] && [ -d /sys/module/xt_cuckoo ]; then
	case $path in
	*/updates/*xt_cuckoo.ko*) ok "iptables -m cuckoo loads xt_cuckoo from updates/ by itself ($path)" ;;
	*) not_ok "iptables -m cuckoo loads xt_cuckoo from updates/" "$path" ;;
	esac
else
	not_ok "iptables -m cuckoo --filter rl -j DROP" "status $rc: $out"
fi
a=$(arrived 5001)
b=$(arrived 5000)
[ "$a" = 0 ] && [ "$b" = 5 ] &&
	ok "the rule drops the filter's flow (0 of 5), another passes (5 of 5)" ||
	not_ok "the rule drops the filter's flow, another passes" "$a and $b of 5 arrived"
iptables -D INPUT -m cuckoo --filter rl -j DROP
# The rule's release may come a moment later (nftables' commit work).
for ((i = 0; i < 50; i++)); do
	rmmod xt_cuckoo 2>/dev/null && break
	sleep 0.2
done
"$CFCTL" destroy rl

[ -n "$UNIT" ] || finish

# The unit's lines of KEY, the state directory moved to the scratch one,
# cfctl (which systemd finds in its PATH) the one under test.
unit_lines() {
	sed -n "s/^$1=//p" "$UNIT" |
		sed -e "s|/var/lib/nf-cuckoo|$SCRATCH/state|g" \
		    -e "s|exec cfctl |exec $CFCTL |g"
}
run_lines() {	# KEY: run the unit's KEY lines in order, stop at a failure
	local line

	# (a here-string: the VM has no /dev/fd for a process substitution)
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		eval "$line" || return 1
	done <<<"$(unit_lines "$1")"
}
mkdir -p "$SCRATCH/state"

settings() {	# every filter's settings, a line each, counters and ids left out
	"$CFCTL" -j list | python3 -c '
import json, sys
for f in json.load(sys.stdin):
	f.pop("stats", None)
	f.pop("id", None)
	print(json.dumps(f, sort_keys=True))'
}

# Three filters of different settings, 100,000 entries between them.
"$CFCTL" create f4 family ip capacity 60000 hook input priority -10 \
	action mark 0x42/0xff &&
"$CFCTL" create f6 family ip6 key src,proto capacity 30000 fpr 0.0001 \
	hook forward action count invert &&
"$CFCTL" create fi capacity 30000 hook output priority 5 bidirectional \
	disabled ||
	bail "cannot create the filters"
python3 - "$SCRATCH" "$N" <<'EOF' || bail "cannot write the entries"
import sys
d, n = sys.argv[1], int(sys.argv[2])
with open(d + "/f4", "w") as f:
	for i in range(n // 2):
		f.write("udp 10.%d.%d.%d:%d 192.0.2.1:53\n" % (i >> 16, (i >> 8) & 255, i & 255, 1024 + i % 50000))
with open(d + "/f6", "w") as f:
	for i in range(n // 4):
		f.write("tcp src 2001:db8::%x\n" % (i + 1))
with open(d + "/fi", "w") as f:
	for i in range(n // 4):
		f.write("tcp 198.51.100.%d:%d 203.0.113.9:443\n" % (i % 250, 1024 + i))
EOF
for f in f4 f6 fi; do
	"$CFCTL" add -f "$SCRATCH/$f" $f || bail "cannot add the entries of $f"
done
settings >"$SCRATCH/before"

out=$(run_lines ExecStop 2>&1)
[ $? = 0 ] && [ -s "$SCRATCH/state/filters.save" ] &&
	ok "the unit's ExecStop saves the filters" ||
	not_ok "the unit's ExecStop saves the filters" "$out"

"$CFCTL" destroy && rmmod nf_cuckoo || bail "cannot unload nf_cuckoo"
out=$(run_lines ExecCondition 2>&1 && run_lines ExecStart 2>&1)
[ $? = 0 ] && [ -d /sys/module/nf_cuckoo ] &&
	ok "the unit's ExecCondition and ExecStart load the module and restore" ||
	not_ok "the unit's ExecCondition and ExecStart load the module and restore" "$out"

settings >"$SCRATCH/after"
if cmp -s "$SCRATCH/before" "$SCRATCH/after"; then
	ok "every setting of the three filters is back"
else
	not_ok "every setting of the three filters is back" \
		"$(diff "$SCRATCH/before" "$SCRATCH/after")"
fi

missing=
for f in f4 f6 fi; do
	"$CFCTL" -q test -f "$SCRATCH/$f" $f >/dev/null || missing="$missing $f"
done
[ -z "$missing" ] && ok "all $N entries are found after the restore" ||
	not_ok "all $N entries are found after the restore" "missing in:$missing"

# A restart (an upgrade's too) runs ExecStart with the filters loaded: it
# keeps what the kernel holds, an entry added since the save included.
"$CFCTL" add f4 udp 10.200.0.1:9 192.0.2.1:53 || bail "cannot add to f4"
out=$(run_lines ExecStart 2>&1)
rc=$?
settings >"$SCRATCH/restarted"
if [ $rc = 0 ] && "$CFCTL" -q test f4 udp 10.200.0.1:9 192.0.2.1:53 &&
   grep -q "3 filters kept" <<<"$out"; then
	ok "ExecStart with the filters loaded (a restart) succeeds and keeps them as they are"
else
	not_ok "ExecStart with the filters loaded (a restart) succeeds and keeps them" \
		"status $rc: $out"
fi

# Reload: the filters the file names are replaced by what it holds (f4's
# later entry gone, f6 destroyed meanwhile back); one it does not name
# stays.
"$CFCTL" create extra capacity 100 && "$CFCTL" destroy f6 ||
	bail "cannot change the filters"
out=$(run_lines ExecReload 2>&1)
rc=$?
settings | grep -v '"name": "extra"' >"$SCRATCH/reloaded"
if [ $rc = 0 ] && cmp -s "$SCRATCH/before" "$SCRATCH/reloaded" &&
   "$CFCTL" show extra >/dev/null 2>&1 &&
   ! "$CFCTL" -q test f4 udp 10.200.0.1:9 192.0.2.1:53 >/dev/null 2>&1; then
	ok "ExecReload puts back what the file holds for the filters it names, leaves the others"
else
	not_ok "ExecReload puts back what the file holds for the filters it names, leaves the others" \
		"status $rc: $out" "$(diff "$SCRATCH/before" "$SCRATCH/reloaded")"
fi
missing=
for f in f4 f6 fi; do
	"$CFCTL" -q test -f "$SCRATCH/$f" $f >/dev/null || missing="$missing $f"
done
[ -z "$missing" ] && ok "... all $N entries found after the reload" ||
	not_ok "... all $N entries found after the reload" "missing in:$missing"
"$CFCTL" destroy extra

# A file that cannot be restored (its last lines cut off): the start fails
# before anything is applied, saying why, and the file is kept as it was
# for the next try.
head -n -1 "$SCRATCH/state/filters.save" >"$SCRATCH/cut" &&
	cp "$SCRATCH/cut" "$SCRATCH/state/filters.save" ||
	bail "cannot write the cut file"
"$CFCTL" destroy && rmmod nf_cuckoo || bail "cannot unload nf_cuckoo"
out=$(run_lines ExecStart 2>&1)
rc=$?
if [ $rc != 0 ] && grep -q "cut short; nothing was applied" <<<"$out" &&
   cmp -s "$SCRATCH/cut" "$SCRATCH/state/filters.save" &&
   [ -z "$("$CFCTL" list -n)" ]; then
	ok "a save cut short fails ExecStart (status $rc), with the reason; nothing is created, the file is kept"
else
	not_ok "a save cut short fails ExecStart, with the reason; nothing is created, the file is kept" \
		"status $rc: $out"
fi

# Stopped with the module unloaded: nothing to save, the file kept.
rmmod nf_cuckoo || bail "cannot unload nf_cuckoo"
out=$(run_lines ExecStop 2>&1)
rc=$?
if [ $rc = 0 ] && [ ! -d /sys/module/nf_cuckoo ] &&
   cmp -s "$SCRATCH/cut" "$SCRATCH/state/filters.save" &&
   grep -q "not loaded: nothing to save" <<<"$out"; then
	ok "ExecStop with the module unloaded saves nothing and keeps the file"
else
	not_ok "ExecStop with the module unloaded saves nothing and keeps the file" \
		"status $rc: $out"
fi
finish
