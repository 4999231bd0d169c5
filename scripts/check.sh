#!/bin/bash
# `make check`: every test of the project, in stages, then one summary line
# "N passed, N failed" (", N skipped" when any), counted from the TAP lines
# (`ok ...` / `not ok ...` at the start of a line) that the stages print.
# A stage that fails without printing a failing TAP line of its own gets
# one, so a crash or a build error is never counted as a pass.
#
# The module is built, installed and put through the selftest suite in a
# VM (which checks the self-test the module runs at load) on each kernel it supports: Debian 12's 6.1 (the
# one linux-headers-amd64 points at: the whole suite), its newest 6.12 and
# Debian 13's pinned 7.x (scripts/kver.sh --pinned7, built in a Debian 13
# build root: what differs by kernel).
#
# After the dependencies, the stages run CHECK_JOBS at a time (default 2,
# the cores this project's machines have).  A VM gets one CPU
# (NFC_VM_SMP=1) unless its tests race on two: two guests of two CPUs
# each under emulation on 2 cores run 2.3 times as slowly as two of one
# (doc/testing.md), so a VM of two CPUs takes the resource "vcpu2" and
# runs beside VMs of one only.  A stage starts when the stages it needs
# have passed and no running stage holds a resource it takes ("tree": it
# builds in the repository, not in a copy of it, as lint and the install
# tests do; "host-dpkg": it installs packages on this
# machine; "vcpu2").  Each stage's output is printed whole when it ends,
# so the TAP of one stage is never interleaved with another's.
set -u
cd "$(dirname "$0")/.." || exit 1
mkdir -p build
log=build/check.log
: >"$log"
sdir=build/check
rm -rf "$sdir"
mkdir -p "$sdir"
t0=$(date +%s)
JOBS=${CHECK_JOBS:-2}
export NFC_VM_SMP=${NFC_VM_SMP:-1}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "check.sh: bad CHECK_JOBS=$JOBS" >&2; exit 2; }

# Ends a stage: its output whole, then its status line (the time table
# reads it), a failing TAP line if it failed without one of its own.  The
# TAP lines of a stage of one kernel (NAME@KVER) name that kernel.
stage_end() {	# NAME RC START END
	local name=$1 rc=$2 start=$3 end=$4 out=$sdir/$1.log tag=

	[[ $name == *@* ]] && tag="[${name#*@}] "
	{
		echo "### $name"
		sed -E "s/^((not )?ok( [0-9]+)? - )/\1$tag/" "$out"
		if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then
			echo "not ok - $name exited with status $rc"
		fi
		echo "### $name: status $rc, $((end - start)) s, at $((start - t0))-$((end - t0)) s"
	} | tee -a "$log"
}

# A stage run now, alone (the dependencies, before anything else).
stage() {	# NAME COMMAND...
	local name=$1 start rc

	shift
	start=$(date +%s)
	"$@" >"$sdir/$name.log" 2>&1
	rc=$?
	stage_end "$name" "$rc" "$start" "$(date +%s)"
	return "$rc"
}

# The queue: job NAME RESOURCES NEEDS COMMAND, RESOURCES and NEEDS
# comma-separated (or -), COMMAND a line of shell.  Jobs start in the
# order queued, the long ones first, as soon as they may.
J_NAME=() J_RES=() J_NEEDS=() J_CMD=()
job() {
	J_NAME+=("$1") J_RES+=("$2") J_NEEDS+=("$3") J_CMD+=("$4")
}

