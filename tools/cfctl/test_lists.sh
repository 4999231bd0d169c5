#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Blocklist files (tools/cfctl/lists/) with add/del/test/build -f: one
# address or prefix a line for a filter keyed on src or dst alone, '#'
# and ';' comments, blank lines, CRLF, a byte order mark, IPv4 and IPv6
# mixed; bad lines named, or skipped and counted with -skip-bad; nothing
# applied on an error.  Then prefixes: an address in a prefix tests
# present, one outside absent, del of a prefix, the bound on combinations
# of lengths (nothing applied past it), save and restore of the counts.
# TAP output.
#   test_lists.sh [--real] [PATH/TO/cfctl_fake]
# Without --real, against cfctl_fake (fake_nl.c); with --real, against
# the module with the real cfctl, as root in a network namespace of its
# own (selftests/cfctl_lists.sh).  TAP_PREFIX names the points.
set -u
real=0
if [ "${1:-}" = --real ]; then
	real=1
	shift
fi
CFCTL=${1:-$(dirname "$0")/cfctl_fake}
BUILD=${CFCTL_BUILD:-$(dirname "$CFCTL")/cfctl}
L=$(cd "$(dirname "$0")/lists" && pwd)
prefix=${TAP_PREFIX:-cfctl lists}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export CFCTL_FAKE_STATE=$dir/state
unset CFCTL_FAKE_FAIL_AT
# shellcheck source=tools/cfctl/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

echo "TAP version 13"
echo "1..$(grep -cE "^(t |want_items |result )" "$0")"

# 32-bit fingerprints: an address tested absent is absent, not a false
# positive's accident.
for f in "ls key src" "ld key dst" "l4 key src family ip" \
	 "lsd key src,dst"; do
	set -- $f
	cf create "$@" capacity 1000 fingerprint 32
done
t "filters created" 0 "" -- list -n

# corners.txt: 11 addresses (7 IPv4, 4 IPv6) among every corner case.
t "corners: every address of the file is added" 0 "ls: 11 entries added" -- \
	-v add -f "$L/corners.txt" ls
want_items ls 11 "corners: 11 items"
t "corners: test -f finds them all" 0 "ls: 11 of 11 entries present" -- \
	test -f "$L/corners.txt" ls
t "corners: the address after the byte order mark's line" 0 \
	"192.0.2.1 is in ls" -- test ls 192.0.2.1
t "corners: an IPv6 address with an IPv4 tail" 0 "is in ls" -- \
	test ls 2001:db8::c000:209
t "corners: the line without a newline" 0 "is in ls" -- test ls 198.51.100.11
t "corners: an address not in the file is absent" 1 "is NOT in ls" -- \
	test ls 192.0.2.2
t "corners: the same file into a filter keyed on dst" 0 \
	"ld: 11 entries added" -- -v add -f "$L/corners.txt" ld
t "corners: there, the addresses are destinations" 0 \
	"dst 203.0.113.10 is in ld" -- test ld dst 203.0.113.10
t "corners: an address alone on the command line, dst filter" 0 \
	"dst 2001:db8::6 is in ld" -- test ld 2001:db8::6
t "corners: src ADDR is refused by a dst filter" 2 \
	"source address, which is not in filter ld's key" -- test ld src 192.0.2.1
t "corners: into a src,dst filter, refused at its first address" 2 \
	"line 2: .*needs the destination address.*src or dst alone.*nothing was applied" -- \
	add -f "$L/corners.txt" lsd
want_items lsd 0 "corners: src,dst filter: nothing applied"

t "corners: IPv6 lines into an IPv4 filter: line 11 named" 2 \
	"add: line 11: filter l4 holds IPv4 only.*nothing was applied" -- \
	add -f "$L/corners.txt" l4
want_items l4 0 "corners: IPv4 filter: nothing applied"
t "corners: -skip-bad: the 4 IPv6 lines skipped and counted" 0 \
	"warning: 4 lines skipped" -- -skip-bad add -f "$L/corners.txt" l4
grep -q "warning: line 11: .*skipped" <<<"$out" &&
	grep -q "warning: line 14: .*skipped" <<<"$out"
