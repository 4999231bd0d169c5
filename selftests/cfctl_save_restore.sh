#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl save | cfctl restore: the filters come back with every parameter
# and the same answers (false positives included, since the raw table and
# the seed travel), without the keys; a broken stream leaves nothing
# behind; a kernel refusal in the middle of a restore is reported with
# exactly what was applied.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

plan 31

# Filters of every kind, with entries.
"$CFCTL" create five capacity 20000
"$CFCTL" create srcs family ip key src fingerprint 8 capacity 5000
"$CFCTL" create bi family ip6 key src,dst,sport,dport,proto bidirectional bucket 8 kicks 1000
"$CFCTL" create marked family inet key dport,proto hook output priority -150 action mark 0x20/0xf0 invert disabled
"$CFCTL" create empty capacity 2Mi
# Semi-sorted buckets: fpr 0.1% at bucket 4 (f = 13).
"$CFCTL" create semi family ip key src fpr 0.1% capacity 5000
for i in $(seq 0 2999); do
	echo "udp 10.$((i / 256 % 256)).$((i % 256)).1:$((1000 + i)) 192.0.2.$((i % 200)):53"
	echo "tcp [2001:db8::$i]:$((2000 + i)) [2001:db8:1::1]:443"
done >"$TMP/five"
for i in $(seq 0 1999); do echo "src 172.16.$((i / 256)).$((i % 256))"; done >"$TMP/srcs"
for i in $(seq 0 499); do echo "tcp [2001:db8:2::$i]:$((3000 + i)) [2001:db8:3::1]:22"; done >"$TMP/bi"
"$CFCTL" add -f "$TMP/five" five
"$CFCTL" add -f "$TMP/srcs" srcs
"$CFCTL" add -f "$TMP/srcs" semi
"$CFCTL" add -f "$TMP/bi" bi
"$CFCTL" add marked proto udp dport 53 , proto tcp dport 443
# Probes that were never added: their answers (false positives, with 8-bit
# fingerprints, certainly) must be the same after the restore.
for i in $(seq 0 2999); do echo "src 172.17.$((i / 256)).$((i % 256))"; done >"$TMP/srcs_probe"
sed 's/:53$/:54/' "$TMP/five" >"$TMP/five_probe"

# answers NAME FILE: the line numbers test -v says are present.
answers() {
	"$CFCTL" -v test -f "$2" "$1" | sed -n 's/^line \([0-9]*\): .* is in .*/\1/p' | md5sum
}

BEFORE=$(snapshot)
A1=$(answers srcs "$TMP/srcs_probe")
A2=$(answers five "$TMP/five_probe")
A3=$(answers bi "$TMP/bi")
A4=$(answers semi "$TMP/srcs_probe")
fp=$("$CFCTL" test -f "$TMP/srcs_probe" srcs | sed -n 's/.*: \([0-9]*\) of .*/\1/p')
diag "srcs: $fp of 3000 probes never added are false positives (8-bit fingerprints)"

check "save" "$CFCTL" save -f "$TMP/saved"
lines=$(grep -c . "$TMP/saved")
diag "the save is $(wc -c <"$TMP/saved") bytes, $lines lines"
if grep -q "^create five family inet key src,dst,sport,dport,proto capacity 20000 fingerprint 12 bucket 4 kicks 500 hook prerouting priority -300 action drop grow factor 2 stages 8 image [A-Za-z0-9+/=]*$" "$TMP/saved" &&
   grep -q "^create marked family inet key dport,proto capacity 65536 fingerprint 12 bucket 4 kicks 500 hook output priority -150 action mark 0x20/0xf0 invert disabled grow factor 2 stages 8 image " "$TMP/saved" &&
   grep -q "^create bi family ip6 .* bucket 8 kicks 1000 .* bidirectional grow factor 2 stages 8 image " "$TMP/saved" &&
   grep -qE "^load five [0-9]+ [A-Za-z0-9+/=]+$" "$TMP/saved" &&
   grep -qE "^load empty 0 zero [0-9]+$" "$TMP/saved"; then
	ok "the save has create lines with every parameter, and the tables as load lines"
else
	not_ok "the save has create lines with every parameter, and the tables as load lines" \
		"$(cut -c1-200 "$TMP/saved" | head -20)"
