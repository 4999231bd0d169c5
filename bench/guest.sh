# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the benchmarks' scripts in the VM share (bench/nf/in_vm.sh,
# bench/prefix/in_vm.sh): JSON records, clocks, and kernel memory read as
# bench/nf measures it.  Sourced, with TAG set to the records' tag.

say() { echo "# [$SECONDS s] $*"; }

# emit KEY=VALUE...: one record "$TAG {...}"; numbers, true, false and
# null bare.
emit() {
	local kv v out=

	for kv in "$@"; do
		v=${kv#*=}
		[[ $v =~ ^(-?[0-9]+(\.[0-9]+)?|true|false|null)$ ]] || v="\"${v//\"/\'}\""
		out+="${out:+,}\"${kv%%=*}\":$v"
	done
	echo "$TAG {$out}"
}

us() { echo "${EPOCHREALTIME/./}"; }
secs() { printf '%d.%02d' $(($1 / 1000000)) $(($1 / 10000 % 100)); }

# meminfo: "AVAILABLE SLAB VMALLOC PERCPU", kB, the per-CPU counters
# folded first.  AVAILABLE is MemAvailable plus the free pages on per-CPU
# lists (/proc/zoneinfo), which MemAvailable counts as used: they come and
# go by megabytes with no allocation at all.
meminfo() {
	echo 1 >/proc/sys/vm/stat_refresh
	awk -v pg="$(getconf PAGESIZE)" '
		FILENAME == "/proc/meminfo" { m[$1] = $2; next }
		$1 == "count:" { pcp += $2 }
		END { print m["MemAvailable:"] + pcp * pg / 1024, m["Slab:"],
			m["VmallocUsed:"], m["Percpu:"] }' /proc/meminfo /proc/zoneinfo
}

# settle: drop caches and shrink slabs until MemAvailable holds still
# (within 256 kB over half a second; 15 s at most): what a load or a
# destroy freed through RCU or workqueues is counted where it belongs.
settle() {
	local f i a b

	for ((i = 0; i < 30; i++)); do
		echo 3 >/proc/sys/vm/drop_caches
		for f in /sys/kernel/slab/*/shrink; do
			echo 1 >"$f"
		done 2>/dev/null
		read -r a _ <<<"$(meminfo)"
		[ -n "${b:-}" ] && (((a - b) ** 2 < 256 ** 2)) && return
		b=$a
		sleep 0.5
	done
}

# The kernel's warnings, after a run: a few on stdout, their count in an
# "end" record.
end_record() {
	local oops='BUG:|WARNING:|Oops|general protection|refcount_t:|soft lockup|RCU stall'

	dmesg | grep -E "$oops" | head -5 | sed 's/^/# dmesg: /'
	emit type=end kernel_warnings="$(dmesg | grep -cE "$oops")"
}
