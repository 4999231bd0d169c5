#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl: every bad input gives a clear error, a non-zero exit status (2 for
# what cfctl itself rejects, 3 for what the kernel refuses, with its
# extended ack) and leaves the existing filters exactly as they were.
# TAP output.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$CFCTL" create keep family ip key src,dst,sport,dport,proto capacity 1000 seed 9
"$CFCTL" add keep udp 10.0.0.1:1 10.0.0.2:2 udp 10.0.0.1:3 10.0.0.2:4
"$CFCTL" create other family ip6 key src capacity 100
"$CFCTL" add other src 2001:db8::1
BEFORE=$(snapshot)

# bad DESC STATUS REGEX CMD...: the error, then nothing changed.
bad() {
	local desc=$1 want=$2 re=$3 after
	shift 3
	run "$@"
	after=$(snapshot)
	if [ "$RC" = "$want" ] && out_matches "$re" && [ "$after" = "$BEFORE" ]; then
		ok "$desc"
	elif [ "$after" != "$BEFORE" ]; then
		not_ok "$desc: the filters changed" "\$ $*" "$OUT" "before:" "$BEFORE" "after:" "$after"
		BEFORE=$after
	else
		not_ok "$desc" "\$ $*" "status $RC (want $want), output (want /$re/):" "$OUT"
	fi
}

# restore_bad DESC STATUS REGEX: the stream on stdin.
restore_bad() {
	cat >"$TMP/r"
	bad "$@" "$CFCTL" restore -f "$TMP/r"
}

plan 57

# Unknown filter.
bad "show of an unknown filter" 3 \
	"^cfctl: show: no filter .* \(No such file or directory\)$" "$CFCTL" show nosuch
bad "add to an unknown filter" 3 "no filter .*No such file" \
	"$CFCTL" add nosuch udp 10.0.0.1:1 10.0.0.2:2
bad "test on an unknown filter is an error (3), not 'absent' (1)" 3 "no filter" \
	"$CFCTL" test nosuch src 10.0.0.1
bad "destroy of an unknown filter" 3 "no filter" "$CFCTL" destroy nosuch
bad "flush of an unknown filter" 3 "no filter" "$CFCTL" flush nosuch
bad "set on an unknown filter" 3 "no filter" "$CFCTL" set nosuch action drop
bad "save of an unknown filter" 3 "no filter" "$CFCTL" save nosuch

# Duplicate name.
bad "create with a name in use" 3 "^cfctl: create: .*exist.* \(File exists\)$" \
	"$CFCTL" create keep capacity 5
bad "create -exist with a name in use: fine, and nothing changes" 0 "^$" \
	"$CFCTL" -exist create keep capacity 5

# Bad names.
bad "name with a space" 2 "bad filter name" "$CFCTL" create "a b"
bad "name with a slash" 2 "bad filter name" "$CFCTL" create a/b
bad "name of 32 characters" 2 "too long \(at most 31" \
	"$CFCTL" create abcdefghijklmnopqrstuvwxyz012345
bad "empty name" 2 "empty filter name" "$CFCTL" create ""

# Capacity.
bad "capacity 0" 2 "capacity must be at least 1" "$CFCTL" create c0 capacity 0
bad "capacity not a number" 2 "bad capacity" "$CFCTL" create c0 capacity 1e6
bad "capacity beyond 64 bits" 2 "bad capacity" \
	"$CFCTL" create c0 capacity 99999999999999999999
bad "absurd capacity: the kernel refuses, with its reason" 3 \
	"^cfctl: create: [a-z].*\((Disk quota exceeded|Invalid argument|Numerical result out of range|Cannot allocate memory)\)$" \
	"$CFCTL" create c0 capacity 1000000000000000000

# Fingerprint, fpr, bucket, kicks.
bad "fingerprint 5" 2 "bad fingerprint size '5' \(want 6 to 32 bits\)" \
	"$CFCTL" create f0 fingerprint 5
