#!/bin/bash
# `make check`: every test of the project, in stages, then one summary line
# "N passed, N failed" (", N skipped" when any), counted from the TAP lines
# (`ok ...` / `not ok ...` at the start of a line) that the stages print.
# A stage that fails without printing a failing TAP line of its own gets
# one, so a crash or a build error is never counted as a pass.
#
# The module is built, smoke-tested and put through the whole selftest
# suite in a VM on each kernel it supports: Debian 12's 6.1 (the one
# linux-headers-amd64 points at) and its newest 6.12 (scripts/kver.sh).
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
mkdir -p build
log=build/check.log
: >"$log"
t0=$(date +%s)

stage() {
	local name=$1 start rc before after
	shift
	echo "### $name: $*" | tee -a "$log"
	start=$(date +%s)
	before=$(grep -c '^not ok' "$log")
	"$@" 2>&1 | tee -a "$log"
	rc=${PIPESTATUS[0]}
	after=$(grep -c '^not ok' "$log")
	if [ "$rc" -ne 0 ] && [ "$after" -eq "$before" ]; then
		echo "not ok - $name exited with status $rc" | tee -a "$log"
	fi
	echo "### $name: status $rc, $(($(date +%s) - start)) s" | tee -a "$log"
}

# Quietly building something is a test too: it must build with -Werror.
build_module() {	# build_module KVER
	make -s module KVER="$1" &&
		echo "ok - module nf_cuckoo.ko builds with -Werror for $1" || return
	# The core's userspace-only batch lookup stays out of the module.
	if nm nf_cuckoo.ko | grep -qw cf_contains_batch; then
		echo "not ok - nf_cuckoo.ko holds cf_contains_batch, which it never calls"
	else
		echo "ok - nf_cuckoo.ko holds no cf_contains_batch (userspace only)"
	fi
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
build_without_mcast_cap() {
	local tmp out rc kdir

	kdir=/lib/modules/$(scripts/kver.sh -q)/build
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
	if strings nf_cuckoo.ko 2>/dev/null | grep -q 'no events: this kernel cannot keep'; then
		echo "not ok - the module built for $(scripts/kver.sh -q) has its events group"
	else
		echo "ok - the module built for $(scripts/kver.sh -q) has its events group"
	fi
}

# The benchmark is not a test; running it in quick mode shows it works.
bench_quick() {
	make -s -C bench quick && echo "ok - bench-core runs in quick mode"
}

stage deps scripts/deps.sh
stage uapi scripts/uapi-clash.sh
stage unit make -s -C tests check
stage bench-quick bench_quick
no_612() {
	echo "not ok - no Debian 12 6.12 headers (scripts/deps.sh installs them)"
	return 1
}

k61=$(scripts/kver.sh --debian)
k612=$(scripts/kver.sh --newest 6.12) || k612=
stage module-rt build_refuses_rt
make -s module >/dev/null 2>&1
stage module-no-mcast-cap build_without_mcast_cap
stage lint scripts/lint.sh
stage cfctl make -s -C tools/cfctl check
[ -n "$k612" ] || stage module-6.12 no_612
for k in $k61 $k612; do
	stage "module@$k" build_module "$k"
	# (a failed build may leave the other kernel's module behind)
	[ -f nf_cuckoo.ko ] &&
		[ "$(modinfo -F vermagic nf_cuckoo.ko | cut -d' ' -f1)" = "$k" ] ||
		continue
	stage "vm-smoke@$k" selftests/vm/vm.sh --kver "$k" --timeout 600 -- \
		"$top/selftests/vm/smoke.sh" "$top/nf_cuckoo.ko"
	# run_vm.sh builds for $KVER and boots the kernel it built for.
	# The netlink fuzzer's 60 s go to the first kernel; 20 s on the second.
	# fail2ban's and CrowdSec's tests (their clients, not the kernel)
	# run with the first kernel only.
	fuzz=${FUZZ_SECONDS:-60}
	again=
	if [ "$k" != "$k61" ]; then
		fuzz=${FUZZ_SECONDS:-20}
		again="NFC_TESTS=$(make -s --no-print-directory -C selftests list-again)"
	fi
	KVER=$k FUZZ_SECONDS=$fuzz stage "selftests@$k" \
		selftests/run_vm.sh --timeout 2700 ${again:+-- --env "$again"}
	# make install, DKMS and the Debian packages, each used in the VM.
	# The build flags and the packages (built, installed, upgraded with
	# DKMS building for both kernels' headers, purged) are the same for
	# either kernel: once, with 6.1's VM; make install and DKMS for each.
	if [ "$k" = "$k61" ]; then
		stage "install@$k" scripts/test-install.sh "$k"
	else
		TEST_INSTALL_PARTS="1 2" stage "install@$k" scripts/test-install.sh "$k"
	fi
done
stage "lifecycle@$k61" scripts/test-lifecycle.sh "$k61"
# A filter saved under one kernel restores exactly under the other.
[ -n "$k61" ] && [ -n "$k612" ] &&
	stage images scripts/test-images.sh "$k61" "$k612"
# The rest runs the module for what `make` picks.
make -s module >/dev/null 2>&1
if [ -f nf_cuckoo.ko ]; then
	# nf_cuckoo against nftables and ipset, quick mode: that it works.
	stage bench-nf-quick bench/nf/run.sh --quick
	stage debug-kernel scripts/check-debug.sh --if-cached
fi

# Where the time went: a line a stage, and the whole.
echo "### time: stage, status, seconds" | tee -a "$log"
awk -v wall=$(($(date +%s) - t0)) '/^### [^ ]+: status [0-9]+, [0-9]+ s$/ {
	sub(":", "", $2); sub(",", "", $4)
	printf "#   %-32s %3s %6d s\n", $2, $4, $5; t += $5
} END {
	printf "#   %-32s %3s %6d s\n", "(between stages)", "", wall - t
	printf "#   %-32s %3s %6d s (%.1f min)\n", "make check", "", wall, wall / 60
}' "$log" | tee -a "$log"

passed=$(grep -E '^ok( |$)' "$log" | grep -vc '# *SKIP')
skipped=$(grep -E '^ok( |$)' "$log" | grep -c '# *SKIP')
failed=$(grep -c '^not ok' "$log")
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
