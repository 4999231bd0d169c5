#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl's command line without a kernel: help, usage errors and their exit
# status (2), checked before any netlink, entry syntax included (on the
# command line and in -f files); and cfctl build, which needs no kernel:
# what it refuses, that it then writes nothing, where it writes.  TAP
# output.
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
echo "1..109"
t "-h prints the usage" 0 "^Usage: cfctl" -- -h
t "--help too" 0 "restore \[-exist \| -replace\] \[-keep GLOB\]\.\.\. \[-f FILE\]" -- --help
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
t "create: semisort with bucket 8, the module's words" 2 "^cfctl: create: semi-sorted buckets need bucket size 4$" -- create x semisort bucket 8
t "create: semisort with bucket 2" 2 "semi-sorted buckets need bucket size 4" -- create x bucket 2 semisort
t "set: semisort is fixed" 2 "fixed when a filter is created" -- set x semisort
t "help create: semisort and nosemisort" 0 "semisort \| nosemisort" -- help create
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
# (/proc/self/mem opens, and reading its first page fails: EIO.)
t "restore: a read error is not the end of the input" 3 \
	"^cfctl: restore: read error at line 1: Input/output error; nothing was applied" -- restore -f /proc/self/mem
t "restore: comment lines of 100 and 70 words are comments" 0 "^$" -- restore -f "$TMP/comments"
t "restore: a missing file is an input error" 2 "cannot open $TMP/nosuch" -- restore -f "$TMP/nosuch"
t "add -f: a missing file is an input error" 2 "^cfctl: add: cannot open $TMP/nosuch" -- add -f "$TMP/nosuch" x
t "test -f: a missing file is an input error" 2 "^cfctl: test: cannot open" -- test -f "$TMP/nosuch" x
# A directory opens for reading but cannot be read: an input error too.
t "add -f DIRECTORY: an input error, the reason given" 2 "^cfctl: add: cannot open $TMP: Is a directory" -- add -f "$TMP" x
t "del -f DIRECTORY too" 2 "^cfctl: del: cannot open $TMP: Is a directory" -- del -f "$TMP" x
t "test -f DIRECTORY too" 2 "^cfctl: test: cannot open $TMP: Is a directory" -- test -f "$TMP" x
t "restore -f DIRECTORY too" 2 "^cfctl: restore: cannot open $TMP: Is a directory" -- restore -f "$TMP"
t "build -f DIRECTORY too" 2 "^cfctl: build: cannot open $TMP: Is a directory" -- build -f "$TMP" -o "$TMP/dirimg" b
t "add NAME , : no entries, as add NAME" 2 "no entries given" -- add x ,
t "del NAME with only separators" 2 "no entries given" -- del x " , " ,
t "add NAME '' : no entries" 2 "no entries given" -- add x ""
t "help lists the protocol names cfctl takes" 0 "icmpv6, gre, esp, ah, igmp," -- help add
# Growth (issue 20): the words, refused before the kernel with a reason.
t "help create: grow, nogrow, factor, stages" 0 "\[grow \| nogrow\] \[factor F\] \[stages S\]" -- help create
t "help create: the cost and the bound of growth" 0 "A lookup asks every" -- help create
t "help create: under twice the first stage's bound" 0 "under twice" -- help create
t "help set: grow and nogrow" 0 "\[grow \| nogrow\]" -- help set
t "help del: ambiguous deletes, and what to do" 0 "see compact" -- help del
t "create: grow and nogrow" 2 "^cfctl: create: give grow or nogrow, not both$" -- create x grow nogrow
t "create: factor 1" 2 "^cfctl: create: bad growth factor '1' \(want 2 to 8" -- create x factor 1
t "create: factor 9" 2 "bad growth factor '9'" -- create x factor 9
t "create: stages 0" 2 "^cfctl: create: bad number of stages '0' \(want 1 to 16" -- create x stages 0
t "create: stages 17" 2 "bad number of stages '17'" -- create x stages 17
t "create: stages without a value" 2 "'stages' needs a value" -- create x stages
t "set: factor is fixed" 2 "'factor' is fixed when a filter is created" -- set x factor 4
t "set: stages is fixed" 2 "'stages' is fixed when a filter is created" -- set x stages 4
t "set: grow and nogrow" 2 "not both" -- set x nogrow grow
t "build: factor 1, as create says" 2 "^cfctl: build: bad growth factor '1'" -- build -f /dev/null -o - b factor 1

