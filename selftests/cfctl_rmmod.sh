#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod with filters present, in several network namespaces, some with
# entries, one grown to several stages and one being restored: the module
# unloads cleanly (no warning
# in the kernel log), cfctl then says the module is not loaded, and once
# the module is back no filter survived.  Reloads the module afterwards.
# Run it last.  TAP output.
#
#   NF_CUCKOO_KO   the module file to load again (default: nf_cuckoo.ko of
#                  this tree if present, else modprobe nf_cuckoo)

. "$(dirname "$0")/lib.sh"
require_env
command -v ip >/dev/null || skip_all "ip (iproute2) missing"
KO=${NF_CUCKOO_KO:-$REPO/nf_cuckoo.ko}
reload() {
	if [ -f "$KO" ]; then
		insmod "$KO"
	else
		modprobe nf_cuckoo
	fi
}
[ -f "$KO" ] || modinfo nf_cuckoo >/dev/null 2>&1 ||
	skip_all "cannot load the module again afterwards (no $KO, no modinfo nf_cuckoo)"
isolate "$@"

A=cft-rm-$$
TMP=$(mktemp -d)
cleanup() {
	[ -n "${HOLD:-}" ] && kill "$HOLD" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	rm -rf "$TMP"
	[ -d /sys/module/nf_cuckoo ] || reload
}
trap cleanup EXIT
ip netns add "$A" || skip_all "cannot create network namespaces"

plan 11

MARK="cfctl_rmmod $$ $(date +%s%N)"
echo "$MARK" >/dev/kmsg

"$CFCTL" create here capacity 100000
"$CFCTL" add here udp 10.0.0.1:1 10.0.0.2:2 "tcp [2001:db8::1]:1 [2001:db8::2]:2"
ip netns exec "$A" "$CFCTL" create there family ip6 key src hook output action mark 1
ip netns exec "$A" "$CFCTL" add there src 2001:db8::1
ip netns exec "$A" "$CFCTL" create idle capacity 1M disabled
# A filter that grew: capacity 10 holding 1000 entries, in 7 stages.
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "udp 10.3.%d.%d:1 10.4.0.1:2\n", i / 256, i % 256 }' >"$TMP/grown"
ip netns exec "$A" "$CFCTL" create grown capacity 10
ip netns exec "$A" "$CFCTL" add -f "$TMP/grown" grown
n=$({ "$CFCTL" list -n; ip netns exec "$A" "$CFCTL" list -n; } | wc -l)
[ "$n" = 4 ] && ok "four filters in two namespaces" || not_ok "four filters in two namespaces" "$n"
ns=$(ip netns exec "$A" "$CFCTL" -j show grown | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["stages"]))' 2>&1)
[ "${ns:-0}" -gt 1 ] 2>/dev/null && ok "one of them grew to $ns stages" ||
	not_ok "one of them grew to several stages" "$ns"

# A restore left half way: a socket that began a load (NF_CUCKOO_CMD_LOAD_BEGIN
# with a real image header) and holds it open.
IMG=$("$CFCTL" save here | sed -n 's/^create here .* image //p')
python3 - "$IMG" >"$TMP/hold.out" 2>&1 <<'EOF2' &
import base64, socket, struct, sys, time
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)  # NETLINK_GENERIC
s.bind((0, 0))
def attr(t, data):
    n = 4 + len(data)
    return struct.pack("=HH", n, t) + data + b"\0" * ((4 - n % 4) % 4)
def request(fam, cmd, attrs, flags, seq):
    body = struct.pack("=BBH", cmd, 1, 0) + attrs
    s.send(struct.pack("=IHHII", 16 + len(body), fam, flags, seq, 0) + body)
    return s.recv(65536)
# CTRL_CMD_GETFAMILY (3) of GENL_ID_CTRL (0x10), CTRL_ATTR_FAMILY_NAME (2)
data = request(0x10, 3, attr(2, b"nf_cuckoo\0"), 1, 1)
off, fam = 20, None
while off + 4 <= len(data):
    n, t = struct.unpack_from("=HH", data, off)
    if t == 1:  # CTRL_ATTR_FAMILY_ID
        fam = struct.unpack_from("=H", data, off + 4)[0]
    off += (n + 3) & ~3
# NF_CUCKOO_CMD_LOAD_BEGIN (10): NAME (2), FAMILY (3) inet, IMAGE_HEADER (28)
ack = request(fam, 10, attr(2, b"half\0") + attr(3, b"\x03") +
              attr(28, base64.b64decode(sys.argv[1])), 1 | 4, 2)
print("LOAD_BEGIN:", struct.unpack_from("=i", ack, 16)[0], flush=True)
time.sleep(120)
EOF2
HOLD=$!
for i in $(seq 1 50); do
	grep -q LOAD_BEGIN "$TMP/hold.out" 2>/dev/null && break
	sleep 0.2
done
[ "$(jfield half 'f["loading"]')" = True ] && ok "and one being restored (loading)" ||
	not_ok "and one being restored (loading)" "$(cat "$TMP/hold.out")" "$("$CFCTL" list 2>&1)"

run rmmod nf_cuckoo
[ "$RC" = 0 ] && ok "rmmod with filters present" || not_ok "rmmod with filters present" "$OUT"
[ ! -e /sys/module/nf_cuckoo ] && ok "the module is gone" || not_ok "the module is gone"
expect "cfctl now says the module is not loaded" 3 \
	"^cfctl: list: the nf_cuckoo module is not loaded" "$CFCTL" list
[ -n "$HOLD" ] && kill "$HOLD" 2>/dev/null
HOLD=
check "load the module again" reload
run "$CFCTL" list -n
[ "$RC" = 0 ] && [ -z "$OUT" ] && ok "no filter survived here" || not_ok "no filter survived here" "$OUT"
run ip netns exec "$A" "$CFCTL" list -n
[ "$RC" = 0 ] && [ -z "$OUT" ] && ok "nor in the other namespace" ||
	not_ok "nor in the other namespace" "$OUT"
check "and filters can be made again" "$CFCTL" create again

bad=$(dmesg | sed -n "/$MARK/,\$p" | sed 1d |
	grep -E 'BUG:|WARNING:|Oops|general protection|refcount_t|leak|KASAN|UBSAN' |
	grep -vE 'loading out-of-tree module taints kernel|module verification failed')
[ -z "$bad" ] && ok "no BUG/WARNING/Oops in the kernel log" ||
	not_ok "no BUG/WARNING/Oops in the kernel log" "$bad"

finish