bad "fingerprint 33" 2 "bad fingerprint size" "$CFCTL" create f0 fingerprint 33
bad "fingerprint not a number" 2 "bad fingerprint size" "$CFCTL" create f0 fingerprint big
bad "fpr 0" 2 "bad false-positive rate" "$CFCTL" create f0 fpr 0
bad "fpr 1" 2 "bad false-positive rate" "$CFCTL" create f0 fpr 1
bad "fpr below what 32-bit fingerprints give: the kernel says so" 3 \
	"^cfctl: create: .*false-positive.*\(" "$CFCTL" create f0 fpr 1e-9 bucket 8
bad "bucket 3" 2 "bad bucket size" "$CFCTL" create f0 bucket 3
bad "semisort with bucket 8: refused before asking, in the module's words" 2 \
	"^cfctl: create: semi-sorted buckets need bucket size 4$" \
	"$CFCTL" create f0 semisort bucket 8
bad "bidirectional with one address: the kernel says why" 3 \
	"^cfctl: create: bidirectional needs both addresses or neither.*\(Invalid argument\)$" \
	"$CFCTL" create f0 key src,dport bidirectional
bad "priority out of netfilter's range: the kernel names the attribute" 3 \
	"priority.*\(Numerical result out of range|priority.*\(Invalid argument" \
	"$CFCTL" create f0 priority -2147483648

# Malformed and wrong-family entries.
bad "port out of range" 2 "bad port '65536'" \
	"$CFCTL" add keep udp 10.0.0.1:65536 10.0.0.2:2
bad "address out of range" 2 "bad address '10.0.0.256:1'" \
	"$CFCTL" add keep udp 10.0.0.256:1 10.0.0.2:2
bad "missing destination for a 5-tuple key" 2 \
	"key \(src,dst,sport,dport,proto\) needs the destination address" \
	"$CFCTL" add keep udp 10.0.0.1:1
bad "garbage entry" 2 "unrecognized word 'frob'" "$CFCTL" add keep frob
bad "an IPv6 entry for an IPv4 filter" 2 "holds IPv4 only, and this entry is IPv6" \
	"$CFCTL" add keep "udp [2001:db8::1]:1 [2001:db8::2]:2"
bad "a field outside the key" 2 "gives a destination address, which is not in filter other's key" \
	"$CFCTL" add other src 2001:db8::2 dst 2001:db8::3
bad "one bad entry among good ones: nothing added" 2 "entry 3" \
	"$CFCTL" add keep udp 10.0.0.5:1 10.0.0.2:2 , udp 10.0.0.6:1 10.0.0.2:2 , udp 10.0.0.7:x 10.0.0.2:2
printf 'udp 10.0.0.8:1 10.0.0.2:2\nudp 10.0.0.9:1 10.0.0.2:2\n\nudp 10.0.0.10:1\n' >"$TMP/f"
bad "add -f with a bad line 4: its number, nothing added" 2 "^cfctl: add: line 4: .*nothing was applied" \
	"$CFCTL" add -f "$TMP/f" keep

# Entry files that are not text: refused with the line, nothing added,
# in bounded memory (getline() grew without end on /dev/zero, and its
# failure read as the end of the file: what came before was applied).
bad "add -f /dev/zero: line 1 is no text, exit 2, in little memory" 2 \
	"^cfctl: add: line 1: a NUL byte at byte 1: not a text line; nothing was applied" \
	timeout 60 bash -c 'ulimit -v 300000; exec "$0" add -f /dev/zero keep' "$CFCTL"
{ echo "udp 10.0.0.20:1 10.0.0.2:2"; head -c 71680 /dev/zero | tr '\0' ' '; echo x; } >"$TMP/long"
bad "add -f with a 70 KiB line 2: refused, nothing added" 2 \
	"^cfctl: add: line 2: the line is longer than 65536 bytes; nothing was applied" \
	"$CFCTL" add -f "$TMP/long" keep
printf 'udp 10.0.0.21:1 10.0.0.2:2\nudp 10.0.0.22:1 10.0.0.2:2\0 junk\n' >"$TMP/nul"
bad "add -f with a NUL byte in line 2: refused, nothing added" 2 \
	"^cfctl: add: line 2: a NUL byte at byte 27" "$CFCTL" add -f "$TMP/nul" keep
bad "add -f of a missing file: an input error, exit 2" 2 \
	"^cfctl: add: cannot open $TMP/nosuch" "$CFCTL" add -f "$TMP/nosuch" keep
