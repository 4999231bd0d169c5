# SPDX-License-Identifier: GPL-2.0
#
# What bench/nf/run.sh and bench/hook/run.sh share: building, and one VM
# boot whose tagged output lines become a JSON-lines file.  Sourced, with
# REPO set to the top of the tree.

# bench_build WHAT:COMMAND...: run each build quietly; on a failure say
# which, with the last lines of its output, on stdout and return 1.
bench_build() {
	local what out

	for what in "$@"; do
		out=$(eval "${what#*:}" 2>&1) && continue
		printf '# building %s failed:\n' "${what%%:*}"
		printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
		return 1
	done
}

# bench_module KVER: KO_DIR, the directory of the nf_cuckoo.ko and
# xt_cuckoo.ko to load: $BENCH_KO_DIR when set (make check gives the
# modules it built and tested, build/ko/KVER/, rather than have each
# benchmark rebuild the tree's, built last for another kernel), else the
# tree, built now for KVER.
bench_module() {
	if [ -n "${BENCH_KO_DIR:-}" ]; then
		KO_DIR=$(cd "$BENCH_KO_DIR" && pwd) &&
			[ "$(modinfo -F vermagic "$KO_DIR/nf_cuckoo.ko" 2>/dev/null |
				cut -d' ' -f1)" = "$1" ] && return 0
		echo "# BENCH_KO_DIR=$BENCH_KO_DIR holds no nf_cuckoo.ko for $1"
		return 1
	fi
	KO_DIR=$REPO
	bench_build "module:make -s -C $REPO module KVER=$1"
}

bench_loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_vm JSONL TAG QUICK KVER MEM TIMEOUT -- COMMAND...: a "host" record
# (this machine, QEMU, the tree's commit), then COMMAND run as root in the
# VM booted on KVER with MEM MB; its lines "TAG {...}" are records, the
# others progress, printed as "# ...".  A "host_end" record closes the
# file, which replaces JSONL only then.  The guest's NFB_KO_DIR is
# KO_DIR (bench_module's).  Returns the VM's exit status.
bench_vm() {
	local jsonl=$1 tag=$2 quick=$3 kver=$4 mem=$5 timeout=$6 line rc cpu
	shift 7

	# A full run emulates QEMU's "max" CPU, ERMS and all, as when doc/'s
	# figures were measured; a quick one (a check that it runs) the
	# VMs' faster default (selftests/vm/prepare.sh).
	cpu=${NFC_VM_CPU:-}
	[ "$quick" = 1 ] || cpu=${cpu:-max}

	printf '{"type":"host","date":"%s","host_cpu":"%s","host_cpus":%s,"loadavg":"%s",' \
		"$(date -u +%FT%TZ)" \
		"$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" \
		"$(nproc)" "$(bench_loadavg)" >"$jsonl.tmp"
	printf '"qemu":"%s","accel":"tcg","cpu":"%s","smp":2,"mem_mb":%s,"quick":%s,"kernel":"%s","commit":"%s"}\n' \
		"$(qemu-system-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')" \
		"${cpu:-default}" \
		"$mem" "$([ "$quick" = 1 ] && echo true || echo false)" "$kver" \
		"$(git -C "$REPO" describe --always --dirty 2>/dev/null)" >>"$jsonl.tmp"
	NFC_VM_CPU=$cpu "$REPO/selftests/vm/vm.sh" --timeout "$timeout" --mem "$mem" --kver "$kver" \
		--cwd "$REPO" --env "NFB_KO_DIR=${KO_DIR:-$REPO}" -- "$@" 2>&1 |
		while IFS= read -r line; do
			case $line in
			"$tag "*) printf '%s\n' "${line#"$tag" }" >>"$jsonl.tmp" ;;
			*) printf '# %s\n' "${line#\# }" ;;
			esac
		done
	rc=${PIPESTATUS[0]}
	printf '{"type":"host_end","date":"%s","loadavg":"%s","vm_status":%s}\n' \
		"$(date -u +%FT%TZ)" "$(bench_loadavg)" "$rc" >>"$jsonl.tmp"
	mv "$jsonl.tmp" "$jsonl"
	return "$rc"
}
