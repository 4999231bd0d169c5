# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 output and kselftest exit statuses (0 pass, 1 fail, 4 skip) for
# the selftests: sourced by lib.sh (control plane) and packet/pktlib.sh.
# Test points are named "$TEST: DESCRIPTION", TEST being the script's name.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

TEST=$(basename "$0" .sh)

tap_n=0
tap_planned=0
tap_failed=0
tap_skipped=0

# Print the TAP header.
plan() {
	tap_planned=$1
	echo "TAP version 13"
	echo "1..$tap_planned"
}

# Skip the whole script (before plan).
skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $TEST: $*"
	exit $KSFT_SKIP
}

bail() {
	echo "Bail out! $TEST: $*"
	exit $KSFT_FAIL
}

diag() {
	local l

	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/# /'
	done
}

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $TEST: $1"
}

# not_ok DESC [DIAG...]
not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $TEST: $1"
	shift
	[ $# -gt 0 ] && diag "$@"
	return 0
}

# Finish: a summary comment and the exit status.
finish() {
	if [ "$tap_n" != "$tap_planned" ]; then
		not_ok "ran $tap_n tests, planned $tap_planned"
	fi
	diag "$TEST: $((tap_n - tap_failed - tap_skipped)) passed, $tap_failed failed, $tap_skipped skipped, ${SECONDS}s"
	[ "$tap_failed" = 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}
