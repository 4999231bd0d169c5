#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl against fake_nl.c (cfctl_fake): bulk input (add/del/test -f),
# save and restore streams, and their error paths, without a kernel.  The
# fake keeps its filters in $CFCTL_FAKE_STATE between runs and answers as
# the module does (the real core, the module's errnos and ext-acks), so
# what is checked here is cfctl: what it sends, what it reports, its exit
# status, and that nothing is applied when it says so.  TAP output.
# It also holds cfctl build's parity tests: an image built offline by
# cfctl (CFCTL_BUILD, default: cfctl beside cfctl_fake) is the save of the
# same filter made here, and build refuses what add refuses, saying the
# same.
#   test_fake.sh [--real] [PATH/TO/cfctl_fake]
# --real: the same against the module and the real cfctl, as root in a
# network namespace of its own (selftests/cfctl_fake_parity.sh), leaving
# out what only the fake can do (a request made to fail): so that the fake
# cannot drift from the module unnoticed.  TAP_PREFIX names the points.
set -u
real=0
if [ "${1:-}" = --real ]; then
	real=1
	shift
fi
CFCTL=${1:-$(dirname "$0")/cfctl_fake}
BUILD=${CFCTL_BUILD:-$(dirname "$CFCTL")/cfctl}
prefix=${TAP_PREFIX:-cfctl fake}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export CFCTL_FAKE_STATE=$dir/state
unset CFCTL_FAKE_FAIL_AT
# shellcheck source=tools/cfctl/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

# entries FROM TO: udp entries, one a line, all distinct
entries() {
	awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i <= b; i++)
		printf "udp 10.%d.%d.%d:%d 192.0.2.1:53\n", int(i / 65536),
			int(i / 256) % 256, i % 256, i % 60000 + 1 }'
}

echo "TAP version 13"
echo "1..$((117 - 11 * real))"

entries 1 6000 >"$dir/good"
# A syntax error in the middle: line 3001.
{ entries 1 3000; echo "udp 10.0.0.1:1 192.0.2.1:99999"; entries 3001 6000; } \
	>"$dir/syntax"
# An entry the filter's key refuses (IPv6 in an IPv4 filter): line 3001.
{ entries 1 3000; echo "udp [2001:db8::1]:1 [2001:db8::2]:2"; entries 3001 6000; } \
	>"$dir/family"
# Never added: its delete fails in the kernel (line 5001, second batch).
{ entries 1 5000; echo "udp 10.250.0.1:7 192.0.2.1:53"; } >"$dir/absent"

# 32-bit fingerprints: the -exist delete below asks for 4000 entries no
# longer there, and one that is a false positive of a kept entry deletes
# that one (as the man page warns).  At the default 12 bits, with the
# module's random seed, that happened (999 of 1000 left, 6.12, once); at
# 32 bits it is below one in a million, and the test is about what cfctl
# says, not about false positives.
t "create" 0 "" -- create f family ip capacity 20000 fingerprint 32
t "add -f: 6000 entries in several batches" 0 "6000 entries added" -- \
	-v add -f "$dir/good" f
want_items f 6000 "add -f: all 6000 are in the filter"

t "add -f: syntax error on line 3001 named, status 2" 2 \
	"add: line 3001: .*99999.*nothing was applied" -- add -f "$dir/syntax" f
want_items f 6000 "add -f: syntax error: nothing applied"
t "add -f: entry of the wrong family on line 3001, status 2" 2 \
	"add: line 3001: filter f holds IPv4 only.*nothing was applied" -- \
	add -f "$dir/family" f
want_items f 6000 "add -f: wrong family: nothing applied"
t "add -f from stdin: syntax error named" 2 "add: line 3001: " -- \
	add -f - f <"$dir/syntax"
want_items f 6000 "add -f -: nothing applied"

t "test -f: all present" 0 "f: 6000 of 6000 entries present" -- \
	test -f "$dir/good" f
t "test -f: syntax error on line 3001, status 2" 2 \
	"^cfctl: test: line 3001: " -- test -f "$dir/syntax" f
[ "$(wc -l <<<"$out")" = 1 ]
result $? "test -f: syntax error: no answers, only the error"
t "test -f: wrong family on line 3001, status 2" 2 "test: line 3001: " -- \
	test -f "$dir/family" f