result $? "corners: -skip-bad names each skipped line"
want_items l4 7 "corners: -skip-bad: the 7 IPv4 addresses added"
t "corners: -skip-bad -q: skipped silently" 0 "^$" -- \
	-q -skip-bad test -f "$L/corners.txt" l4

# Spamhaus format with full-length lines, CRLF, IPv4 and IPv6 mixed.
t "spamhaus hosts: 5 added" 0 "ls: 5 entries added" -- \
	-v add -f "$L/spamhaus_hosts.txt" ls
want_items ls 16 "spamhaus hosts: 16 items"
t "spamhaus hosts: a /128 line is its address" 0 "is in ls" -- \
	test ls 2001:db8:ffff::42
t "spamhaus hosts: del -f removes them" 0 "ls: 5 entries deleted" -- \
	-v del -f "$L/spamhaus_hosts.txt" ls
want_items ls 11 "spamhaus hosts: 11 items again"
t "spamhaus hosts: test -f says they are gone" 1 \
	"ls: 0 of 5 entries present \(probably\), 5 absent" -- \
	test -f "$L/spamhaus_hosts.txt" ls

# Prefixes: Spamhaus DROP and DROPv6, a FireHOL netset.
t "spamhaus DROP: its 3 prefixes added" 0 "ls: 3 entries added" -- \
	-v add -f "$L/spamhaus_drop.txt" ls
t "spamhaus DROPv6: its 2 prefixes added" 0 "ls: 2 entries added" -- \
	-v add -f "$L/spamhaus_dropv6.txt" ls
want_items ls 16 "spamhaus: 16 items"
t "spamhaus: show lists the lengths in use with their counts" 0 \
	"^Prefixes: .*ip src/24: 1.*ip src/25: 1.*ip src/26: 1.*ip6 src/36: 1.*ip6 src/48: 1" -- \
	show ls
t "spamhaus: -j too" 0 '"prefixes":\[\{"family":"ip","src":24,"entries":1\}' -- \
	-j show ls
t "spamhaus: addresses inside the prefixes are in" 0 "7 of 7 entries present" -- \
	test -f - ls <<<"192.0.2.200
198.51.100.127
203.0.113.64
203.0.113.127
2001:db8:1abc::1
2001:db8:2000:0:ffff::1
192.0.2.1"
t "spamhaus: addresses just outside are not" 1 "0 of 4 entries present" -- \
	test -f - ls <<<"198.51.100.128
203.0.113.63
2001:db8:3000::1
2001:db8:2001::1"
t "spamhaus: test of a prefix asks for that prefix" 0 "is in ls" -- \
	test ls 192.0.2.0/24
t "spamhaus: ... a longer one inside it is not in" 1 "is NOT in ls" -- \
	test ls 192.0.2.0/25
t "spamhaus: del of a prefix never added, of a length not in use: refused" 3 \
	"entry is not in the filter" -- del ls 192.0.2.0/28
t "spamhaus DROP: del -f" 0 "ls: 3 entries deleted" -- \
	-v del -f "$L/spamhaus_drop.txt" ls
t "spamhaus DROP: its lengths are gone, DROPv6's remain" 0 \
	"^Prefixes: ip6 src/36: 1, ip6 src/48: 1$" -- show ls
t "spamhaus DROP: an address it held passes again" 1 "is NOT in ls" -- \
	test ls 192.0.2.200
t "spamhaus DROPv6: del -f" 0 "" -- del -f "$L/spamhaus_dropv6.txt" ls
cf show ls
! grep -q "^Prefixes" <<<"$out"
result $? "spamhaus: no prefix left, no Prefixes line"
want_items ls 11 "spamhaus: 11 items again"
t "firehol netset: its 4 addresses and 3 prefixes" 0 "l4: 7 entries added" -- \
	-v add -f "$L/firehol.netset" l4
t "firehol netset: an address in 198.51.100.64/26" 0 "is in l4" -- \
	test l4 198.51.100.100
t "firehol ipset: 6 addresses" 0 "l4: 6 entries added" -- \
	-v add -f "$L/firehol_hosts.ipset" l4