fi
hdr=$(sed -n 's/^create semi .* fingerprint 13 bucket 4 semisort kicks 500 .* image \([A-Za-z0-9+/=]*\)$/\1/p' "$TMP/saved")
[ -n "$hdr" ] && [ "$(python3 -c 'import base64, sys; print(int.from_bytes(base64.b64decode(sys.argv[1])[4:6], "little"))' "$hdr")" = 4 ] &&
	ok "a semi-sorted filter: semisort on its create line, an image of version 4" ||
	not_ok "a semi-sorted filter: semisort on its create line, an image of version 4" "$(grep '^create semi' "$TMP/saved" | cut -c1-200)"
[ "$(grep -c '^load empty' "$TMP/saved")" = 1 ] &&
	ok "an empty table of 2Mi capacity is one 'zero' line" ||
	not_ok "an empty table of 2Mi capacity is one 'zero' line" "$(grep '^load empty' "$TMP/saved" | cut -c1-100)"

check "save NAME saves just that filter" "$CFCTL" save -f "$TMP/one" srcs
[ "$(grep -c '^create' "$TMP/one")" = 1 ] && grep -q "^create srcs " "$TMP/one" &&
	ok "... one create line, for srcs" || not_ok "... one create line, for srcs" "$(grep ^create "$TMP/one")"

check "destroy everything" "$CFCTL" destroy
t0=$(now)
check "restore the save" "$CFCTL" restore -f "$TMP/saved"
diag "restore took $(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }') s"
AFTER=$(snapshot)
[ "$AFTER" = "$BEFORE" ] && ok "every filter is back, with its parameters and item counts" ||
	not_ok "every filter is back, with its parameters and item counts" "before:" "$BEFORE" "after:" "$AFTER"
expect "every entry added is present (5-tuple, v4 and v6)" 0 "6000 of 6000" \
	"$CFCTL" test -f "$TMP/five" five
expect "every source added is present" 0 "2000 of 2000" "$CFCTL" test -f "$TMP/srcs" srcs
expect "every source added to the semi-sorted filter is present" 0 "2000 of 2000" \
	"$CFCTL" test -f "$TMP/srcs" semi
[ "$(answers srcs "$TMP/srcs_probe")" = "$A1" ] && [ "$(answers five "$TMP/five_probe")" = "$A2" ] &&
	[ "$(answers bi "$TMP/bi")" = "$A3" ] && [ "$(answers semi "$TMP/srcs_probe")" = "$A4" ] &&
	ok "the same answers for keys never added (false positives included)" ||
	not_ok "the same answers for keys never added (false positives included)"
expect "bidirectional survives: the reverse of an entry is present" 0 "" \
	"$CFCTL" test bi "tcp [2001:db8:3::1]:22 [2001:db8:2::7]:3007"
check "save again" "$CFCTL" save -f "$TMP/saved2"
cmp -s "$TMP/saved" "$TMP/saved2" && ok "the second save is byte for byte the first" ||
	not_ok "the second save is byte for byte the first" "$(diff "$TMP/saved" "$TMP/saved2" | cut -c1-200 | head)"

# A failed save -f leaves the previous file as it was; a good one keeps
# its mode.
chmod 640 "$TMP/saved2"
expect "a failed save -f says the file was left alone" 3 \
	"no filter.*saved2 was left as it was" "$CFCTL" save -f "$TMP/saved2" five nosuch
cmp -s "$TMP/saved" "$TMP/saved2" && ! ls "$TMP"/saved2.* >/dev/null 2>&1 &&
	ok "... and it is the previous save, with no temporary file left" ||
	not_ok "... and it is the previous save, with no temporary file left" "$(ls "$TMP")"
"$CFCTL" save -f "$TMP/saved2"
[ "$(stat -c %a "$TMP/saved2")" = 640 ] && cmp -s "$TMP/saved" "$TMP/saved2" &&
	ok "a save over a file keeps its mode" ||
	not_ok "a save over a file keeps its mode" "$(stat -c %a "$TMP/saved2")"
: >"$TMP/saved3"
ln -s saved3 "$TMP/link"
"$CFCTL" save -f "$TMP/link"
[ -L "$TMP/link" ] && cmp -s "$TMP/saved" "$TMP/saved3" &&
	ok "a save through a symlink writes its target, the link stays" ||
	not_ok "a save through a symlink writes its target, the link stays" "$(ls -l "$TMP")"

expect "restore over existing filters: refused before anything is applied" 2 \
	"line 2: a filter named five already exists.*nothing was applied" \
	"$CFCTL" restore -f "$TMP/saved"