t "del -f: syntax error on line 3001 named, status 2" 2 \
	"del: line 3001: .*nothing was applied" -- del -f "$dir/syntax" f
want_items f 6000 "del -f: syntax error: nothing applied"
t "del -f: wrong family on line 3001, status 2" 2 "del: line 3001: " -- \
	del -f "$dir/family" f
want_items f 6000 "del -f: wrong family: nothing applied"

t "del -f: the kernel refuses line 5001 (absent), status 3" 3 \
	"del: line 5001: entry is not in the filter" -- \
	del -f "$dir/absent" f
cf show f
got=$(items f)
out="items after the refused batch: $got; stderr said: $(
	"$CFCTL" del -f "$dir/absent" f 2>&1 | tr '\n' ' ')"
# The batch holding line 5001 was undone, the one before it was applied.
[ "$got" != none ] && [ "$got" -gt 1000 ] && [ "$got" -lt 6000 ]
result $? "del -f: only the batches before the refused one were applied"
t "del -f -exist: absent entries skipped" 0 "" -- -exist del -f "$dir/absent" f
want_items f 1000 "del -f -exist: the 1000 others remain"

t "save" 0 "" -- save -f "$dir/s1" f
t "destroy" 0 "" -- destroy f
t "restore the saved stream" 0 "" -- restore -f "$dir/s1"
cf save -f "$dir/s2" f
cmp -s "$dir/s1" "$dir/s2"
result $? "save, restore, save: the same image"
entries 5001 6000 >"$dir/kept"
t "test -f after restore: the 1000 kept are there" 0 \
	"f: 1000 of 1000 entries present" -- test -f "$dir/kept" f

# Corrupt streams: nothing may be left behind.  A save ends with the
# SHA-256 of its lines (format 2); unsealed FILE: the same stream as a
# save of before format 2 (or one written by hand), which restore checks
# line by line and the kernel checks whole.
unsealed() {
	sed '1d;$d' "$1"
}
cf destroy f
head -n -1 "$dir/s1" >"$dir/cut"
t "restore: a save cut short (its checksum line gone) is refused whole, status 2" 2 \
	"restore: the save ends at line [0-9]+ without its last line, the checksum: it was cut short; nothing was applied" -- \
	restore -f "$dir/cut"
want_items f none "restore: a save cut short: no filter"
head -n 4 "$dir/s1" >"$dir/cut4"
tail -n 1 "$dir/s1" >>"$dir/cut4"
t "restore: a save missing lines before its checksum is refused whole, status 2" 2 \
	"restore: line 5: the save is damaged: the SHA-256 of its lines before this one is [0-9a-f]{64}, not what this line says; nothing was applied" -- \
	restore -f "$dir/cut4"
want_items f none "restore: lines missing: no filter"
awk 'NR == 3 && !done { n = split($4, c, ""); o = "";
	for (i = 1; i <= n; i++) o = o (i > 8 && i <= 16 ? (c[i] == "A" ? "B" : "A") : c[i]);
	$4 = o; done = 1 } { print }' "$dir/s1" >"$dir/flip"
! cmp -s "$dir/s1" "$dir/flip"
result $? "restore: (8 base64 characters of line 3 changed to other valid ones)"
t "restore: ... refused whole by the checksum, status 2" 2 \
	"the save is damaged: the SHA-256 .*nothing was applied" -- restore -f "$dir/flip"
want_items f none "restore: a damaged save: no filter"
printf '\n# a comment after the end\n' | cat "$dir/s1" - >"$dir/after"
t "restore: text after the checksum line is refused, status 2" 2 \
	"text after the end of the save" -- restore -f "$dir/after"
sed '3s/ [A-Za-z0-9+\/=]*$/ @@notbase64@@/' "$dir/s1" >"$dir/badb64"
t "restore: bad base64 on line 3, status 2" 2 \
	"restore: line 3: bad base64.*nothing was applied" -- restore -f "$dir/badb64"
want_items f none "restore: bad base64: no filter left"
unsealed "$dir/s1" | head -n -1 >"$dir/trunc"
t "restore: truncated table refused by the kernel, status 3" 3 \
	"table incomplete: load aborted, filter removed.*" -- restore -f "$dir/trunc"
want_items f none "restore: truncated table: no filter left"
cf list -n
[ "$rc" = 0 ] && [ -z "$out" ]
result $? "restore: nothing at all left behind"

