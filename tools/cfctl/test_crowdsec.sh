#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CrowdSec adapter (contrib/crowdsec/nf-cuckoo-crowdsec) against
# cfctl_fake, without a kernel: the adapter's cfctl is a wrapper around
# cfctl_fake that logs every call and, when a test arms it, kills or
# signals the adapter, sleeps past its timeout or fails, before or after
# the real call.  What is checked: the filter (asked with cfctl test, on
# filters of 32-bit fingerprints: no false positive) holds exactly the
# adapter's state after every fault, refusals cost a bounded number of
# cfctl runs, a grown filter is compacted to one stage, and the log stays
# one line per message.  TAP output.
#   test_crowdsec.sh [PATH/TO/cfctl_fake]
# ADAPTER= runs another copy of the adapter (an older one, to see these
# tests fail on it).
set -u
CFCTL=${1:-$(dirname "$0")/cfctl_fake}
CFCTL=$(cd "$(dirname "$CFCTL")" && pwd)/$(basename "$CFCTL")
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ADAPTER=${ADAPTER:-$TOP/contrib/crowdsec/nf-cuckoo-crowdsec}
prefix=${TAP_PREFIX:-crowdsec adapter}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
export CFCTL_FAKE_STATE=$dir/fake.state
# A write to an adapter that died fails, and does not end this script.
trap "" PIPE
unset CFCTL_FAKE_FAIL_AT CFCTL_FAKE_MEM_MAX
# shellcheck source=tools/cfctl/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

# The adapter's cfctl.  $dir/fault, when present, holds "REGEX K PHASE
# WHAT": the K-th call (since it was armed) whose arguments match REGEX
# gets WHAT, before the real call (PHASE before) or after it (after):
#   KILL, TERM, HUP   that signal to the adapter (before + KILL: the real
#                     call is not made, as if the adapter died first)
#   sleepN            sleep N seconds (after the real call: a cfctl that
#                     did its work and then hung)
#   fail              exit 3 with a message, without the real call
W=$dir/cfctl
cat >"$W" <<EOF
#!/bin/bash
d=$dir
real=$CFCTL
EOF
cat >>"$W" <<'EOF'
echo "$*" >>"$d/calls.log"
arm=
if [ -f "$d/fault" ] && read -r re k phase what <"$d/fault" && [[ "$*" =~ $re ]]; then
	echo x >>"$d/fault.count"
	[ "$(wc -l <"$d/fault.count")" = "$k" ] && arm=$phase
fi
fault() {
	rm -f "$d/fault" "$d/fault.count"
	echo "$what $*" >>"$d/faults.log"
	case $what in
	KILL | TERM | HUP) kill -"$what" "$PPID" ;;
	sleep*) sleep "${what#sleep}" ;;
	fail) echo "cfctl: injected failure" >&2; exit 3 ;;
	esac
}
if [ "$arm" = before ]; then
	fault "$@"
	[ "$what" = KILL ] && exit 137
fi
"$real" "$@"
rc=$?
[ "$arm" = after ] && fault "$@"
exit $rc
EOF
chmod +x "$W"

export NF_CUCKOO_CROWDSEC_CONF=$dir/conf
STATE=$dir/state
LOG=$dir/log
F=cs
conf() {	# conf [KEY = VALUE...]: the configuration, with these added
	{
		echo "filter = $F"
		echo "state = $STATE"
		echo "log = $LOG"
		echo "cfctl = $W"
		echo "batch_wait = 0.2"
		printf '%s\n' "$@"
	} >"$NF_CUCKOO_CROWDSEC_CONF"
}
# fresh [CREATE ARGS...]: no filter, state or log; the filter made by
# hand (32-bit fingerprints unless told), which the adapter then keeps.
fresh() {
	rm -f "$CFCTL_FAKE_STATE" "$STATE" "$STATE".* "$LOG" "$dir/calls.log" \
		"$dir/fault" "$dir/fault.count" "$dir/faults.log"
	[ $# = 0 ] && set -- capacity 1000 fingerprint 32
	"$CFCTL" create "$F" family inet key src "$@" >/dev/null
	conf
}
# dec ACTION VALUE [SCOPE]: one decision line, as the bouncer writes it.
dec() { printf '{"action":"%s","value":"%s","scope":"%s"}\n' "$1" "$2" "${3:-Ip}"; }
# feed: run the adapter on stdin until its end; its status in $arc.
feed() { "$ADAPTER"; arc=$?; }
state() { "$ADAPTER" show; }
calls() { [ -f "$dir/calls.log" ] && grep -cE "$1" "$dir/calls.log" || echo 0; }
logged() {
	local c

	c=$(grep -cE -- "$1" "$LOG" 2>/dev/null)
	echo "${c:-0}"
}
fjson() {	# fjson EXPR: python expression on the filter's show -j, as f
	"$CFCTL" -j show "$F" 2>/dev/null |
		python3 -c "import json, sys; f = json.load(sys.stdin); print($1)" 2>/dev/null ||
		echo none
}
# same POOL DESC: the filter holds exactly the state's values (of
# POOL, a file of values, one a line, that holds every value used): each
# value of the state tests present, each other of the pool absent, and
# the filter's count is the state's.
same() {
	local s k
	s=$(state | sort)
	k=$(grep -c . <<<"$s")
	comm -23 <(sort -u "$1") <(echo "$s") | sed 's/^/src /' >"$dir/absent"
	sed 's/^/src /' <<<"$s" | grep -v '^src $' >"$dir/present"
	out="state: $(tr '\n' ' ' <<<"$s"); items: $(items "$F")"
	rc=-
	[ "$(items "$F")" = "$k" ] || { result 1 "$2"; return; }
	if [ -s "$dir/present" ]; then
		"$CFCTL" test -f "$dir/present" "$F" >/dev/null 2>&1 ||
			{ out="$out; some of the state absent"; result 1 "$2"; return; }
	fi
	if [ -s "$dir/absent" ]; then
		local t
		t=$("$CFCTL" test -f "$dir/absent" "$F" 2>&1)
		grep -q ": 0 of " <<<"$t" ||
			{ out="$out; held outside the state: $t"; result 1 "$2"; return; }
	fi
	result 0 "$2"
}
# oneline: every line of the log is one of the adapter's (timestamp,
# name, pid).
oneline() {
	! grep -vqE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} nf-cuckoo-crowdsec\[[0-9]+\]: ' "$LOG"
}

