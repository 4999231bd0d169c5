# SPDX-License-Identifier: GPL-2.0
#
# The TAP harness of test_fake.sh and test_lists.sh, sourced by both:
# they set CFCTL (the cfctl to run) and prefix (the points' name) first.
# cf runs cfctl and keeps its output and status, result counts a point,
# t runs and checks one, items and want_items read a filter's count.

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