bad "add NAME , : no entries, exit 2" 2 "no entries given" "$CFCTL" add keep ,
bad "'ip' is no protocol (getprotobyname() made it 0)" 2 "unknown protocol 'ip'" \
	"$CFCTL" add other src 2001:db8::9 proto ip
bad "an IPv4-mapped address in a filter holding IPv4" 2 \
	"::ffff:10.0.0.1 is an IPv4-mapped IPv6 address.*write 10.0.0.1" \
	"$CFCTL" add keep "udp [::ffff:10.0.0.1]:1 [::ffff:10.0.0.2]:2"
{ echo "# $(seq 40 | tr '\n' ' ')"; echo "udp 10.0.0.23:1 10.0.0.2:2"; } >"$TMP/comment"
check "a comment line of 40 words in an entry file is a comment" \
	"$CFCTL" add -f "$TMP/comment" keep
"$CFCTL" del keep udp 10.0.0.23:1 10.0.0.2:2

# Restore: empty and garbage lines.
printf '\n   \n# only comments\n\n' >"$TMP/empty"
bad "restore of blank lines and comments: fine, nothing changes" 0 "^$" \
	"$CFCTL" restore -f "$TMP/empty"
bad "restore of an empty stream: fine, nothing changes" 0 "^$" \
	"$CFCTL" restore -f /dev/null
restore_bad "restore: an add line without an entry" 2 "^cfctl: restore: line 2: 'add keep' without an entry; nothing was applied" <<EOF
add keep udp 10.0.0.11:1 10.0.0.2:2
add keep
EOF
restore_bad "restore: a garbage line 3 after good ones: nothing applied" 2 \
	"^cfctl: restore: line 3: unknown command 'frobnicate'.*nothing was applied" <<EOF
add keep udp 10.0.0.12:1 10.0.0.2:2
create fresh capacity 10
frobnicate the filters
EOF
{ head -c 300 /dev/urandom | tr -d '\n#' | tr '\0' x; echo; } >"$TMP/bin"
restore_bad "restore: binary garbage" 2 "line 1: (unknown command|too many words)" <"$TMP/bin"
restore_bad "restore: add to a filter that does not exist" 2 "line 1: no filter named nosuch" <<EOF
add nosuch src 10.0.0.1
EOF
restore_bad "restore: create of an existing filter" 2 "line 2: a filter named keep already exists" <<EOF
create fresh capacity 10
create keep capacity 10
EOF
restore_bad "restore: a load line without its create line" 2 "line 1: 'load keep' without a 'create keep" <<EOF
load keep 0 AAAAAAAAAAA=
EOF
restore_bad "restore: bad base64 in a load line" 2 "line 2: bad base64" <<EOF
create fresh family inet image AAAAAAAAAAA=
load fresh 0 AAAA!AAAAAA=
EOF
restore_bad "restore: a load line at the wrong offset" 2 "line 3: table offset 16, expected 8" <<EOF
create fresh family inet image AAAAAAAAAAA=
load fresh 0 AAAAAAAAAAA=
load fresh 16 AAAAAAAAAAA=
EOF
restore_bad "restore: a bad entry on line 2 of 3" 2 "line 2: bad port" <<EOF
add keep udp 10.0.0.13:1 10.0.0.2:2
add keep udp 10.0.0.14:99999 10.0.0.2:2
add keep udp 10.0.0.15:1 10.0.0.2:2
EOF
restore_bad "restore: an add after the filter's destroy line" 2 \
	"line 3: no filter named keep \\(destroyed on line 2\\); nothing was applied" <<EOF
add keep udp 10.0.0.16:1 10.0.0.2:2
destroy keep
add keep udp 10.0.0.17:1 10.0.0.2:2
EOF
restore_bad "restore: an add to another filter after a run of adds" 2 \
	"line 3: no filter named nosuch; nothing was applied" <<EOF
add keep udp 10.0.0.18:1 10.0.0.2:2
add keep udp 10.0.0.19:1 10.0.0.2:2
add nosuch udp 10.0.0.20:1 10.0.0.2:2
EOF

[ -z "$(filters | grep -vx -e keep -e other)" ] && ok "no stray filter was left behind" ||
	not_ok "no stray filter was left behind" "$(filters)"

finish