echo "TAP version 13"

# until_ok SECONDS CMD...: CMD succeeds within SECONDS.
until_ok() {
	local i

	for ((i = 0; i < $1 * 10; i++)); do
		"${@:2}" && return 0
		sleep 0.1
	done
	return 1
}
# bg_start: the adapter in the background, reading $dir/in (fd 7 writes
# to it); its pid in $apid.
bg_start() {
	rm -f "$dir/in"
	mkfifo "$dir/in"
	"$ADAPTER" <"$dir/in" &
	apid=$!
	exec 7>"$dir/in"
}
# bg_end: close its input, wait for it; its status in $arc.
bg_end() {
	exec 7>&-
	wait "$apid"
	arc=$?
}
batches() { logged ': [0-9]+ decisions: '; }
batches_over() { [ "$(batches)" -gt "$1" ]; }

# --- Values the filter cannot hold as they are (issue 31, point 11) ---
fresh
{
	dec add 'fe80::1%eth0'
	printf '{"action":"add","value":"fe80::1%%eth0\\nsrc 10.9.9.9","scope":"Ip"}\n'
	printf '{"action":"add","value":"10.0.0.2\\r","scope":"Ip"}\n'
	printf '{"action":"add","value":"10.0.0.3","scope":"Ip\\nx"}\n'
	dec add 10.0.0.1
} >"$dir/dec"
feed <"$dir/dec"
out=$(cat "$LOG")
rc=$arc
[ "$arc" = 0 ] && [ "$(logged 'add fe80::1%eth0: refused: .*zone id')" = 1 ] &&
	[ "$(logged 'add fe80::1%eth0\\nsrc 10\.9\.9\.9: refused: .*(zone id|control)')" = 1 ]
result $? "an IPv6 zone id (fe80::1%eth0), with a newline in it or not: refused, the reason logged"
oneline
result $? "a value or scope with a newline or a carriage return: one line of log each, escaped"
echo 10.0.0.1 >"$dir/pool"
printf '%s\n' 10.9.9.9 10.0.0.2 10.0.0.3 >>"$dir/pool"
[ "$(state)" = 10.0.0.1 ]
result $? "of them only 10.0.0.1 is in the state"
same "$dir/pool" "and the filter holds only it"

# SIGHUP: the log reopened (logrotate's postrotate), the adapter runs on.
fresh
bg_start
dec add 10.0.0.1 >&7
until_ok 20 batches_over 0
mv "$LOG" "$LOG.1"
kill -HUP "$apid"
sleep 0.3
alive=$(kill -0 "$apid" 2>/dev/null && echo up)
dec add 10.0.0.2 >&7
until_ok 20 test -s "$LOG"
until_ok 5 batches_over 0
bg_end
out="alive after SIGHUP: ${alive:-no}; status $arc; new log: $(cat "$LOG" 2>&1)"
rc=$arc
[ "$alive" = up ] && [ "$arc" = 0 ] && [ "$(batches)" = 1 ] &&
	[ "$(grep -c ': 1 decisions: 1 added' "$LOG.1")" = 1 ] &&
	[ "$(state | tr '\n' ' ')" = "10.0.0.1 10.0.0.2 " ]
result $? "SIGHUP: the log reopened under its name, the next batch logged there; the adapter runs on"

# @@ more tests above this line
echo "1..$n"
[ "$failed" = 0 ]
