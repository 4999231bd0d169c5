#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: a narrated session with nf_cuckoo in a QEMU VM.  Boots the
# VM (selftests/vm/vm.sh), then, as root in it: insmod, a client network
# namespace joined to the VM by a veth pair, `cfctl create blocklist`, a
# UDP flow that passes, `cfctl add`, the same flow dropped, a second filter
# that marks another flow (an nftables counter on the mark proves it),
# `cfctl show` with the counters, `cfctl del`, the flow passing again.
# Every step is checked: the exit status is 0 only if each behaved as
# narrated.
#
#   demo.sh             boot the VM and run the demo in it
#   demo.sh --in-vm     the demo itself (as root, module not loaded)

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
KO=$REPO/nf_cuckoo.ko

if [ "${1:-}" != --in-vm ]; then
	for f in "$KO" "$REPO/tools/cfctl/cfctl"; do
		[ -e "$f" ] || { echo "demo: $f is not built (make)" >&2; exit 1; }
	done
	# Boot the kernel the module was built for.
	kver=$(modinfo -F vermagic "$KO" | cut -d' ' -f1)
	exec "$HERE/vm/vm.sh" --timeout 300 --kver "$kver" --cwd "$REPO" -- \
		"$0" --in-vm
fi

export PATH=$REPO/tools/cfctl:$PATH
PY=(/usr/bin/python3 -I -S "$HERE/packet/nfcpkt.py")
CLIENT=10.0.0.1
HOST=10.0.0.2
NS=demo-client
failed=0
checks=0
T0=$SECONDS

say() {
	echo
	printf "%s\n" "$@" | fmt -w 76
}

# show CMD...: print it as typed, run it, indent its output.
show() {
	local out rc

	echo "  \$ $*"
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /'
	if [ $rc != 0 ]; then
		echo "    [FAILED: exit status $rc]"
		failed=$((failed + 1))
	fi
	return $rc
}

# expect WHAT GOT WANT
expect() {
	checks=$((checks + 1))
	if [ "$2" = "$3" ]; then
		echo "    -> $1: $2 [as expected]"
	else
		echo "    -> $1: $2 [FAILED: expected $3]"
		failed=$((failed + 1))
	fi
}

# counter NAME: packets the host's nftables counter NAME has seen.
counter() {
	nft list counter inet demo "$1" | awk '$1 == "packets" { print $2 }'
}

# send SPORT DPORT: five datagrams from the client; ARRIVED is how many
# of them the host's counter for that flow saw arrive.
send() {
	local before after

	before=$(counter "f$2")
	echo "  [client] sends 5 UDP datagrams $CLIENT:$1 -> $HOST:$2"
	ip netns exec $NS "${PY[@]}" udp --dst $HOST --sport "$1" --dport "$2" \
		-n 5 >/dev/null
	after=$(counter "f$2")
	ARRIVED=$((after - before))
}

# pkts FILTER FIELD: a packet counter from `cfctl show -j`.
pkts() {
	cfctl -j show "$1" | python3 -c "import json, sys
print(json.load(sys.stdin)['stats']['packets']['$2'])"
}

cleanup() {
	cfctl destroy >/dev/null 2>&1
	nft delete table inet demo 2>/dev/null
	ip netns del $NS 2>/dev/null
}
trap cleanup EXIT

echo "=== nf_cuckoo demo: Linux $(uname -r) in QEMU, $(nproc) CPUs ==="
say "Load the module.  It registers no netfilter hook until a filter needs one."
show insmod "$KO" || exit 1

# The stage: quiet, it is not what the demo is about.
ip netns add $NS &&
ip link add veth0 type veth peer name veth1 netns $NS &&
ip addr add $HOST/24 dev veth0 && ip link set veth0 up &&
ip -n $NS addr add $CLIENT/24 dev veth1 && ip -n $NS link set veth1 up &&
ip -n $NS link set lo up &&
nft -f - <<EOF || { echo "demo: cannot set up the network" >&2; exit 1; }
table inet demo {
	counter f5000 {}
	counter f5002 {}
	counter f5001 {}
	counter marked {}
	chain input {
		type filter hook input priority 0;
		ip saddr $CLIENT udp dport 5000 counter name f5000
		ip saddr $CLIENT udp dport 5002 counter name f5002
		ip saddr $CLIENT udp dport 5001 counter name f5001
		ip saddr $CLIENT meta mark 0x42 counter name marked
	}
}
EOF
say "A client network namespace ($CLIENT) is joined to this machine ($HOST) \
by a veth pair.  An nftables input chain here counts the datagrams that \
arrive for each port, and those that carry mark 0x42."

say "1. A flow the client sends passes: nothing blocks it yet."
send 40000 5000
expect "datagrams that arrived" "$ARRIVED" 5

say "2. Create a blocklist: a cuckoo filter for 100000 flows at a false \
positive rate of 0.1%, on the prerouting hook, action drop (the default)."
show cfctl create blocklist capacity 100000 fpr 0.001
show cfctl add blocklist udp $CLIENT:40000 $HOST:5000
show cfctl test blocklist udp $CLIENT:40000 $HOST:5000

say "3. The same flow again: the hook finds it in the filter and drops it."
send 40000 5000
expect "datagrams that arrived" "$ARRIVED" 0
say "   The same hosts on another port are not in the filter:"
send 40000 5002
expect "datagrams that arrived" "$ARRIVED" 5

say "4. A second filter marks another flow instead of dropping it.  \
The packets go on, carrying mark 0x42 for nftables, tc or policy routing."
show cfctl create marker capacity 1000 action mark 0x42
show cfctl add marker udp $CLIENT:40001 $HOST:5001
m0=$(counter marked)
send 40001 5001
expect "datagrams that arrived" "$ARRIVED" 5
expect "of them with mark 0x42 (nftables counter)" $(($(counter marked) - m0)) 5

say "5. The filters, with their packet counters:"
show cfctl show blocklist
expect "blocklist: packets dropped" "$(pkts blocklist dropped)" 5
show cfctl show marker
expect "marker: packets marked" "$(pkts marker marked)" 5

say "6. Delete the entry: the flow passes again."
show cfctl del blocklist udp $CLIENT:40000 $HOST:5000
send 40000 5000
expect "datagrams that arrived" "$ARRIVED" 5

say "7. Clean up: destroy the filters (their hooks go with them), unload."
show cfctl destroy blocklist marker
show rmmod nf_cuckoo

echo
if [ "$failed" = 0 ]; then
	echo "=== demo: every step behaved as narrated ($checks checks, $((SECONDS - T0)) s in the VM) ==="
	exit 0
fi
echo "=== demo: $failed step(s) did NOT behave as narrated ==="
exit 1