# An image of another version (1: the two-pass hash) is refused whole, and
# cfctl's error names both versions: the module's and the image's.
hdr=$(sed -n 's/^create f .* image \([A-Za-z0-9+/=]*\)$/\1/p' "$dir/s1")
v1=$(python3 -c 'import base64, sys; h = bytearray(base64.b64decode(sys.argv[1])); h[4:6] = (1).to_bytes(2, "little"); print(base64.b64encode(bytes(h)).decode())' "$hdr")
unsealed "$dir/s1" | sed "s|image $hdr|image $v1|" >"$dir/v1"
cf restore -f "$dir/v1"
[ "$rc" = 3 ] &&
	grep -qE "line 1: .*this is nf_cuckoo [0-9.]+, which reads image versions 2 to 4 only" <<<"$out" &&
	grep -qE "line 1: the image of f is of image version 1$" <<<"$out"
result $? "restore: an image of version 1 is refused, naming both versions, status 3"
want_items f none "restore: an image of version 1: no filter left"

printf 'create r family ip capacity 100\nadd r udp 10.0.0.1:1 10.0.0.2:2\nadd r udp 10.0.0.1:1 10.0.0.2:99999\n' \
	>"$dir/rbad"
t "restore: a bad entry line, status 2" 2 "restore: line 3: .*nothing was applied" -- \
	restore -f "$dir/rbad"
want_items r none "restore: bad entry line: nothing applied"

# cfctl build: the image made offline is the save of the same filter
# created here with the same seed and the same entries added in the same
# order, but for the first line (a comment naming who made it).  Filters
# of several geometries, keys and fills, duplicates included; bb is
# filled to 95%: its inserts search for room.
cf destroy f
{
	entries 1 3000
	awk 'BEGIN { for (i = 1; i <= 1000; i++)
		printf "tcp [2001:db8::%x]:%d [2001:db8:1::1]:443\n", i, i }'
	entries 1 20
} >"$dir/mix"
awk 'BEGIN { for (i = 1; i <= 1900; i++)
	printf "tcp [2001:db8:2::%x]:%d [2001:db8:3::%x]:22\n", i, 1000 + i, i % 7 }' \
	>"$dir/bi"
awk 'BEGIN { for (i = 0; i < 1200; i++)
	printf "src 172.16.%d.%d\n", int(i / 256), i % 256 }' >"$dir/srcs"
entries 1 200 >"$dir/few"

# same_but_ends A B: the files agree but for their first lines (who made
# them) and last (the checksum, of the first line too); through files, as
# the VM (where --real runs this) has no /dev/fd for <(...).
same_but_ends() {
	sed '1d;$d' "$1" >"$dir/a.body" && sed '1d;$d' "$2" >"$dir/b.body" &&
		cmp -s "$dir/a.body" "$dir/b.body"
}

