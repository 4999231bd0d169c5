#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Blocklist files (tools/cfctl/lists/) with add/del/test/build -f: one
# address a line for a filter keyed on src or dst alone, '#' and ';'
# comments, blank lines, CRLF, a byte order mark, IPv4 and IPv6 mixed;
# prefixes of Spamhaus DROP and FireHOL netsets refused with their line,
# or skipped and counted with -skip-bad; nothing applied on an error.
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
n=0
failed=0
out=
rc=

cf() {	# cf ARGS...: run, keep output (both streams) and status
	out=$("$CFCTL" "$@" 2>&1)
	rc=$?
}

result() {	# result OK DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $prefix: $2"
	else
		echo "not ok $n - $prefix: $2"
		echo "# last status $rc, output:"
		sed 's/^/#   /' <<<"$out" | head -n 20
		failed=$((failed + 1))
	fi
}

# t DESCRIPTION WANT_STATUS PATTERN -- ARGS...
t() {
	local desc=$1 want=$2 pat=$3
	shift 4
	cf "$@"
	[ "$rc" = "$want" ] && grep -qE -- "$pat" <<<"$out"
	result $? "$desc"
}

items() {	# items NAME: the filter's item count, or "none"
	"$CFCTL" show "$1" 2>/dev/null | sed -n 's/^Items: //p' | grep . ||
		echo none
}

# want_items NAME COUNT DESCRIPTION
want_items() {
	local got
	got=$(items "$1")
	out="items of $1: $got, want $2"
	rc=-
	[ "$got" = "$2" ]
	result $? "$3"
}

echo "TAP version 13"
echo "1..57"

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

# Prefixes: refused, the line named, nothing applied.
t "spamhaus DROP: its first prefix refused, line 6" 2 \
	"add: line 6: '192.0.2.0/24' is a network prefix.*nothing was applied" -- \
	add -f "$L/spamhaus_drop.txt" ls
want_items ls 11 "spamhaus DROP: nothing applied"
t "spamhaus DROPv6: line 6" 2 \
	"add: line 6: '2001:db8:1000::/36' is a network prefix" -- \
	add -f "$L/spamhaus_dropv6.txt" ls
t "spamhaus DROP, -skip-bad: no line left is an error" 2 \
	"no line could be an entry of filter ls: nothing to do" -- \
	-skip-bad add -f "$L/spamhaus_drop.txt" ls
want_items ls 11 "spamhaus DROP, -skip-bad: nothing applied"
t "firehol netset: line 23 (192.0.2.128/25)" 2 \
	"add: line 23: '192.0.2.128/25' is a network prefix" -- \
	add -f "$L/firehol.netset" l4
want_items l4 7 "firehol netset: nothing applied"
t "firehol netset, -skip-bad: 3 prefixes skipped" 0 \
	"warning: 3 lines skipped" -- -skip-bad add -f "$L/firehol.netset" l4
want_items l4 11 "firehol netset, -skip-bad: its 4 addresses added"
t "firehol ipset: 6 addresses" 0 "l4: 6 entries added" -- \
	-v add -f "$L/firehol_hosts.ipset" l4
want_items l4 17 "firehol ipset: 17 items"
t "del -f firehol netset -skip-bad: its 4 addresses deleted" 0 \
	"l4: 4 entries deleted" -- -v -skip-bad del -f "$L/firehol.netset" l4
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
t "a prefix on the command line is refused" 2 \
	"'203.0.113.0/24' is a network prefix" -- add ls src 203.0.113.0/24
want_items ls 14 "command line prefix: nothing applied"

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
	>"$dir/b.out" 2>&1
rc=$?
out=$(cat "$dir/b.out")
[ $rc = 2 ] && grep -q "line 6: '192.0.2.0/24' is a network prefix" <<<"$out" &&
	[ ! -e "$dir/d.img" ]
result $? "build -f of prefixes: refused, line 6, no image"

cf destroy ls ld l4 lsd lb
[ $failed = 0 ]