run_jobs() {
	local -A status=() busy=() of_pid=()
	local pending=("${!J_NAME[@]}") running=0 i r n ok pid rest rc
	local -a left

	while [ ${#pending[@]} -gt 0 ] || [ "$running" -gt 0 ]; do
		left=()
		for i in ${pending[@]+"${pending[@]}"}; do
			ok=start
			for n in ${J_NEEDS[i]//,/ }; do
				[ "$n" = - ] && continue
				case ${status[$n]:-} in
				0) ;;
				'') ok=later ;;
				*) [ "$ok" = start ] && ok="needs $n" ;;
				esac
			done
			for r in ${J_RES[i]//,/ }; do
				[ "$r" != - ] && [ -n "${busy[$r]:-}" ] && [ "$ok" = start ] && ok=later
			done
			[ "$running" -ge "$JOBS" ] && [ "$ok" = start ] && ok=later
			case $ok in
			start)
				for r in ${J_RES[i]//,/ }; do busy[$r]=1; done
				echo "### ${J_NAME[i]}: started at $(($(date +%s) - t0)) s" | tee -a "$log"
				(
					start=$(date +%s)
					eval "${J_CMD[i]}" >"$sdir/${J_NAME[i]}.log" 2>&1
					echo "$? $start $(date +%s)" >"$sdir/${J_NAME[i]}.rc"
				) &
				of_pid[$!]=$i
				running=$((running + 1)) ;;
			later)
				left+=("$i") ;;
			*)	# a stage it needs failed
				status[${J_NAME[i]}]=1
				echo "not ok - ${J_NAME[i]}: not run: $ok failed" | tee -a "$log" ;;
			esac
		done
		pending=(${left[@]+"${left[@]}"})
		if [ "$running" -eq 0 ]; then
			for i in ${pending[@]+"${pending[@]}"}; do
				echo "not ok - ${J_NAME[i]}: not run: it needs ${J_NEEDS[i]}, never queued" | tee -a "$log"
			done
			break
		fi
		wait -n -p pid
		i=${of_pid[$pid]}
		unset "of_pid[$pid]"
		running=$((running - 1))
		for r in ${J_RES[i]//,/ }; do unset "busy[$r]"; done
		read -r rc rest <"$sdir/${J_NAME[i]}.rc" 2>/dev/null || rc=1 rest="$t0 $t0"
		status[${J_NAME[i]}]=$rc
		# shellcheck disable=SC2086
		stage_end "${J_NAME[i]}" "$rc" $rest
	done
}

