#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/build.sh [--kernel] [N]
#
# The figure of issue 22: the time `cfctl build` takes to make the image
# of N entries offline (default 100000000, about 4 GB of entry lines and
# some 7 GB of cfctl's memory; give a smaller N to try it), against, with
# --kernel, the time `cfctl add -f` takes to add the same entries to the
# module, in the same run.
#
# The entries are N distinct IPv4 UDP 5-tuples, one a line as add -f reads
# them, written once to BENCH_BUILD_DIR (default: a temporary directory,
# removed at the end).  Both sides get the same filter: capacity N, the
# defaults otherwise, seed BENCH_BUILD_SEED (default 1).  Each side is
# timed whole, reading and parsing the file included, as a user waits for
# it; the build also writes its image (to BENCH_BUILD_DIR).
#
# --kernel needs root and nf_cuckoo loaded (and netns_mem_max_mb above the
# table: 157 MiB at the default 100M); the filter is made in a network
# namespace of its own, saved, and its save compared with the image (the
# lines after the first, which says who made it): they must be equal.
#
# Output: a line of JSON per side on stdout ("side": "build" or "add",
# "n", "seconds", "entries_per_s", "max_rss_kb" where /usr/bin/time can
# tell), the human-readable figures on stderr.  Exits non-zero if a step
# fails or the images differ.
set -u
kernel=0
if [ "${1:-}" = --kernel ]; then
	kernel=1
	shift
fi
n=${1:-100000000}
seed=${BENCH_BUILD_SEED:-1}
here=$(cd "$(dirname "$0")" && pwd)
cfctl=${CFCTL:-$here/../tools/cfctl/cfctl}
dir=${BENCH_BUILD_DIR:-}
if [ -z "$dir" ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi

[ -x "$cfctl" ] || { echo "bench/build.sh: no $cfctl: make -C tools/cfctl" >&2; exit 1; }
if [ "$kernel" = 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "bench/build.sh: --kernel needs root" >&2; exit 1; }
	[ -d /sys/module/nf_cuckoo ] ||
		{ echo "bench/build.sh: --kernel needs nf_cuckoo loaded" >&2; exit 1; }
fi

now() {
	date +%s.%N
}

# timed SIDE CMD...: run CMD, print its figures; CMD's status.
timed() {
	local side=$1 t0 t1 rc rss=null
	shift
	t0=$(now)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$dir/rss" "$@"
		rc=$?
		rss=$(tail -n 1 "$dir/rss")
	else
		"$@"
		rc=$?
	fi
	t1=$(now)
	awk -v side="$side" -v n="$n" -v a="$t0" -v b="$t1" -v rss="$rss" 'BEGIN {
		s = b - a
		printf "{\"side\":\"%s\",\"n\":%d,\"seconds\":%.3f,\"entries_per_s\":%.0f,\"max_rss_kb\":%s}\n",
			side, n, s, n / s, rss
		printf "%-6s %d entries: %.2f s, %.0f entries/s, max RSS %s kB\n",
			side, n, s, n / s, rss > "/dev/stderr"
	}'
	return $rc
}

# Distinct 5-tuples: i gives the source address and port.
if [ ! -s "$dir/entries.$n" ]; then
	t0=$(now)
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "udp 10.%d.%d.%d:%d 192.0.2.1:53\n",
				int(i / 65536) % 256, int(i / 256) % 256, i % 256,
				1024 + int(i / 16777216)
	}' >"$dir/entries.$n" || exit 1
	echo "# wrote $n entries ($(du -h "$dir/entries.$n" | cut -f1)) in $(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s" >&2
fi

timed build "$cfctl" build -f "$dir/entries.$n" -o "$dir/image.$n" \
	bench capacity "$n" seed "$seed" || exit 1
[ "$kernel" = 1 ] || exit 0

# The kernel side, in a namespace of its own: its filter goes with it.
export cfctl dir n seed
export -f timed now
unshare --net -- bash -c '
	"$cfctl" create bench capacity "$n" seed "$seed" || exit 1
	timed add "$cfctl" add -f "$dir/entries.$n" bench || exit 1
	"$cfctl" save -f "$dir/save.$n" bench || exit 1
' || exit 1
# Compared past each first line by cmp itself: no copies of a few hundred
# MB, and no process substitution, which wants /dev/fd (the VM has none).
skip=$(head -n 1 "$dir/image.$n" | wc -c):$(head -n 1 "$dir/save.$n" | wc -c)
if cmp -s -i "$skip" "$dir/image.$n" "$dir/save.$n"; then
	echo "# the offline image is the kernel's save (but for line 1)" >&2
else
	echo "bench/build.sh: the offline image and the kernel's save differ" >&2
	exit 1
fi