# bva NAME FILE EXIST PARAMETERS...: build NAME offline, then create and
# add it here (EXIT: "-exist" or ""), both saved; ok if all went well.
bva() {
	local name=$1 file=$2 x=$3 desc
	shift 3
	desc="build $name ($*${x:+, $x})"
	out=$("$BUILD" ${x:+"$x"} build -f "$file" -o "$dir/$name.img" "$name" "$@" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && [ -s "$dir/$name.img" ]
	result $? "$desc: status 0, an image written"
	cf create "$name" "$@" &&
		[ "$rc" = 0 ] && cf ${x:+"$x"} add -f "$file" "$name" &&
		[ "$rc" = 0 ] && cf save -f "$dir/$name.save" "$name"
	[ "$rc" = 0 ] && same_but_ends "$dir/$name.img" "$dir/$name.save"
	result $? "$desc: the image is the save of the filter made here, but for its first and last lines"
}
bva ba "$dir/mix" "" capacity 8000 seed 0x1234abcd
bva bb "$dir/bi" "" family ip6 bidirectional bucket 8 kicks 50 fingerprint 16 capacity 2000 seed 99
bva bc "$dir/srcs" -exist family ip key src fingerprint 8 bucket 2 capacity 1200 seed 5
grep -q '^# nf_cuckoo save 2: a filter built offline by cfctl ' "$dir/ba.img" &&
	! grep -q "built offline" "$dir/ba.save"
result $? "build: the image's first line says it was built offline"

t "build: the offline image restores here" 0 "" -- destroy ba
t "... restore -f IMAGE" 0 "" -- restore -f "$dir/ba.img"
t "... every entry of the image is present" 0 \
	"ba: 4020 of 4020 entries present" -- test -f "$dir/mix" ba
cf save -f "$dir/ba.again" ba
same_but_ends "$dir/ba.img" "$dir/ba.again"
result $? "... and saved again, it is the image"

# Refused as add refuses, in the same words but for the verb, and then
# nothing is written: -o - gets nothing on stdout.
# same DESC ADD_STATUS -- ADD ARGS -- BUILD ARGS: both fail alike.
same() {
	local desc=$1 want=$2 args=() a b bo
	shift 3
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	cf "${args[@]}"
	[ "$rc" = "$want" ] || { result 1 "$desc (add: status $rc)"; return; }
	a=$out
	bo=$("$BUILD" "$@" 2>"$dir/err")
	rc=$?
	b=$(sed 's/^cfctl: build: /cfctl: add: /' "$dir/err")
	out="add said: $a"$'\n'"build said: $(cat "$dir/err")"$'\n'"build's stdout: $bo"
	[ "$rc" = "$want" ] && [ "$a" = "$b" ] && [ -z "$bo" ]
	result $? "$desc"
}
cf create bf family ip capacity 8 bucket 2 kicks 10 seed 1 nogrow
same "build: a full filter: add's error and status, nothing written" 3 \
	-- add -f "$dir/few" bf -- \
	build -f "$dir/few" -o - bf family ip capacity 8 bucket 2 kicks 10 seed 1 nogrow
want_items bf 0 "... and add applied nothing"
cf create bg family ip capacity 20000 seed 1
same "build: an entry of the wrong family on line 3001: add's error" 2 \
	-- add -f "$dir/family" bg -- build -f "$dir/family" -o - bg family ip capacity 20000 seed 1
same "build: a syntax error on line 3001: add's error" 2 \
	-- add -f "$dir/syntax" bg -- build -f "$dir/syntax" -o - bg family ip capacity 20000 seed 1
cf destroy ba bb bc bf bg

# Semi-sorted buckets (issue 19): fpr 0.1% with bucket 4 takes them, at
# f = 13; built offline and made here alike, saved with `semisort` on the
# create line and an image of version 4 (the version's two bytes follow
# the magic's four), restored as they were.
img_version() {	# img_version SAVE NAME: the version of NAME's image header
	sed -n "s/^create $2 .* image //p" "$1" | base64 -d 2>/dev/null |
		od -An -tu2 -j4 -N2 | tr -d ' '
}
bva bd "$dir/mix" "" fpr 0.1% capacity 8000 seed 0x5eed
t "fpr 0.1%: fingerprint 13, semi-sorted" 0 \
	"^Header: capacity 8000 fingerprint 13 bucket 4 semisort kicks 500 " -- show bd
t "... -j says the encoding" 0 '"encoding":"semisort"' -- show -j bd
grep -qE "^create bd .* fingerprint 13 bucket 4 semisort kicks 500 .* image " "$dir/bd.save" &&
	[ "$(img_version "$dir/bd.save" bd)" = 4 ]
result $? "... saved with semisort on its create line, an image of version 4"
cf destroy bd
t "... restored" 0 "" -- restore -f "$dir/bd.save"
t "... semi-sorted again" 0 "fingerprint 13 bucket 4 semisort kicks" -- show bd
t "... every entry present" 0 "bd: 4020 of 4020 entries present" -- test -f "$dir/mix" bd
cf save -f "$dir/bd.again" bd
cmp -s "$dir/bd.save" "$dir/bd.again"
result $? "... and saved again, byte for byte the first save"
t "fpr 0.1% nosemisort: plain buckets, fingerprint 13" 0 "" -- \
	create bp fpr 0.1% nosemisort capacity 8000 seed 0x5eed
cf add -f "$dir/mix" bp && cf save -f "$dir/bp.save" bp && cf show -j bp
grep -q '"encoding":"plain"' <<<"$out" &&
	grep -qE "^create bp .* fingerprint 13 bucket 4 kicks 500 .* image " "$dir/bp.save" &&
	[ "$(img_version "$dir/bp.save" bp)" = 4 ]
result $? "... plain, saved without semisort, an image of version 4"
cf destroy bp && cf restore -f "$dir/bp.save" && cf save -f "$dir/bp.again" bp
cmp -s "$dir/bp.save" "$dir/bp.again"
result $? "... and a version 4 image restores as it was"
# Filters saved before the word hash (cfctl 0.1.1: images of versions 2
# and 3, keys hashed with jhash) keep their hash for life.
old=$(dirname "$0")/testdata/jhash.save
entries 1 2000 >"$dir/old"
t "a save of 0.1.1 (image versions 2 and 3) restores" 0 "" -- restore -f "$old"
t "... every entry of its plain filter present" 0 \
	"v2plain: 2000 of 2000 entries present" -- test -f "$dir/old" v2plain
t "... every entry of its semi-sorted filter present" 0 \
	"v3semi: 2000 of 2000 entries present" -- test -f "$dir/old" v3semi
cf save -f "$dir/old.again" v2plain v3semi
# The comment lines name the versions that saved; the rest must match.
grep -v '^#' "$old" >"$dir/old.body"
grep -v '^#' "$dir/old.again" >"$dir/old.again.body"
cmp -s "$dir/old.body" "$dir/old.again.body"
result $? "... saved again as it was: versions 2 and 3, byte for byte"
entries 2001 2600 >"$dir/old.more"
cf -q add -f "$dir/old.more" v2plain && cf -q add -f "$dir/old.more" v3semi &&
	cf test -f "$dir/old.more" v2plain && grep -q "600 of 600 entries present" <<<"$out" &&
	cf save -f "$dir/old.more.save" v2plain v3semi &&
	[ "$(img_version "$dir/old.more.save" v2plain)" = 2 ] &&
	[ "$(img_version "$dir/old.more.save" v3semi)" = 3 ]
result $? "... entries added to them found, their images still versions 2 and 3"
cf destroy v2plain v3semi
cf create be fpr 0.1% bucket 2 capacity 100
t "fpr 0.1% bucket 2: plain buckets" 0 '"bucket_size":2,"encoding":"plain"' -- show -j be
t "semisort with bucket 8 is refused, in the module's words" 2 \
	"^cfctl: create: semi-sorted buckets need bucket size 4$" -- \
	create bx semisort bucket 8
cf destroy bd bp be

# Growth (issue 20): a filter of 100 fed 3000 entries grows to five
# stages (100, 200, 400, 800, 1600); show and -j list them; save carries
# every stage, restore gives them back; and the refusals of growth.
entries 1 3000 >"$dir/g3k"
t "grow: create capacity 100" 0 "" -- create gr family ip capacity 100 seed 9
t "grow: 3000 entries into a filter of 100" 0 "3000 entries added" -- \
	-v add -f "$dir/g3k" gr
cf show gr
grep -q "^Growth: on factor 2 stages 8$" <<<"$out" &&
	grep -qE "^Stages: 5 fpr 0\.00[0-9]+ \(every lookup asks each stage" <<<"$out" &&
	grep -qE "^Stage 0: capacity 100 items 100 load [0-9.]+% fingerprint 12 bytes [0-9]+ fpr 0.00195$" <<<"$out" &&
	grep -qE "^Stage 4: capacity 1600 items 1500 load [0-9.]+% fingerprint 16 bytes [0-9]+ fpr 0.000122$" <<<"$out" &&
	grep -q "^Items: 3000$" <<<"$out"
result $? "grow: show has the growth line, the whole bound and a line per stage"
t "grow: show -j lists the stages" 0 \
	'"grow":true,"grow_factor":2,"stages_max":8,"fpr_total":0\.00[0-9]+,"fpr_total_ppb":[0-9]+,"stages":\[\{"index":0,"capacity":100,"items":100,' -- \
	show -j gr
t "grow: every entry present" 0 "gr: 3000 of 3000 entries present" -- \
	test -f "$dir/g3k" gr
t "grow: save" 0 "" -- save -f "$dir/gs1" gr
grep -qE "^create gr .* action drop grow factor 2 stages 8( image [A-Za-z0-9+/=]+){5}$" "$dir/gs1"
result $? "grow: the create line has the growth words and an image per stage"
cf destroy gr
t "grow: restore the five stages" 0 "" -- restore -f "$dir/gs1"
t "grow: restored, every entry present" 0 "gr: 3000 of 3000 entries present" -- \
	test -f "$dir/g3k" gr
cf save -f "$dir/gs2" gr
cmp -s "$dir/gs1" "$dir/gs2"
result $? "grow: save, restore, save: the same stream"
sed '/^create gr /s/ stages 8 / stages 2 /' "$dir/gs1" >"$dir/gs_few"
t "grow: more images than stages: refused before the kernel, status 2" 2 \
	"line 2: 5 images \(stages\) but at most 2 stages: give 'stages 5' or more; nothing was applied" -- \
	restore -f "$dir/gs_few"
# A save of before growth (one image, no growth words) still restores.
cf create go family ip capacity 5000 seed 9
cf add -f "$dir/g3k" go
cf save -f "$dir/go1" go
unsealed "$dir/go1" | sed '/^create go /s/ grow factor 2 stages 8//' >"$dir/go1.old"
mv "$dir/go1.old" "$dir/go1"
cf destroy go
t "grow: a save of one image without growth words restores" 0 "" -- \
	restore -f "$dir/go1"
t "... with growth on by default" 0 "^Growth: on factor 2 stages 8$" -- show go
t "... every entry present" 0 "go: 3000 of 3000 entries present" -- \
	test -f "$dir/g3k" go
cf destroy go
# An entry added again after the filter grew is in two stages: its
# delete is refused, nothing deleted.
x="udp 10.0.0.1:2 192.0.2.1:53"
cf add gr $x
cf del gr $x
[ "$rc" = 3 ] &&
	grep -q "^cfctl: del: entry 1 (udp 10.0.0.1:2 192.0.2.1:53): entry is in more than one stage" <<<"$out" &&
	grep -q "to remove it, rebuild the filter from the entries to keep: 'cfctl compact -f LIST gr'$" <<<"$out"
result $? "grow: a delete of an entry two stages answer for: ambiguous, what to do, status 3"
want_items gr 3001 "grow: the ambiguous delete deleted nothing"
# -keep-ambiguous: the rest of the batch is deleted, that entry kept.
{ echo "$x"; sed -n 5p "$dir/g3k"; } >"$dir/gamb"
t "grow: del -keep-ambiguous: the other entry deleted, the ambiguous one kept and counted, status 0" \
	0 "1 entry kept: more than one stage of gr has each" -- \
	-keep-ambiguous del -f "$dir/gamb" gr
want_items gr 3000 "grow: ... one item fewer"
t "grow: set nogrow" 0 "" -- set gr nogrow
t "grow: show says growth is off" 0 "^Growth: off factor 2 stages 8$" -- show gr
entries 3001 9000 >"$dir/g6k"
t "grow: nogrow: a full filter refuses adds, status 3" 3 \
	"add: line [0-9]+: filter is full: batch undone" -- add -f "$dir/g6k" gr
t "grow: ... no stage added" 0 "^Stages: 5 " -- show gr
t "grow: set grow: the adds work again" 0 "" -- set gr grow
t "grow: ... and it grows" 0 "" -- add -f "$dir/g6k" gr
t "grow: ... to seven stages" 0 "^Stages: 7 " -- show gr
t "grow: flush" 0 "" -- flush gr
cf show gr
grep -q "^Stages: 1 " <<<"$out" && grep -q "^Items: 0$" <<<"$out" &&
	! grep -q "^Stage 1:" <<<"$out"
result $? "grow: flushed: back to one stage, empty"
cf destroy gr
# cfctl build grows as the module does: its image of five stages is the
# save of the filter made here.
bva bgr "$dir/g3k" "" family ip capacity 100 seed 9
cf destroy bgr

[ $real = 1 ] && exit $((failed > 0))

# A stage over the ceiling (fake_mem_max, here 300000 bytes): refused,
# the ceiling named, what to do said, nothing held lost.
cf create gq family ip capacity 10000 factor 8 seed 9
export CFCTL_FAKE_MEM_MAX=300000
t "grow: 6000 entries in a filter of 10000" 0 "" -- add -f "$dir/good" gq
entries 6001 100000 >"$dir/g94k"
t "grow: a stage over the ceiling: refused, status 3" 3 \
	"add: line [0-9]+: filter is full and a new stage would exceed the network namespace's memory ceiling \(netns_mem_max_mb\): batch undone" -- \
	add -f "$dir/g94k" gq
grep -q "what gq holds is kept; raise the ceiling" <<<"$out"
result $? "grow: ... the error says what to do"
t "grow: ... nothing held lost" 0 "gq: 6000 of 6000 entries present" -- \
	test -f "$dir/good" gq
t "grow: ... two stages, not three" 0 "^Stages: 2 " -- show gq
unset CFCTL_FAKE_MEM_MAX
cf destroy gq

printf 'create r family ip capacity 100\nadd r udp 10.0.0.1:1 10.0.0.2:2\nadd r udp 10.0.0.3:1 10.0.0.4:2\nflush r\n' \
	>"$dir/rfail"
# Requests: 1 the lookup of r, 2 NEW, 3 the batch of both adds.
CFCTL_FAKE_FAIL_AT=3 cf restore -f "$dir/rfail"
[ "$rc" = 3 ] && grep -qE "lines 2-3: fake: injected failure" <<<"$out" &&
	grep -qE "lines before 2 were applied \(0 entries added, 1 other command\)" <<<"$out" &&
	grep -qE "the filters this restore created were destroyed again" <<<"$out"
result $? "restore: a request refused by the kernel: what was applied is said"
want_items r none "restore: refused batch: the filter the stream created is destroyed again"

# Events: the fake appends what the module would multicast to
# $CFCTL_FAKE_EVENTS, and monitor reads it back (then ends, status 0).
export CFCTL_FAKE_EVENTS=$dir/events
cf create m family ip key src capacity 10 seed 1
cf add m src 10.0.0.1 src 10.0.0.2 src 10.0.0.3 src 10.0.0.4 src 10.0.0.5 \
	src 10.0.0.6 src 10.0.0.7 src 10.0.0.8
cf add m src 10.0.0.9
cf -exist add m src 10.0.0.9
cf del m src 10.0.0.1
cf del m src 10.9.9.9
cf set m action count
cf flush m
cf save -f "$dir/msave" m
cf destroy m
cf restore -f "$dir/msave"
cf destroy m
cat >"$dir/want" <<'EOF'
new filter m family ip key src capacity 10 fingerprint 12 bucket 4 kicks 500 hook prerouting priority -300 action drop grow factor 2 stages 8
add m 8 entries
add m 1 entry
load-high m stage 0 items 9 of capacity 10 (90.0%)
del m 1 entry
set filter m family ip key src capacity 10 fingerprint 12 bucket 4 kicks 500 hook prerouting priority -300 action count grow factor 2 stages 8
flush m
del filter m
restore filter m family ip key src capacity 10 fingerprint 12 bucket 4 kicks 500 hook prerouting priority -300 action count grow factor 2 stages 8
del filter m
EOF
cf monitor
[ "$rc" = 0 ] && diff "$dir/want" - <<<"$out" >/dev/null
result $? "monitor: one line per event, none for requests that changed nothing"
cf monitor -j
[ "$rc" = 0 ] && python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
assert [e["seq"] for e in ev] == list(range(1, 11)), ev
assert [e["event"] for e in ev] == ["new", "add", "add", "load-high",
    "del-entries", "set", "flush", "del", "restore", "del"], ev
assert ev[1]["entries"] == 8 and ev[4]["entries"] == 1
assert (ev[3]["stage"], ev[3]["items"], ev[3]["capacity"]) == (0, 9, 10)
assert ev[5]["filter"]["action"] == "count" and "stats" not in ev[5]["filter"]
' <<<"$out"
result $? "monitor -j: numbered 1 to 10, with counts, stage and description"
rm -f "$CFCTL_FAKE_EVENTS"
cf create m family ip key src capacity 10 seed 1
CFCTL_FAKE_EVENTS_DROP=2,3 cf add m src 10.0.0.1
CFCTL_FAKE_EVENTS_DROP=2,3 cf flush m
cf destroy m
cf monitor
[ "$rc" = 0 ] && [ "$(sed -n 2p <<<"$out")" = "lost 2 events" ] &&
	[ "$(sed -n 3p <<<"$out")" = "del filter m" ]
result $? "monitor: events lost on the way are counted from the gap"
cf monitor -j
[ "$rc" = 0 ] && sed -n 2p <<<"$out" | grep -qx '{"event":"lost","lost":2}'
result $? "monitor -j: the loss as a line of its own"
unset CFCTL_FAKE_EVENTS

[ $failed = 0 ]