want_items l4 20 "firehol: 20 items"
t "del -f firehol netset" 0 "l4: 7 entries deleted" -- \
	-v del -f "$L/firehol.netset" l4
want_items l4 13 "del -f firehol netset: 13 items"

# Bad lines.
t "bad_len: /33 on line 4" 2 \
	"add: line 4: prefix length /33 in '192.0.2.0/33' is past the end of an IPv4 address.*nothing was applied" -- \
	add -f "$L/bad_len.txt" ls
t "bad_v6len: /129 on line 3" 2 \
	"add: line 3: prefix length /129 .*IPv6" -- add -f "$L/bad_v6len.txt" ls
t "bad_hostbits: line 2, refused, not rounded down" 2 \
	"add: line 2: '192.0.2.1/24' has address bits set past its prefix length /24" -- \
	add -f "$L/bad_hostbits.txt" ls
t "bad_word: line 5" 2 "add: line 5: bad address '192.0.2.300'" -- \
	add -f "$L/bad_word.txt" ls
want_items ls 11 "bad lines: nothing applied"
t "bad_word: del -f, line 5, nothing deleted" 2 "del: line 5: " -- \
	del -f "$L/bad_word.txt" ls
want_items ls 11 "bad_word: del -f: nothing deleted"
t "bad_word: test -f, line 5" 2 "test: line 5: " -- \
	test -f "$L/bad_word.txt" ls
t "bad_word, -skip-bad: 1 line skipped, 3 added" 0 \
	"line 5: bad address.*skipped" -- -skip-bad add -f "$L/bad_word.txt" ls
want_items ls 14 "bad_word, -skip-bad: 14 items"
t "-skip-bad without -f is refused" 2 "-skip-bad goes with -f FILE" -- \
	-skip-bad add ls 192.0.2.99
t "-skip-bad with restore is refused" 2 "-skip-bad is for add, del, test" -- \
	-skip-bad restore -f "$L/corners.txt"
t "/0 is refused" 2 "a /0 prefix holds every address" -- add ls src 0.0.0.0/0
want_items ls 14 "/0: nothing applied"

# The bound: 32 combinations of lengths per family, the 33rd refused
# with nothing applied.
{
	for d in $(seq 1 31); do echo "src 10.0.0.0/8 dst 0.0.0.0/$d"; done
	echo "src 10.0.0.0/16 dst 0.0.0.0/1"
} >"$dir/c32"
echo "src 10.0.0.0/16 dst 0.0.0.0/2" >"$dir/c33"
t "32 combinations of lengths" 0 "lsd: 32 entries added" -- \
	-v add -f "$dir/c32" lsd
t "a 33rd is refused, the batch undone" 3 \
	"line 1: more than NF_CUCKOO_PREFIXES_MAX combinations of prefix lengths" -- \
	add -f "$dir/c33" lsd
want_items lsd 32 "the 33rd: nothing applied"
cf -j show lsd
[ "$(grep -o '"entries":1' <<<"$out" | wc -l)" = 32 ]
result $? "-j lists the 32 combinations, 1 entry each"
t "a 33rd in a batch with others: all undone" 3 "line 2: more than" -- \
	add -f - lsd <<<"src 10.0.0.0/8 dst 0.0.0.0/1
src 10.0.0.0/16 dst 0.0.0.0/3"
want_items lsd 32 "... 32 items still"
t "an address in a combination's prefixes" 0 "is in lsd" -- \
	test lsd src 10.0.77.1 dst 127.0.0.1
t "IPv6 combinations are counted apart" 0 "" -- \
	add lsd src 2001:db8::/32 dst 2001:db8::/33
t "full addresses are no combination" 0 "" -- add lsd 192.0.2.1 192.0.2.2
t "a prefix on half the key, the other address whole" 0 "" -- \
	add lsd src 2001:db8:77::/48 dst 2001:db8:8000::7
t "... which matches that destination" 0 "is in lsd" -- \
	test lsd src 2001:db8:77::9 dst 2001:db8:8000::7
t "... and no other" 1 "is NOT in lsd" -- \
	test lsd src 2001:db8:77::9 dst 2001:db8:8000::8