# cfctl build.  ck DESC STATUS: a test point, ok if STATUS is 0.
ck() {
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n - cfctl cli: $1"
	else
		echo "not ok $n - cfctl cli: $1"
		failed=$((failed + 1))
	fi
}
# nofile DESC FILE: ok if FILE does not exist (nor a temporary file
# beside it).
nofile() {
	[ ! -e "$2" ] && ! ls "$2".* >/dev/null 2>&1
	ck "$1" $?
	[ -e "$2" ] && echo "# $(ls -l "$2"* 2>&1)"
}
# same DESC -- ARGS -- ARGS: both fail with one status and message but for
# the verb's name (and build's word on the image it did not write).
same() {
	local desc=$1 a b ra rb args=()
	shift 2
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	a=$("$CFCTL" "${args[@]}" 2>&1)
	ra=$?
	b=$("$CFCTL" "$@" 2>&1)
	rb=$?
	a=$(sed -E 's/^cfctl: [a-z]+: //' <<<"$a")
	b=$(sed -E 's/^cfctl: build: //; /was left as it was$/d' <<<"$b")
	[ "$ra" = "$rb" ] && [ "$ra" != 0 ] && [ "$a" = "$b" ]
	ck "$desc" $?
	[ "$a" = "$b" ] || printf '%s\n--\n%s\n' "$a" "$b" | sed 's/^/#   /'
}
img=$TMP/img
good=$TMP/good
for i in $(seq 1 300); do echo "udp 10.1.$((i / 256)).$((i % 256)):$i 192.0.2.1:53"; done >"$good"
t "help build" 0 "Usage: cfctl build -f FILE -o IMAGE NAME" -- help build
t "help monitor" 0 "Usage: cfctl monitor \[-j\] \[rcvbuf BYTES\]" -- help monitor
t "the usage lists monitor" 0 "^  monitor \[-j\]" -- -h
t "monitor with a stray word" 2 "^cfctl: monitor: usage: cfctl monitor" -- monitor bl
t "monitor rcvbuf 0" 2 "^cfctl: monitor: rcvbuf: '0' is not a size" -- monitor rcvbuf 0
t "the usage lists build" 0 "^  build -f FILE -o IMAGE NAME" -- -h
t "the usage lists -o" 0 "^  -o IMAGE  " -- -h
t "build without a name" 2 "^cfctl: build: missing filter name; usage: cfctl build -f FILE -o IMAGE NAME" -- build -f "$good" -o "$img"
t "build without -f" 2 "^cfctl: build: missing -f FILE" -- build -o "$img" b
t "build without -o" 2 "^cfctl: build: missing -o IMAGE" -- build -f "$good" b
nofile "... no image" "$img"
t "build: a bad parameter, as create says" 2 "^cfctl: build: unknown parameter 'colour'" -- build -f "$good" -o "$img" b colour blue
nofile "... no image" "$img"
same "build: create's message for capacity 0" -- create b capacity 0 -- build -f "$good" -o "$img" b capacity 0
same "build: create's message for fpr and fingerprint" -- create b fpr 0.01 fingerprint 8 -- build -f "$good" -o "$img" b fpr 0.01 fingerprint 8
same "build: create's message for a bad name" -- create a/b -- build -f "$good" -o "$img" a/b
t "build: image is restore's only" 2 "only valid in a restore" -- build -f "$good" -o "$img" b image AAAA
same "build: add's message for a bad line, named" -- add -f "$bad" b -- build -f "$bad" -o "$img" b
t "... line 4, nothing applied" 2 "^cfctl: build: line 4: .*nothing was applied" -- build -f "$bad" -o "$img" b
nofile "... no image" "$img"
same "build: add's message for a missing file" -- add -f "$TMP/nosuch" b -- build -f "$TMP/nosuch" -o "$img" b
t "build: the module's refusal of the geometry" 3 "^cfctl: build: .*capacity" -- build -f "$good" -o "$img" b fingerprint 32 bucket 8 capacity 0xffffffffffffffff
t "build: an entry the key refuses, line 301" 2 "^cfctl: build: line 301: .*nothing was applied" -- build -f <(cat "$good"; echo "udp [2001:db8::1]:1 [2001:db8::2]:2") -o "$img" b family ip
nofile "... no image" "$img"
t "build: a full filter, the failing line named" 3 "^cfctl: build: line [0-9]+: filter is full" -- build -f "$good" -o "$img" b capacity 8 bucket 2 nogrow
nofile "... no image" "$img"
t "build: an unwritable output, status 3" 3 "^cfctl: build: cannot write $TMP/nodir/img: No such file" -- build -f "$good" -o "$TMP/nodir/img" b
t "build: -o DIR is unwritable too" 3 "^cfctl: build: cannot write $TMP" -- build -f "$good" -o "$TMP" b
echo keep >"$TMP/old"
t "build: a failed build over a file" 3 "was left as it was" -- build -f "$good" -o "$TMP/old" b capacity 8 bucket 2 nogrow
[ "$(cat "$TMP/old")" = keep ] && ! ls "$TMP"/old.?* >/dev/null 2>&1
ck "... leaves it as it was" $?
t "build -o - : a failed build prints nothing on stdout" 3 "^cfctl: build: line [0-9]+: filter is full" -- build -f "$good" -o - b capacity 8 bucket 2 nogrow
out=$("$CFCTL" build -f "$good" -o - b capacity 8 bucket 2 nogrow 2>/dev/null)
[ -z "$out" ]
ck "... not a byte" $?
t "-o is build's only" 2 "^cfctl: save: -o is build's" -- save -o "$img"

