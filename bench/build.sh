#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/build.sh [--kernel | --vm] [N]
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
# it, after one untimed read of the file that leaves it in the page cache
# for both; the build also writes its image (to BENCH_BUILD_OUT, default
# BENCH_BUILD_DIR).
#
# --kernel needs root and nf_cuckoo loaded (and netns_mem_max_mb above the
# table: 157 MiB at the default 100M); the filter is made in a network
# namespace of its own, saved, and its save compared with the image (the
# lines after the first, which says who made it): they must be equal.
#
# --vm runs --kernel on this host in the QEMU TCG VM (selftests/vm/vm.sh),
# both sides in the same boot: it builds the module and cfctl (for
# scripts/kver.sh's kernel), writes the entries on the host to
# BENCH_BUILD_DIR (default build/bench/build/ in the tree, kept for the
# next run, since the guest sees the host read-only), boots the guest with
# BENCH_BUILD_MEM MB (default 2048 + 100 per 1M entries, at most 12288),
# loads nf_cuckoo.ko with netns_mem_max_mb and mem_max_mb at 2048 and runs
# `bench/build.sh --kernel N` there, with the image and the save in the
# guest's /tmp (RAM).  BENCH_BUILD_TIMEOUT (default 1800 + 60 per 1M
# entries) bounds the VM.  The host's load average is printed before,
# every minute during and after the run (lines "# host loadavg").
#
# Output: a line of JSON per side on stdout ("side": "build" or "add",
# "n", "seconds", "entries_per_s", "max_rss_kb" where /usr/bin/time can
# tell), the human-readable figures on stderr.  Exits non-zero if a step
# fails or the images differ.
set -u
kernel=0
vm=0
case ${1:-} in
--kernel) kernel=1; shift ;;
--vm) vm=1; shift ;;
esac
n=${1:-100000000}
seed=${BENCH_BUILD_SEED:-1}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cfctl=${CFCTL:-$repo/tools/cfctl/cfctl}
dir=${BENCH_BUILD_DIR:-}
[ -n "$dir" ] || [ "$vm" = 0 ] || dir=$repo/build/bench/build
if [ -z "$dir" ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
out=${BENCH_BUILD_OUT:-$dir}

now() {
	date +%s.%N
}

# entries: write the N distinct 5-tuples, unless there already; i gives
# the source address and port.
entries() {
	local t0
	[ -s "$dir/entries.$n" ] && return 0
	mkdir -p "$dir" || return 1
	t0=$(now)
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "udp 10.%d.%d.%d:%d 192.0.2.1:53\n",
				int(i / 65536) % 256, int(i / 256) % 256, i % 256,
				1024 + int(i / 16777216)
	}' >"$dir/entries.$n.tmp" || return 1
	mv "$dir/entries.$n.tmp" "$dir/entries.$n" || return 1
	echo "# wrote $n entries ($(du -h "$dir/entries.$n" | cut -f1)) in $(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s" >&2
}

hostload() {
	echo "# host loadavg $(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)" >&2
}

# The host side of --vm: build, write the entries, boot, load, run.
if [ "$vm" = 1 ]; then
	mem=${BENCH_BUILD_MEM:-$((2048 + n / 10000))}
	[ "$mem" -le 12288 ] || mem=12288
	timeout=${BENCH_BUILD_TIMEOUT:-$((1800 + n / 16667))}
	kver=$("$repo/scripts/kver.sh" -q) || exit 1
	(cd "$repo" && make -s module KVER="$kver" && make -s -C tools/cfctl) ||
		{ echo "bench/build.sh: building failed" >&2; exit 1; }
	entries || exit 1
	echo "# VM: kernel $kver, $mem MB, timeout $timeout s; commit $(git -C "$repo" describe --always --dirty 2>/dev/null)" >&2
	hostload
	( while sleep 60; do hostload; done ) &
	sampler=$!
	trap 'kill "$sampler" 2>/dev/null' EXIT
	# shellcheck disable=SC2016 # expanded by the guest's shell
	"$repo/selftests/vm/vm.sh" --timeout "$timeout" --mem "$mem" --kver "$kver" \
		--cwd "$repo" --env BENCH_BUILD_DIR="$dir" \
		--env BENCH_BUILD_OUT=/tmp/bench-build \
		--env BENCH_BUILD_SEED="$seed" -- \
		bash -c 'insmod nf_cuckoo.ko netns_mem_max_mb=2048 mem_max_mb=2048 &&
			mkdir -p /tmp/bench-build &&
			echo "# guest: $(nproc) CPUs, $(free -m | awk "/Mem:/ { print \$2 }") MB" >&2 &&
			bench/build.sh --kernel "$1"' - "$n"
	rc=$?
	hostload
	exit $rc
fi

[ -x "$cfctl" ] || { echo "bench/build.sh: no $cfctl: make -C tools/cfctl" >&2; exit 1; }
if [ "$kernel" = 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "bench/build.sh: --kernel needs root" >&2; exit 1; }
	[ -d /sys/module/nf_cuckoo ] ||
		{ echo "bench/build.sh: --kernel needs nf_cuckoo loaded" >&2; exit 1; }
fi

# timed SIDE CMD...: run CMD, print its figures; CMD's status.
timed() {
	local side=$1 t0 t1 rc rss=null
	shift
	t0=$(now)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$out/rss" "$@"
		rc=$?
		rss=$(tail -n 1 "$out/rss")
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

entries || exit 1
# Read the entries once, untimed: the side that read them first would
# otherwise pay alone for bringing them into the page cache (in the VM,
# over 9p: 1M entries took 6.0 s to build first and 3.2 s after the
# kernel's add had read them).
cat "$dir/entries.$n" >/dev/null || exit 1
timed build "$cfctl" build -f "$dir/entries.$n" -o "$out/image.$n" \
	bench capacity "$n" seed "$seed" || exit 1
[ "$kernel" = 1 ] || exit 0

# The kernel side, in a namespace of its own: its filter goes with it.
export cfctl dir out n seed
export -f timed now
# shellcheck disable=SC2016 # expanded by the namespace's shell
unshare --net -- bash -c '
	"$cfctl" create bench capacity "$n" seed "$seed" || exit 1
	timed add "$cfctl" add -f "$dir/entries.$n" bench || exit 1
	"$cfctl" save -f "$out/save.$n" bench || exit 1
' || exit 1
# Compared past each first line by cmp itself: no copies of a few hundred
# MB, and no process substitution, which wants /dev/fd (the VM has none).
skip=$(head -n 1 "$out/image.$n" | wc -c):$(head -n 1 "$out/save.$n" | wc -c)
if cmp -s -i "$skip" "$out/image.$n" "$out/save.$n"; then
	echo "# the offline image is the kernel's save (but for line 1)" >&2
else
	echo "bench/build.sh: the offline image and the kernel's save differ" >&2
	exit 1
fi
