#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl build makes a filter's image without the module, with the
# module's core run in userspace.  Here the module is loaded to check it:
# for filters of several kinds, the image built offline is byte for byte
# the kernel's save of the same filter (created with the same seed, the
# same entries added in the same order), but for the first line, a
# comment; the offline image restores, every entry of it tests present,
# and saved again it is the image; build refuses what add refuses, in the
# same words.  Also times a build against the kernel's add of the same
# entries (a diagnostic, not a test).  TAP output.
#
#   CFT_BUILD_ENTRIES   entries of the timed filter (default 200000)

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

N=${CFT_BUILD_ENTRIES:-200000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

plan 24
kmsg_mark

# 5-tuples of both families, the first 20 twice (stored twice).
{
	for i in $(seq 1 3000); do
		echo "udp 10.$((i / 65536)).$((i / 256 % 256)).$((i % 256)):$((i % 60000 + 1)) 192.0.2.1:53"
	done
	for i in $(seq 1 1000); do
		printf 'tcp [2001:db8::%x]:%d [2001:db8:1::1]:443\n' "$i" "$i"
	done
	for i in $(seq 1 20); do
		echo "udp 10.0.0.$i:$((i + 1)) 192.0.2.1:53"
	done
} >"$TMP/mix"
# Bidirectional IPv6, filled to 95% of its slots: inserts search for room.
for i in $(seq 1 1900); do
	printf 'tcp [2001:db8:2::%x]:%d [2001:db8:3::%x]:22\n' "$i" $((1000 + i)) $((i % 7))
done >"$TMP/bi"
# Sources only, 8-bit fingerprints (false positives: -exist skips some).
for i in $(seq 0 1199); do echo "src 172.16.$((i / 256)).$((i % 256))"; done >"$TMP/srcs"
# A filter of a packet key without addresses, and every packet parameter.
for p in $(seq 1 500); do echo "proto udp dport $p"; done >"$TMP/ports"
# The timed one.
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
	printf "udp 10.%d.%d.%d:%d 192.0.2.1:53\n", int(i / 65536) % 256,
		int(i / 256) % 256, i % 256, 1024 + int(i / 16777216) }' >"$TMP/big"

# same_image NAME FILE EXIST PARAMETERS...: build NAME offline; create and
# add it in the kernel (EXIST: -exist or ""); two test points: the build,
# and the image against the kernel's save but for line 1.
same_image() {
	local name=$1 file=$2 x=$3 desc
	shift 3
	desc="$name ($*${x:+, $x})"
	run "$CFCTL" ${x:+"$x"} build -f "$file" -o "$TMP/$name.img" "$name" "$@"
	if [ "$RC" = 0 ] && [ -s "$TMP/$name.img" ]; then
		ok "build $desc offline"
	else
		not_ok "build $desc offline" "status $RC" "$OUT"
	fi
	"$CFCTL" create "$name" "$@" &&
		"$CFCTL" ${x:+"$x"} add -f "$file" "$name" &&
		"$CFCTL" save -f "$TMP/$name.save" "$name"
	if same_but_line1 "$TMP/$name.img" "$TMP/$name.save"; then
		ok "$desc: the offline image is the kernel's save, but for line 1"
	else
		not_ok "$desc: the offline image is the kernel's save, but for line 1" \
			"$(diff "$TMP/a.body" "$TMP/b.body" | cut -c1-160 | head)"
	fi
}

# same_but_line1 A B: the files agree but for their first line (who made
# them) and their last (the checksum, of the first line too).  Through
# files: the VM has no /dev/fd for <(...).
same_but_line1() {
	sed '1d;$d' "$1" >"$TMP/a.body" && sed '1d;$d' "$2" >"$TMP/b.body" &&
		cmp -s "$TMP/a.body" "$TMP/b.body"
}

same_image mix "$TMP/mix" "" capacity 8000 seed 0x1234abcd
same_image bi "$TMP/bi" "" family ip6 bidirectional bucket 8 kicks 50 fingerprint 16 capacity 2000 seed 99
same_image srcs "$TMP/srcs" -exist family ip key src fingerprint 8 bucket 2 capacity 1200 seed 5
same_image ports "$TMP/ports" "" key dport,proto hook output priority -150 action mark 0x20/0xf0 invert disabled capacity 1000 seed 0xffffffffffffffff