# The functions every packet runs (cf_pkt_text, kmod/cuckoo_platform.h,
# named from the sources) each lie within 2 KB from a multiple of 2 KB
# of a section so aligned (kernels from 7.0 merge their sections into
# .text; the padding kernels from 6.2 put before a function counted),
# so that none straddles a page; prints how many, fails if one does not
# or is missing.
pkt_text_check() {	# pkt_text_check KO
	{ sed -n 's/^[a-z_ ]*cf_pkt_text .*[ *]\([a-z_0-9]*\)(.*/N \1/p' kmod/*.c
	  readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] .* \([0-9]*\)$/S \1 \2/p'
	  readelf -sW "$1" | awk '$4 == "FUNC" { print "F", $7, $2, $3, $8 }'
	} | awk '
		$1 == "N" { want[$2] = 1; w++; next }
		$1 == "S" { al[$2] = $3; next }
		$5 in want {
			n++
			a = 0	# the offset modulo 4096: its last 3 hex digits
			for (i = length($3) - 2; i <= length($3); i++)
				a = a * 16 + index("0123456789abcdef", substr($3, i, 1)) - 1
			sz = $4 + 0
			if (al[$2] < 2048 || a % 2048 + sz > 2048) {
				printf "# %s: at ...%03x, %d bytes, section aligned %d\n", $5, a, sz, al[$2]
				bad = 1
			}
		}
		END { print n + 0; exit bad || !w || n != w }'
}

# Quietly building something is a test too: it must build with -Werror.
# The module is kept in build/ko/KVER/ for the stages of that kernel (the
# tree's own is the next build's).  The VM's kernel is fetched first,
# before stages that boot it run side by side, and so that a header tree
# without vmlinux (6.1's) gets the module's BTF made against that image's.
# The build runs sparse too (make C=2) where lint would (6.1, 6.12:
# scripts/lint.sh says why not 7.x), instead of lint building the module
# once more for it (LINT_SPARSE=no below).
build_module() {	# build_module KVER [sparse]
	local ko=build/ko/$1/nf_cuckoo.ko c=() out rc what

	rm -f "$ko" "${ko%/*}/xt_cuckoo.ko"
	selftests/vm/prepare.sh --kver "$1" --quiet >/dev/null || return
	[ "${2:-}" = sparse ] && c=(C=2)
	out=$(make -s -j"$(nproc)" module KVER="$1" ${c[@]+"${c[@]}"} 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^$'
	[ "$rc" = 0 ] || return
	if [ -n "${c[*]}" ]; then
		what="sparse (make C=2) on every object of nf_cuckoo.ko, $1"
		if grep -E '(warning|error):' <<<"$out" | grep -qv 'Skipping BTF'; then
			echo "not ok - $what"
			return 1
		fi
		echo "ok - $what"
	fi
	[ "$(modinfo -F vermagic nf_cuckoo.ko | cut -d' ' -f1)" = "$1" ] &&
		[ "$(modinfo -F vermagic xt_cuckoo.ko | cut -d' ' -f1)" = "$1" ] &&
		echo "ok - modules nf_cuckoo.ko and xt_cuckoo.ko build with -Werror for $1" || return
	# The core's userspace-only batch lookup stays out of the module.
	if nm nf_cuckoo.ko | grep -qw cf_contains_batch; then
		echo "not ok - nf_cuckoo.ko holds cf_contains_batch, which it never calls"
		return 1
	fi
	echo "ok - nf_cuckoo.ko holds no cf_contains_batch (userspace only)"
	# BPF programs find the kfuncs by the module's BTF (btf/module-btf.sh).
	if ! readelf -S -W nf_cuckoo.ko | grep -q ' \.BTF '; then
		echo "not ok - nf_cuckoo.ko has BTF of its own, for its kfuncs"
		return 1
	fi
	echo "ok - nf_cuckoo.ko has BTF of its own, for its kfuncs"
	if ! out=$(pkt_text_check nf_cuckoo.ko); then
		printf '%s\n' "$out" | grep '^#'
		echo "not ok - nf_cuckoo.ko's packet-path functions each within 2 KB of one page"
		return 1
	fi
	echo "ok - nf_cuckoo.ko's $out packet-path functions each within 2 KB of one page"
	mkdir -p "${ko%/*}" && cp nf_cuckoo.ko "$ko" && cp xt_cuckoo.ko "${ko%/*}/"
}

# PREEMPT_RT is refused at build time (kmod/cuckoo_platform.h says why):
# the module's sources, built in a copy with CONFIG_PREEMPT_RT defined,
# must fail with that message, not build nor fail for another reason.
build_refuses_rt() {
	local tmp out
	tmp=$(mktemp -d) || return 1
	cp -r Kbuild kmod uapi "$tmp"
	out=$(make -s -C "/lib/modules/$(scripts/kver.sh -q)/build" M="$tmp" \
		KCFLAGS=-DCONFIG_PREEMPT_RT=1 modules 2>&1)
	local rc=$?
	rm -rf "$tmp"
	if [ "$rc" -ne 0 ] && grep -q 'nf_cuckoo does not support PREEMPT_RT' <<<"$out"; then
		echo "ok - module build refuses PREEMPT_RT with a message"
	else
		echo "not ok - module build refuses PREEMPT_RT with a message (status $rc)"
		printf '%s\n' "$out" | grep -E 'error|warning' | head -n 5 | sed 's/^/# /'
	fi
}

# A kernel whose genetlink cannot keep a multicast group to CAP_NET_ADMIN
# gets a module without the events group (kmod/compat.h), never one that
# any socket of the namespace may join.  The sources, built in a copy
# whose probe asks for a name no kernel defines, must build without a
# warning and say so when loaded (the notice is compiled in only then).
build_without_mcast_cap() {	# KVER
	local tmp out rc kdir=/lib/modules/$1/build

	tmp=$(mktemp -d) || return 1
	cp -r Kbuild kmod uapi "$tmp"
	sed -i 's/^#ifdef GENL_MCAST_CAP_NET_ADMIN$/#ifdef NFCF_NO_SUCH_FLAG/' \
		"$tmp/kmod/compat.h"
	out=$(make -s -C "$kdir" M="$tmp" modules 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q 'warning' <<<"$out" &&
		strings "$tmp/nf_cuckoo.ko" | grep -q 'no events: this kernel cannot keep'; then
		echo "ok - module builds without the events group where the kernel cannot restrict it, and says so"
	else
		echo "not ok - module builds without the events group where the kernel cannot restrict it, and says so (status $rc)"
		printf '%s\n' "$out" | grep -E 'error|warning' | head -n 5 | sed 's/^/# /'
	fi
	rm -rf "$tmp"
	if [ ! -f "build/ko/$1/nf_cuckoo.ko" ] ||
		strings "build/ko/$1/nf_cuckoo.ko" | grep -q 'no events: this kernel cannot keep'; then
		echo "not ok - the module built for $1 has its events group"
	else
		echo "ok - the module built for $1 has its events group"
	fi
}

# The benchmark is not a test; running it in quick mode shows it works.
bench_quick() {
	make -s -C bench quick && echo "ok - bench-core runs in quick mode"
}

no_612() {
	echo "not ok - no Debian 12 6.12 headers (scripts/deps.sh installs them)"
	return 1
}

# The build root of the 7.x kernel is made in a stage of its own (about
# 40 s, most of it downloads), beside the first builds.
stage deps env NFC_DEPS_BUILDROOT=0 scripts/deps.sh

k61=$(scripts/kver.sh --debian)
k612=$(scripts/kver.sh --newest 6.12) || k612=
# Debian 13's pinned 7.x, built in the build root deps.sh makes.
k7=$(scripts/kver.sh --pinned7)

# What every stage after uses, built once, before any runs (two stages
# making the same file at once would race): cfctl, its XDP and tc
# program and test programs, iptables' extension, the C selftests.  On
# every CPU, as the module's builds: nothing else runs yet, and beside
# the first module's build only the build root's downloads (20 s to
# 10 s on 2 CPUs; the first module's 19 s to 10 s).
build_shared() {
	scripts/lint.sh --tools || return
	make -s -j"$(nproc)" -C tools/cfctl cfctl cfctl_fake test_parse \
		test_parse_asan nf_cuckoo.bpf.o &&
		make -s -j"$(nproc)" -C tools/xt &&
		make -s -j"$(nproc)" -C selftests &&
		echo "ok - cfctl, cfctl_fake, their tests, libxt_cuckoo.so and the C selftests build with -Werror"
}
stage build build_shared

# One kernel's selftests of `make -C selftests LIST` in a VM of CPUS
# CPUs, the netlink fuzzer (where LIST has it) given 40 s unless
# FUZZ_SECONDS says; NAME=VALUE set in the tests' environment.
selftests() {	# KVER LIST CPUS [NAME=VALUE...]
	local kver=$1 list=$2 cpus=$3 env=() v

	shift 3
	for v in "$@"; do env+=(--env "$v"); done
	NFC_VM_SMP=$cpus KVER=$kver FUZZ_SECONDS=${FUZZ_SECONDS:-40} selftests/run_vm.sh --no-build \
		--ko "build/ko/$kver/nf_cuckoo.ko" --timeout 2700 -- --env \
		"NFC_TESTS=$(make -s --no-print-directory -C selftests "$list")" ${env[@]+"${env[@]}"}
}

# In the order of the queue: the long stages first, so that the two
# lanes end together.  6.1 (Debian 12's own) runs the whole suite, in
# three VMs (list-again, list-same, list-race); 6.12 and 7.x what of it
# meets the kernel's interfaces (list-interfaces): under emulation on 2
# cores the suite cannot run whole on three kernels within make check's
# 45 minutes.  The netlink fuzzer (40 s of fuzzing) runs on
# the first kernel only.
[ -n "$k612" ] || job module-6.12 - - no_612
job "module@$k61" tree - "build_module $k61 sparse"
# Its boots' limits (300 s each, the upgrade's 3x) were set with the
# VM alone; beside another VM a boot took 1.4-2.9 times as long (with
# two CPUs each).  One CPU: with two its boots ran 1.7 times as fast
# alone, but beside another VM they take that VM's time (doc/testing.md).
job "lifecycle@$k61" - "module@$k61" \
	"NFC_LC_TIMEOUT=\${NFC_LC_TIMEOUT:-$((300 * JOBS))} scripts/test-lifecycle.sh $k61"
job buildroot - - "scripts/buildroot.sh $k7 >/dev/null && echo 'ok - the Debian 13 build root for $k7 (scripts/buildroot.sh)'"
[ -n "$k612" ] && job "module@$k612" tree - "build_module $k612 sparse"
job "module@$k7" tree buildroot "build_module $k7"
# The races (rmmod under traffic, parallel writers, RCU readers against
# flushes) run on two CPUs, on the first kernel, in a VM of their own
# (list-race).
job "selftests@$k61" - "module@$k61" "selftests $k61 list-again 1"
job "selftests-same@$k61" - "module@$k61" "selftests $k61 list-same 1"
job "selftests-race@$k61" vcpu2 "module@$k61" "selftests $k61 list-race 2"
# iptables' match: both back ends on 6.1 and 6.12, as its issue asked;
# on 7.x, Debian's default (nft) alone.
job "selftests@$k7" - "module@$k7" "selftests $k7 list-interfaces 1 NFC_XT_VARIANTS=nft"
[ -n "$k612" ] && job "selftests@$k612" - "module@$k612" "selftests $k612 list-interfaces 1"
job unit - - "make -s -C tests check"
# make install, DKMS and the Debian packages, each used in the VM.  The
# build flags and the packages (built, installed on this machine, upgraded
# with DKMS building for the installed headers, purged) are the same for
# every kernel: once, with 6.1's VM; make install and DKMS for each.
job "install@$k61" host-dpkg "module@$k61" "scripts/test-install.sh $k61"
# nf_cuckoo against nftables and ipset, quick mode: that it works.  Like
# bench-xdp-quick, with the modules built (and tested) for 6.1, not the
# tree's (rebuilt for 6.1 after 7.x's: 30-50 s).
job bench-nf-quick - "module@$k61" "KVER=$k61 BENCH_KO_DIR=build/ko/$k61 bench/nf/run.sh --quick"
# The XDP program against a BPF hash and Bloom map and xdp-filter, quick
# mode: that each runs and gives the right verdicts.
job bench-xdp-quick - "module@$k61" "KVER=$k61 BENCH_KO_DIR=build/ko/$k61 bench/xdp/run.sh --quick"
job cfctl - - "make -s -C tools/cfctl check"
job lint - - "LINT_SPARSE=no scripts/lint.sh"
for k in $k7 $k612; do
	job "install@$k" - "module@$k" "TEST_INSTALL_PARTS='1 2' scripts/test-install.sh $k"
done
# A filter saved under one kernel restores exactly under the other.
[ -n "$k612" ] && job images - "module@$k61,module@$k612" "scripts/test-images.sh --ko-dir build/ko $k61 $k612"
job module-no-mcast-cap - "module@$k61" "build_without_mcast_cap $k61"
job bench-quick - - bench_quick
job uapi - - scripts/uapi-clash.sh
job module-rt - - build_refuses_rt
job debug-kernel - "selftests@$k61" "scripts/check-debug.sh --if-cached"
run_jobs

# Where the time went: a line a stage (from when to when it ran, in
# seconds from the start), the sum of the stages, and the wall time.
echo "### time: stage, status, seconds, from-to" | tee -a "$log"
awk -v wall=$(($(date +%s) - t0)) -v jobs="$JOBS" '/^### [^ ]+: status [0-9]+, [0-9]+ s, at [0-9]+-[0-9]+ s$/ {
	sub(":", "", $2); sub(",", "", $4)
	printf "#   %-36s %3s %6d s %11s\n", $2, $4, $5, $8; t += $5
} END {
	printf "#   %-36s %3s %6d s (stages, %d at a time)\n", "sum", "", t, jobs
	printf "#   %-36s %3s %6d s (%.1f min)\n", "make check", "", wall, wall / 60
}' "$log" | tee -a "$log"

passed=$(grep -E '^ok( |$)' "$log" | grep -vc '# *SKIP')
skipped=$(grep -E '^ok( |$)' "$log" | grep -c '# *SKIP')
failed=$(grep -c '^not ok' "$log")
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
# What failed, each with the first lines of what it said, at the end:
# where a reader of only the output's end (CI's report) looks.
if [ "$failed" -gt 0 ]; then
	echo "### what failed, with the first lines of each one's diagnostics"
	awk '/^not ok/ { print; d = 6; next }
		d > 0 && /^#/ { print; d--; next } { d = 0 }' "$log" | head -n 48
fi
echo "$summary"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
