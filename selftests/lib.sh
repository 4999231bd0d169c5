# SPDX-License-Identifier: GPL-2.0
#
# Shared by the control-plane selftests (source it).  TAP 13 output and
# kselftest exit statuses: 0 pass, 1 fail, 4 skip.
#
# Every test runs in a network namespace of its own (the script re-executes
# itself under `unshare --net`), so it neither sees nor touches the filters
# of the host, and what it creates goes away with it.
#
# Environment:
#   CFCTL          the cfctl binary (default: tools/cfctl/cfctl of this tree)
#   NF_CUCKOO_KO   module to insert if nf_cuckoo is not loaded (default:
#                  nf_cuckoo.ko at the top of this tree, then modprobe)
#   CFT_VERBOSE=1  show every command run by cf/expect

set -u

SELFTESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELFTESTS/.." && pwd)
CFCTL=${CFCTL:-$REPO/tools/cfctl/cfctl}
# selftests/genflows.c: a million flows, one entry a line, in seconds.
GENFLOWS=${OUTPUT:-$REPO/build/selftests}/genflows
require_genflows() {
	[ -x "$GENFLOWS" ] || bail "$GENFLOWS is missing (make -C selftests)"
}

. "$SELFTESTS/tap.sh"

# skip DESC WHY: one test point skipped.
skip() {
	tap_n=$((tap_n + 1))
	tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_n - $TEST: $1 # SKIP $2"
}

# The last command's output (stdout and stderr) and status.
OUT=
RC=0

# run CMD...: run, keep output and status.
run() {
	[ "${CFT_VERBOSE:-0}" = 1 ] && echo "# \$ $*"
	OUT=$("$@" 2>&1)
	RC=$?
	return 0
}

# cf ARGS...: cfctl, output in OUT, status in RC.
cf() {
	run "$CFCTL" "$@"
}

# check DESC CMD...: ok if CMD succeeds.
check() {
	local desc=$1
	shift
	run "$@"
	if [ "$RC" = 0 ]; then
		ok "$desc"
	else
		not_ok "$desc" "\$ $*" "status $RC:" "$OUT"
	fi
}

# Does OUT match the extended regex, on one line or across lines (joined
# with spaces)?  "" matches anything.
out_matches() {
	[ -z "$1" ] || grep -qE -- "$1" <<<"$OUT" ||
		grep -qE -- "$1" <<<"${OUT//$'\n'/ }"
}

# expect DESC STATUS REGEX CMD...: ok if CMD exits with STATUS and its
# output matches REGEX.
expect() {
	local desc=$1 want=$2 re=$3
	shift 3
	run "$@"
	if [ "$RC" = "$want" ] && out_matches "$re"; then
		ok "$desc"
	else
		not_ok "$desc" "\$ $*" "status $RC (want $want), output (want /$re/):" "$OUT"
	fi
}

# Like expect, without printing a result: 0 if it matched.
matches() {
	local want=$1 re=$2
	shift 2
	run "$@"
	[ "$RC" = "$want" ] && out_matches "$re"
}

# A field of `cfctl -j show NAME`, by a python expression on `f`.
jfield() {
	local name=$1 expr=$2
	"$CFCTL" -j show "$name" 2>/dev/null |
		python3 -c "import json,sys; f=json.load(sys.stdin); print(($expr))" 2>/dev/null
}

# Root, cfctl built, module loaded (or loadable): else skip everything.
require_env() {
	[ "$(id -u)" = 0 ] || skip_all "must run as root"
	[ -x "$CFCTL" ] || skip_all "cfctl not built ($CFCTL): make -C tools/cfctl"
	command -v unshare >/dev/null || skip_all "unshare (util-linux) missing"
	if [ ! -d /sys/module/nf_cuckoo ]; then
		local ko=${NF_CUCKOO_KO:-$REPO/nf_cuckoo.ko}
		if [ -f "$ko" ]; then
			insmod "$ko" 2>/dev/null
		else
			modprobe nf_cuckoo 2>/dev/null
		fi
		[ -d /sys/module/nf_cuckoo ] ||
			skip_all "nf_cuckoo is not loaded and cannot be loaded"
	fi
}

# Re-execute the calling script in a network namespace of its own.
isolate() {
	if [ -z "${CFT_ISOLATED:-}" ]; then
		CFT_ISOLATED=1 exec unshare --net -- "$0" "$@"
	fi
	ip link set lo up 2>/dev/null
}

# Names of filters in this namespace, one per line.
filters() {
	"$CFCTL" list -n 2>/dev/null
}

# A snapshot of every filter (JSON without packet counters, nor the id,
# which a filter restored gets anew), a filter a line, to compare before
# and after something that must change nothing.  By sed, not a JSON
# parser: python or jq takes 0.6-0.9 s to start in the VM, and
# cfctl_errors takes a snapshot after each of its 57 cases.  cfctl -j
# prints plain JSON (no spaces) in an order of its own, the same every
# time; "packets" holds objects one level deep.
snapshot() {
	"$CFCTL" -j list 2>/dev/null | sed -E '
		s/"packets":\{[^{}]*(\{[^{}]*\}[^{}]*)*\}//g
		s/([{,])"id":[0-9]+,?/\1/g
		s/\},\{"name"/}\n{"name"/g'
}

# Seconds since the epoch, with decimals.
now() {
	date +%s.%N
}

# elapsed T0: seconds since T0 (a now()), two decimals.
elapsed() {
	awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.2f", a - b }'
}

# mem_used: the module's mem_used_bytes, "none" where it has none.
mem_used() {
	cat /sys/module/nf_cuckoo/parameters/mem_used_bytes 2>/dev/null ||
		echo none
}

# wait_mem_used BYTES: until mem_used_bytes is BYTES (15 s at most): what a
# destroy, or a namespace going, lets go is uncharged when it is freed.
wait_mem_used() {
	local _

	for _ in $(seq 150); do
		[ "$(mem_used)" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