# Save and restore carry the counts.
cf save -f "$dir/lsd.save" lsd
grep -qE "^create lsd .* prefixes (ip|ip6)/[0-9]+/[0-9]+=1(,(ip|ip6)/[0-9]+/[0-9]+=1){33} grow factor 2 stages 8 image " \
	"$dir/lsd.save"
result $? "save: the create line carries the 34 combinations"
cf -j show lsd
before=$(grep -o '"prefixes":\[[^]]*\]' <<<"$out")
cf destroy lsd
t "restore" 0 "" -- restore -f "$dir/lsd.save"
cf -j show lsd
[ -n "$before" ] && [ "$before" = "$(grep -o '"prefixes":\[[^]]*\]' <<<"$out")" ]
result $? "restore: the same combinations and counts"
t "restore: an address in a prefix is still found" 0 "is in lsd" -- \
	test lsd src 10.0.77.1 dst 127.0.0.1
t "restore: the bound still holds" 3 "more than NF_CUCKOO_PREFIXES_MAX" -- \
	add -f "$dir/c33" lsd
# Edited saves: without their first and last lines (the checksum), as a
# save of before format 2 or a stream written by hand.
sed '1d;$d' "$dir/lsd.save" >"$dir/lsd.body"
sed 's/ prefixes [^ ]*//' "$dir/lsd.body" >"$dir/lsd.noprefix"
cf destroy lsd
cf restore -f "$dir/lsd.noprefix"
t "a save without its prefixes restores: full addresses are found" 0 \
	"is in lsd" -- test lsd src 192.0.2.1 dst 192.0.2.2
t "... but no address in a prefix" 1 "is NOT in lsd" -- \
	test lsd src 10.0.77.1 dst 127.0.0.1
cf destroy lsd
sed 's| prefixes ip/8/1=1| prefixes ip/8/1=1,ip/8/1=2|' "$dir/lsd.body" >"$dir/lsd.dup"
t "restore: a combination given twice is refused" 3 \
	"prefix counts do not fit the filter" -- restore -f "$dir/lsd.dup"
sed 's| prefixes ip/8/1=1| prefixes ip/40/1=1|' "$dir/lsd.body" >"$dir/lsd.bad"
t "restore: a length past the address is refused" 3 \
	"prefix counts do not fit the filter" -- restore -f "$dir/lsd.bad"

# build: the same list, offline, then restored here.
"$BUILD" build -f "$L/corners.txt" -o "$dir/b.img" lb key src \
	capacity 1000 fingerprint 32 >"$dir/b.out" 2>&1
rc=$?
out=$(cat "$dir/b.out")
[ $rc = 0 ]
result $? "build -f corners.txt"
t "build: its image restores" 0 "" -- restore -f "$dir/b.img"
t "build: every address of the list is in it" 0 \
	"lb: 11 of 11 entries present" -- test -f "$L/corners.txt" lb
"$BUILD" build -f "$L/spamhaus_drop.txt" -o "$dir/d.img" ld2 key src \
	fingerprint 32 >"$dir/b.out" 2>&1
rc=$?
out=$(cat "$dir/b.out")
[ $rc = 0 ] && grep -q "^create ld2 .* prefixes ip/24/0=1,ip/25/0=1,ip/26/0=1 grow factor 2 stages 8 image" "$dir/d.img"
result $? "build -f of prefixes: the image carries their lengths"
t "build: the image of prefixes restores" 0 "" -- restore -f "$dir/d.img"
t "build: an address in a prefix is in it" 0 "is in ld2" -- test ld2 203.0.113.99
"$BUILD" build -f "$L/bad_hostbits.txt" -o "$dir/h.img" lh key src \
	>"$dir/b.out" 2>&1
rc=$?
out=$(cat "$dir/b.out")
[ $rc = 2 ] && grep -q "line 2: '192.0.2.1/24' has address bits set" <<<"$out" &&
	[ ! -e "$dir/h.img" ]
result $? "build -f of a bad prefix: refused, line 2, no image"

cf destroy ls ld l4 lb ld2
[ $failed = 0 ]
