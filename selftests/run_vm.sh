#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the control-plane selftests in a VM with the freshly built module:
# builds the module, cfctl and the C selftests on the host, boots Debian's
# kernel with selftests/vm/vm.sh (the host's root shared read-only), runs
# selftests/run_in_vm.sh there, and passes its TAP lines and exit status
# back.  `make check` calls it.  The module is built for $KVER when set
# (else for what `make` picks; a Debian 13 release such as
# KVER=7.3.4+deb13-amd64 in the build root of scripts/buildroot.sh, which
# the Makefile picks by itself) and the VM boots the kernel it was built
# for (its vermagic, fetched by vm/prepare.sh), unless a --kernel-dir is
# given to vm.sh.
#
#   run_vm.sh [--timeout SECONDS] [--no-build] [--ko FILE] [-- VM.SH OPTIONS...]
#
# --ko FILE tests that module (its vermagic picks the kernel) and builds
# none: make check builds each kernel's once, into build/ko/KVER/, so that
# stages of different kernels can run side by side.
#
# FUZZ_SECONDS, FUZZ_SEED and FUZZ_ARGS, when set, reach fuzz_genl.sh in
# the VM (`make check FUZZ_SECONDS=600`); the timeouts grow with
# FUZZ_SECONDS.
#
# Exit status: 0 if every test point passed; else the VM's (see vm.sh).

set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
TIMEOUT=1800
BUILD=1
KO=$REPO/nf_cuckoo.ko
MODBUILD=1
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) TIMEOUT=$2; shift 2 ;;
	--no-build) BUILD=0; shift ;;
	--ko) KO=$(readlink -f "$2"); MODBUILD=0; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "run_vm.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [ "$BUILD" = 1 ]; then
	builds=("cfctl:make -s -C $REPO/tools/cfctl" "xt:make -s -C $REPO/tools/xt"
		"selftests:make -s -C $HERE")
	[ "$MODBUILD" = 1 ] && builds=("module:make -s -C $REPO module" "${builds[@]}")
	for what in "${builds[@]}"; do
		out=$(eval "${what#*:}" 2>&1) || {
			echo "not ok - selftests: building ${what%%:*} failed"
			printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
			exit 1
		}
	done
fi
[ -f "$KO" ] || { echo "not ok - selftests: $KO not built"; exit 1; }
kver=$(modinfo -F vermagic "$KO" | cut -d' ' -f1)
[ -n "$kver" ] || { echo "not ok - selftests: no vermagic in $KO"; exit 1; }
case " $* " in
*" --kernel-dir "*) KVERARG=() ;;
*) KVERARG=(--kver "$kver") ;;
esac

# The VM's environment is minimal: pass the fuzzer's settings on.
VMENV=()
for v in FUZZ_SEED FUZZ_ARGS; do
	[ -n "${!v:-}" ] && VMENV+=(--env "$v=${!v}")
done
if [ -n "${FUZZ_SECONDS:-}" ]; then
	[[ $FUZZ_SECONDS =~ ^[0-9]+$ ]] || { echo "run_vm.sh: bad FUZZ_SECONDS=$FUZZ_SECONDS" >&2; exit 2; }
	# fuzz_genl.sh takes about 3 * FUZZ_SECONDS at most (and 150 s more)
	TIMEOUT=$((TIMEOUT + 3 * FUZZ_SECONDS))
	VMENV+=(--env "FUZZ_SECONDS=$FUZZ_SECONDS"
		--env "CFT_TIMEOUT=$((1800 + 3 * FUZZ_SECONDS))")
fi

exec "$HERE/vm/vm.sh" --timeout "$TIMEOUT" --cwd "$REPO" "${KVERARG[@]}" \
	${VMENV[@]+"${VMENV[@]}"} "$@" -- \
	"$HERE/run_in_vm.sh" "$KO"
