#!/bin/bash
# The kernel's own checks on the module's sources, as TAP: checkpatch.pl
# (from Debian's linux-source-6.1 tarball, extracted into build/tools, never
# copied into the repository) on every file of kmod/ and uapi/, and sparse
# (make C=2) on every object of the module, against each kernel's header
# tree the module supports: Debian 12's 6.1 (linux-headers-amd64) and its
# newest 6.12 (scripts/kver.sh).  checkpatch reads the sources only
# (--no-tree), the same for both.  Any error or warning fails (--strict's
# checks are advice: the uapi header follows uapi style).  Not Debian 13's
# 7.3.4 (scripts/kver.sh --pinned7): its headers use __typeof_unqual__,
# which Debian's sparse (0.6.4, in 12 and 13 alike) cannot parse (200
# errors in seqlock.h, list.h and the like, and a crash: it never gets to
# judge the module's own code), and its
# kbuild package lacks scripts/checker-valid.sh, so C=2 there checks
# nothing at all; -Werror's build in its build root is what it gets.
# LINT_SPARSE=no leaves sparse out: make check runs it in its module
# builds (scripts/check.sh, build_module).  --tools: only extract the
# tools (make check's build stage does, right after its dependency step
# has checked the tarball: on this project's machines it has vanished
# mid-run, with the package still installed).
set -u
cd "$(dirname "$0")/.." || exit 1
tools=build/tools
src=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -n1)
n=0
failed=0

point() {	# point OK? DESCRIPTION [OUTPUT]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - lint: $2"
	else
		echo "not ok $n - lint: $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}

if [ ! -f "$tools/checkpatch.pl" ]; then
	[ -n "$src" ] || { echo "not ok - lint: no linux-source tarball"; exit 1; }
	mkdir -p "$tools"
	tar -xJf "$src" -C "$tools" --strip-components=2 --wildcards \
		'linux-source-*/scripts/checkpatch.pl' \
		'linux-source-*/scripts/spelling.txt' \
		'linux-source-*/scripts/const_structs.checkpatch' || exit 1
fi
[ "${1:-}" = --tools ] && exit 0

for f in kmod/*.c kmod/*.h uapi/linux/*.h; do
	ignore=()
	# The one place that tests kernel versions, by design: checkpatch's
	# advice against them (and its taking LINUX_VERSION_CODE for a
	# constant) is for code merged into the tree, which needs none.
	[ "$f" = kmod/compat.h ] &&
		ignore=(--ignore LINUX_VERSION_CODE --ignore CONSTANT_COMPARISON)
	out=$(perl "$tools/checkpatch.pl" --no-tree --quiet \
		${ignore[@]+"${ignore[@]}"} -f "$f" 2>&1)
	point $? "checkpatch $f" "$out"
done

# Sparse builds in a copy of the tree (as git has it, and what is not
# committed yet): make check runs lint beside stages that build in the
# tree itself.
sparse_kernels=
if [ "${LINT_SPARSE:-yes}" != no ]; then
	sparse_kernels=$(scripts/kver.sh --debian)
	k612=$(scripts/kver.sh --newest 6.12)
	[ -n "$k612" ] || point 1 "sparse: no 6.12 headers (run scripts/deps.sh)"
	sparse_kernels+=" $k612"
	src=build/lint/src
	rm -rf "$src"
	mkdir -p "$src"
	git ls-files -z --cached --others --exclude-standard |
		tar -c --null -T - -f - | tar -x -C "$src"
fi
for kver in $sparse_kernels; do
	out=$(make -s -C "/lib/modules/$kver/build" M="$PWD/$src" C=2 modules 2>&1 |
		grep -E '(warning|error):' | grep -v 'Skipping BTF')
	[ -z "$out" ]
	point $? "sparse (make C=2) on every object of nf_cuckoo.ko, $kver" "$out"
done
# One release number: the module's and cfctl's (kmod/version.h) and the
# packages'; DKMS's is the package's, put in dkms.conf by dh_dkms -V, so
# dkms.conf holds none of its own.
v=$(sed -n 's/^#define NF_CUCKOO_VERSION\t"\(.*\)"$/\1/p' kmod/version.h)
vd=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
vc=$(sed -n '1s/^nf-cuckoo (\([^)-]*\)[^)]*).*/\1/p' debian/changelog)
[ -n "$v" ] && [ "$vd" = "#MODULE_VERSION#" ] && [ "$v" = "$vc" ]
point $? "one version: kmod/version.h ($v), debian/changelog ($vc); dkms.conf's from dh_dkms ($vd)"
rm -rf "$src"
[ "$failed" = 0 ]
