#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl's command line without a kernel: help, usage errors and their exit
# status (2), checked before any netlink, entry syntax included (on the
# command line and in -f files).  TAP output.
#   test_cli.sh [PATH/TO/cfctl]
set -u
CFCTL=${1:-$(dirname "$0")/cfctl}
n=0
failed=0

t() {	# t DESCRIPTION WANT_STATUS PATTERN -- ARGS...
	local desc=$1 want=$2 pat=$3 out rc
	shift 4
	out=$("$CFCTL" "$@" 2>&1)
	rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" <<<"$out"; then
		echo "ok $n - cfctl cli: $desc"
	else
		echo "not ok $n - cfctl cli: $desc"
		echo "# cfctl $* -> status $rc (want $want), output:"
		sed 's/^/#   /' <<<"$out"
		failed=$((failed + 1))
	fi
}

# tl: t, with cfctl in 200 MB of address space and 30 s at most.
tl() {
	local c=$CFCTL
	CFCTL=$TMP/limited
	t "$@"
	CFCTL=$c
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf '#!/bin/bash\nulimit -v 200000\nexec timeout 30 "%s" "$@"\n' "$(realpath "$CFCTL")" >"$TMP/limited"
chmod +x "$TMP/limited"
{ head -c 71680 /dev/zero | tr '\0' ' '; echo x; } >"$TMP/long"
printf '# only a comment\nsrc 1.2.3.4\0 src 5.6.7.8\n' >"$TMP/nul"
{ echo "# $(seq 100 | tr '\n' ' ')"; echo; echo "  # $(seq 70 | tr '\n' ' ')"; } >"$TMP/comments"

echo "TAP version 13"
bad=$TMP/bad
printf 'udp 10.0.0.1:1 10.0.0.2:2\n# comment\n\nudp 10.0.0.1:1 nowhere:2\nudp 10.0.0.3:1 10.0.0.4:2\n' >"$bad"
echo "1..42"
t "-h prints the usage" 0 "^Usage: cfctl" -- -h
t "--help too" 0 "restore \[-f FILE\]" -- --help
t "help VERB explains the verb" 0 "Usage: cfctl add" -- help add
t "help VERB shows entry syntax" 0 "\[2001:db8::1\]:443" -- help test
t "VERB -h is help VERB" 0 "Usage: cfctl create" -- create -h
t "--version" 0 "^cfctl [0-9]" -- --version
t "no command: usage, status 2" 2 "^Usage" --
t "unknown command" 2 "cfctl: unknown command 'frob'" -- frob
t "unknown option" 2 "unknown option '--frob'" -- --frob list
t "help for an unknown command" 2 "unknown command 'frob'" -- help frob
t "create without a name" 2 "cfctl: create: missing filter name" -- create
t "create: bad name" 2 "cfctl: create: bad filter name 'a/b'" -- create a/b
t "create: name too long" 2 "too long" -- create abcdefghijklmnopqrstuvwxyz0123456789
t "create: capacity 0" 2 "capacity must be at least 1" -- create x capacity 0
t "create: capacity not a number" 2 "bad capacity 'lots'" -- create x capacity lots
t "create: fingerprint 5" 2 "bad fingerprint size '5' \(want 6 to 32 bits\)" -- create x fingerprint 5
t "create: fpr and fingerprint" 2 "not both" -- create x fpr 0.01 fingerprint 8
t "create: unknown parameter" 2 "unknown parameter 'colour'" -- create x colour blue
t "create: image only in restore" 2 "only valid in a restore" -- create x image AAAA
t "set: fixed parameter" 2 "fixed when a filter is created" -- set x capacity 5
t "set: nothing to set" 2 "nothing to set" -- set x
t "add without entries" 2 "no entries given" -- add x
t "add: entries and -f" 2 "not both" -- add -f /dev/null x src 1.2.3.4
t "restore takes no names" 2 "usage: cfctl restore" -- restore x
t "add: entry syntax before the kernel" 2 "add: entry 1: unrecognized word 'garbage'" -- add f garbage
t "add: second entry's syntax too" 2 "add: entry 2: " -- add f udp 10.0.0.1:1 10.0.0.2:2 , udp 10.0.0.1:99999 10.0.0.2:2
t "del: entry syntax before the kernel" 2 "del: entry 1: unrecognized word 'garbage'" -- del f garbage
t "test: entry syntax before the kernel" 2 "test: entry 1: unrecognized word 'garbage'" -- test f garbage
t "add -f: a bad line is named before the kernel" 2 "add: line 4: .*nothing was applied" -- add -f "$bad" f
t "test -f: no entries" 2 "no entries to test" -- test -f /dev/null f
# Input that is no text is an error of its line, with or without the
# module, in bounded memory: getline() grew without end on /dev/zero.
tl "restore -f /dev/zero: line 1, exit 2, in 200 MB" 2 \
	"^cfctl: restore: line 1: a NUL byte at byte 1: not a text line; nothing was applied" -- restore -f /dev/zero
tl "restore: a 70 KiB line" 2 \
	"^cfctl: restore: line 1: the line is longer than 65536 bytes; nothing was applied" -- restore -f "$TMP/long"
t "restore: a NUL byte in line 2" 2 "^cfctl: restore: line 2: a NUL byte at byte 12" -- restore -f "$TMP/nul"
t "restore: a read error is not the end of the input" 3 \
	"^cfctl: restore: read error at line 1: Is a directory; nothing was applied" -- restore -f /
t "restore: comment lines of 100 and 70 words are comments" 0 "^$" -- restore -f "$TMP/comments"
t "restore: a missing file is an input error" 2 "cannot open $TMP/nosuch" -- restore -f "$TMP/nosuch"
t "add -f: a missing file is an input error" 2 "^cfctl: add: cannot open $TMP/nosuch" -- add -f "$TMP/nosuch" x
t "test -f: a missing file is an input error" 2 "^cfctl: test: cannot open" -- test -f "$TMP/nosuch" x
t "add NAME , : no entries, as add NAME" 2 "no entries given" -- add x ,
t "del NAME with only separators" 2 "no entries given" -- del x " , " ,
t "add NAME '' : no entries" 2 "no entries given" -- add x ""
t "help lists the protocol names cfctl takes" 0 "icmpv6, gre, esp, ah, igmp," -- help add
[ $failed = 0 ]