head -1 "$TMP/mix.img" | grep -q "^# nf_cuckoo save 2: a filter built offline by cfctl " &&
	head -1 "$TMP/mix.save" | grep -q "^# nf_cuckoo save 2: filters saved by cfctl .* from nf_cuckoo " &&
	ok "line 1: the image says it was built offline, the save names the module" ||
	not_ok "line 1: the image says it was built offline, the save names the module" \
		"$(head -1 "$TMP/mix.img")" "$(head -1 "$TMP/mix.save")"

# The timed filter: build offline, then add in the kernel, in this run.
t0=$(now)
run "$CFCTL" build -f "$TMP/big" -o "$TMP/big.img" big capacity "$N" seed 7
tb=$(elapsed "$t0")
[ "$RC" = 0 ] && ok "build of $N entries offline: $tb s" ||
	not_ok "build of $N entries offline" "status $RC" "$OUT"
check "create big in the kernel" "$CFCTL" create big capacity "$N" seed 7
t0=$(now)
check "add of $N entries in the kernel" "$CFCTL" add -f "$TMP/big" big
ta=$(elapsed "$t0")
diag "$N entries: build offline $tb s, add -f in the kernel $ta s"
"$CFCTL" save -f "$TMP/big.save" big
same_but_line1 "$TMP/big.img" "$TMP/big.save" &&
	ok "big: the offline image is the kernel's save, but for line 1" ||
	not_ok "big: the offline image is the kernel's save, but for line 1"

# The offline images restore, and answer yes for every entry.
check "destroy every filter" "$CFCTL" destroy
t0=$(now)
check "restore the offline images" bash -c 'for f; do "$0" restore -f "$f" || exit; done' \
	"$CFCTL" "$TMP/mix.img" "$TMP/bi.img" "$TMP/srcs.img" "$TMP/ports.img" "$TMP/big.img"
diag "restored in $(elapsed "$t0") s"
expect "mix: every entry is present" 0 "mix: 4020 of 4020 entries present" \
	"$CFCTL" test -f "$TMP/mix" mix
expect "bi: every entry is present" 0 "bi: 1900 of 1900 entries present" \
	"$CFCTL" test -f "$TMP/bi" bi
expect "bi: and its reverse" 0 "" "$CFCTL" test bi "tcp [2001:db8:3::3]:22 [2001:db8:2::a]:1010"
expect "srcs: every source is present" 0 "srcs: 1200 of 1200 entries present" \
	"$CFCTL" test -f "$TMP/srcs" srcs
expect "ports: every entry is present" 0 "ports: 500 of 500 entries present" \
	"$CFCTL" test -f "$TMP/ports" ports
expect "big: every entry is present" 0 "big: $N of $N entries present" \
	"$CFCTL" test -f "$TMP/big" big
"$CFCTL" save -f "$TMP/again" mix bi srcs ports big
cat "$TMP"/{mix,bi,srcs,ports,big}.img | grep -v '^#' >"$TMP/images"
grep -v '^#' "$TMP/again" >"$TMP/again.body"
cmp -s "$TMP/again.body" "$TMP/images" &&
	ok "saved again, the restored filters are the images" ||
	not_ok "saved again, the restored filters are the images"

# Refused as add refuses, in the same words (but the verb's name), and
# nothing written.
for i in $(seq 1 200); do echo "udp 10.9.0.$((i % 256)):$i 192.0.2.1:53"; done >"$TMP/few"
"$CFCTL" create full family ip capacity 8 bucket 2 kicks 10 seed 1 nogrow
run "$CFCTL" add -f "$TMP/few" full
add_out=$OUT add_rc=$RC
run "$CFCTL" build -f "$TMP/few" -o "$TMP/full.img" full family ip capacity 8 bucket 2 kicks 10 seed 1 nogrow
b=$(sed 's/^cfctl: build: /cfctl: add: /; /was left as it was$/d' <<<"$OUT")
[ "$add_rc" = 3 ] && [ "$RC" = 3 ] && [ "$b" = "$add_out" ] && [ ! -e "$TMP/full.img" ] &&
	ok "a full filter: build says what add says, status 3, and writes nothing" ||
	not_ok "a full filter: build says what add says, status 3, and writes nothing" \
		"add ($add_rc):" "$add_out" "build ($RC):" "$OUT"

check_klog
finish
