#!/bin/bash
# Does uapi/linux/nf_cuckoo.h share a name with any header under
# /usr/include/linux/?  One C file includes the project's header together
# with every header of /usr/include/linux/ (subdirectories too) that compiles
# on its own, and must compile with -Werror: a clashing enumerator, type or
# macro is an error (or a redefinition warning) there.
#
# Some of the system's headers clash with each other (big_endian.h against
# little_endian.h, the old and new ipv6 headers, ...): those are found first,
# without the project's header, and the later header of each such pair is
# left out, so that every failure left is the project's.  TAP on stdout.
#
#   scripts/uapi-clash.sh [HEADER]   default uapi/linux/nf_cuckoo.h
set -u
cd "$(dirname "$0")/.." || exit 1
header=${1:-uapi/linux/nf_cuckoo.h}
inc=/usr/include
CC=${CC:-gcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

compiles() {	# FILE: does it compile on its own, warnings as errors?
	"$CC" -x c -std=gnu11 -fsyntax-only -Werror -Wall "$1" 2>"$work/err"
}

# The system's headers that compile alone.
: >"$work/all.c"
while read -r h; do
	echo "#include <$h>" >"$work/one.c"
	compiles "$work/one.c" && echo "#include <$h>" >>"$work/all.c"
done < <(cd "$inc" && find linux -name '*.h' | LC_ALL=C sort)
alone=$(wc -l <"$work/all.c")
if [ "$alone" -lt 100 ]; then
	echo "not ok 1 - uapi: only $alone headers of $inc/linux compile alone (linux-libc-dev missing?)"
	exit 1
fi

# Leave out the later header of each pair that clashes among themselves.
dropped=0
while ! compiles "$work/all.c"; do
	line=$(grep -oE "(from )?$work/all\\.c:[0-9]+" "$work/err" | head -n1 |
		sed 's/.*://')
	if [ -z "$line" ] || [ "$dropped" -ge 200 ]; then
		echo "not ok 1 - uapi: cannot find a set of system headers that compile together"
		sed 's/^/# /' "$work/err" | head -n 20
		exit 1
	fi
	sed -i "${line}d" "$work/all.c"
	dropped=$((dropped + 1))
done
kept=$(wc -l <"$work/all.c")

# The project's header first, then the system's, then once more (its guard
# makes the second include empty; the first order is the one that tests).
mkdir -p "$work/inc/linux"
cp "$header" "$work/inc/linux/nf_cuckoo.h"
{
	echo '#include <linux/nf_cuckoo.h>'
	cat "$work/all.c"
	echo 'int main(void) { return NF_CUCKOO_CMD_MAX + 0 * sizeof(struct nf_cuckoo_flow_key); }'
} >"$work/test.c"
if "$CC" -x c -std=gnu11 -fsyntax-only -Werror -Wall -I"$work/inc" \
	"$work/test.c" 2>"$work/err"; then
	echo "ok 1 - uapi: $header compiles with $kept headers of $inc/linux ($alone compile alone, $dropped left out as clashing with each other)"
else
	echo "not ok 1 - uapi: $header clashes with a header of $inc/linux"
	grep -E 'error|warning|note: previous' "$work/err" | head -n 20 | sed 's/^/# /'
	exit 1
fi