t "build: 300 entries" 0 "^$" -- build -f "$good" -o "$img" b capacity 1000 seed 7
head -1 "$img" | grep -q "^# nf_cuckoo save 2: a filter built offline by cfctl " &&
	sed -n 2p "$img" | grep -qE "^create b family inet key src,dst,sport,dport,proto capacity 1000 fingerprint 12 bucket 4 kicks 500 hook prerouting priority -300 action drop grow factor 2 stages 8 image [A-Za-z0-9+/=]+$" &&
	[ "$(grep -cE "^load b [0-9]+ " "$img")" = "$(($(wc -l <"$img") - 3))" ] &&
	[ "$(tail -n 1 "$img")" = "# end sha256 $(head -n -1 "$img" | sha256sum | cut -d' ' -f1)" ]
ck "... the image: a comment, a create line with the image, load lines, the checksum of all that" $?
"$CFCTL" build -f - -o - b capacity 1000 seed 7 <"$good" | cmp -s - "$img"
ck "build -f - -o - : the same image on stdout" $?
t "build -v says what was done, on stderr" 0 "^build: image of b written to $TMP/img2 in" -- -v build -f "$good" -o "$TMP/img2" b capacity 1000 seed 7
cmp -s "$img" "$TMP/img2"
ck "... the same image again" $?
"$CFCTL" build -f "$good" -o "$TMP/r1" b capacity 1000
"$CFCTL" build -f "$good" -o "$TMP/r2" b capacity 1000
[ -s "$TMP/r1" ] && ! cmp -s "$TMP/r1" "$TMP/r2"
ck "build without a seed: a random one each time" $?
t "build -exist: duplicates skipped" 0 "b: 300 entries added, 300 skipped" -- -v -exist build -f <(cat "$good" "$good") -o "$TMP/img3" b capacity 1000 seed 7
cmp -s "$img" "$TMP/img3"
ck "... the image of the entries once" $?
t "build: no entries (-f /dev/null) is an empty filter" 0 "" -- build -f /dev/null -o "$TMP/empty" e capacity 1Mi
grep -qE "^load e 0 zero [0-9]+$" "$TMP/empty"
ck "... one zero run" $?
[ $failed = 0 ]