# A stream cut short: the kernel finds the table incomplete, and nothing
# of that filter remains.
"$CFCTL" destroy five
sed -n '/^create five /p; /^load five /p' "$TMP/saved" | sed '$d' >"$TMP/cut"
expect "a truncated table: the kernel says incomplete, exit 3" 3 \
	"incomplete.*the filters this restore created were destroyed again" "$CFCTL" restore -f "$TMP/cut"
run "$CFCTL" show five
[ "$RC" = 3 ] && ok "nothing of the truncated filter is left" || not_ok "nothing of the truncated filter is left" "$OUT"

# A zero run past the table the header declares: refused before anything
# is sent, at once and in little memory (it was one request per 32 KiB,
# made before sending).  With a header cfctl cannot read, the kernel
# refuses the header before any chunk: one request all the same.
sed -n '/^create five /p' "$TMP/saved" >"$TMP/huge"
echo "load five 0 zero 1099511627776" >>"$TMP/huge"
expect "a zero run of 1 TiB past the declared table: refused, exit 2" 2 \
	"line 2: 1099511627776 zero bytes at offset 0 go past the end of the table of five \([0-9]+ bytes, as its image header on line 1 says\); nothing was applied" \
	timeout 60 bash -c 'ulimit -v 300000; exec "$0" restore -f "$1"' "$CFCTL" "$TMP/huge"
printf 'create huge family inet image AAAAAAAAAAA=\nload huge 0 zero 1099511627776\n' >"$TMP/huge2"
expect "a zero run of 1 TiB behind an unreadable header: the kernel refuses the header" 3 \
	"image header" \
	timeout 60 bash -c 'ulimit -v 300000; exec "$0" restore -f "$1"' "$CFCTL" "$TMP/huge2"

# A corrupted image header.
sed -n '/^create five/p' "$TMP/saved" | sed 's/image \(....\)/image AAAA/' >"$TMP/badhdr"
expect "a corrupted image header: the kernel rejects it" 3 "image header rejected|wrong" \
	"$CFCTL" restore -f "$TMP/badhdr"

# An image of version 1 (the two-pass hash): refused with the reason.
hdr=$(sed -n 's/^create five .* image \([A-Za-z0-9+/=]*\)$/\1/p' "$TMP/saved")
old=$(python3 -c 'import base64, sys; h = bytearray(base64.b64decode(sys.argv[1])); h[4:6] = (1).to_bytes(2, "little"); print(base64.b64encode(bytes(h)).decode())' "$hdr")
sed -n '/^create five /p; /^load five /p' "$TMP/saved" | sed "s|image $hdr|image $old|" >"$TMP/v1"
expect "an image of version 1: refused, the module names the version it reads" 3 \
	"line 1: image version not supported: this is nf_cuckoo $(cat /sys/module/nf_cuckoo/version), which reads image versions 2 to 4 only" \
	"$CFCTL" restore -f "$TMP/v1"
case $OUT in
*"line 1: the image of five is of image version 1"*)
	ok "an image of version 1: cfctl names the image's version" ;;
*) not_ok "an image of version 1: cfctl names the image's version" "$OUT" ;;
esac
run "$CFCTL" show five
[ "$RC" = 3 ] && ok "an image of version 1: nothing of it is left" ||
	not_ok "an image of version 1: nothing of it is left" "$OUT"

# A kernel refusal in the middle: cfctl says what failed and what had
# been applied, and destroys again the filters the stream created (all or
# nothing: a restore never leaves half of itself behind).
{
	echo "create small capacity 8 bucket 2 kicks 10 nogrow"
	echo "create log family ip key src fingerprint 32"
	echo "add log src 172.31.0.1"
	for i in $(seq 0 4999); do echo "add small src 10.9.$((i / 256)).$((i % 256)) dst 10.8.0.1 sport 1 dport 2 proto udp"; done
	echo "add log src 172.31.0.2"
} >"$TMP/full"
expect "restore into a filter too small: the failing line and what was applied" 3 \
	"line [0-9]+: .*full.*lines before 4 were applied \(1 entry added, 2 other commands\); nothing from line 4 on.*the filters this restore created were destroyed again" \
	"$CFCTL" restore -f "$TMP/full"
run "$CFCTL" list -n small log
[ "$RC" = 3 ] && ok "... and neither filter it created is left" ||
	not_ok "... and neither filter it created is left" "$OUT"

finish
