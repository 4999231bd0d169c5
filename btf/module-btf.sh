#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Give nf_cuckoo.ko its BTF where the kernel's build could not: BPF
# programs find the module's kfuncs by it (XDP and tc, kmod/kfunc.c).
#
#   btf/module-btf.sh KDIR KVER MODULE.ko
#
# Kbuild makes a module's BTF (pahole -J over the kernel's, then
# resolve_btfids) only when the header tree holds the kernel's vmlinux:
# Debian's 6.12 and later trees do, 6.1's does not ("Skipping BTF
# generation ... unavailability of vmlinux").  There the kernel's own BTF
# is taken from, in this order:
#   $NFCF_BTF_BASE             a file of raw BTF, a vmlinux, or a vmlinuz
#                              (the tests give the image the VM boots)
#   /sys/kernel/btf/vmlinux    when KVER is the running kernel
#   /boot/vmlinuz-KVER, /lib/modules/KVER/vmlinuz
# and the module's BTF is made against it with pahole, its kfunc set
# filled in with btf/resolve_ids.  BTF made against another kernel's
# would be refused when the module loads, so nothing is guessed: with no
# base, or no pahole, the module is left without BTF, says so, and loads
# and filters all the same (XDP and tc then say why they cannot).
#
# Status 0 unless the module cannot be written: without BTF it builds all
# the same.
set -eu

KDIR=$1 KVER=$2 KO=$3
HERE=$(dirname "$0")
say() { echo "nf_cuckoo: $*" >&2; }

# Nothing to do: the kernel has no module BTF, or Kbuild made it.
grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$KDIR/.config" 2>/dev/null || exit 0
if [ -f "$KDIR/vmlinux" ]; then
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

base=
if [ -n "${NFCF_BTF_BASE:-}" ]; then
	base=$NFCF_BTF_BASE
elif [ "$KVER" = "$(uname -r)" ] && [ -r /sys/kernel/btf/vmlinux ]; then
	base=/sys/kernel/btf/vmlinux
else
	for f in "/boot/vmlinuz-$KVER" "/lib/modules/$KVER/vmlinuz"; do
		[ -r "$f" ] && base=$f && break
	done
fi
if [ -z "$base" ]; then
	say "no BTF of $KVER to build the module's against (neither the running kernel nor /boot/vmlinuz-$KVER): no XDP or tc for this build"
	exit 0
fi
if [ ! -r "$base" ]; then
	say "cannot read $base: no BTF, no XDP or tc for this build"
	exit 0
fi
if ! command -v pahole >/dev/null; then
	say "pahole (Debian's dwarves) is missing: no BTF, no XDP or tc for this build"
	exit 0
fi
# A compressed kernel image: its vmlinux, whose .BTF pahole reads.
if [ "$(head -c 4 "$base")" != "$(printf '\177ELF')" ] &&
	[ "$(od -An -tx1 -N2 "$base" | tr -d ' ')" != 9feb ]; then
	if ! sh "$HERE/vmlinux-of.sh" "$base" "$tmp/vmlinux"; then
		say "cannot unpack the kernel in $base: no BTF, no XDP or tc for this build"
		exit 0
	fi
	base=$tmp/vmlinux
fi

# On a copy: a step that fails leaves the module as it was, without BTF.
cp "$KO" "$tmp/m.ko"
flags=
[ -x "$KDIR/scripts/pahole-flags.sh" ] &&
	flags=$(PAHOLE=pahole "$KDIR/scripts/pahole-flags.sh")
# As the kernel's Makefile.modfinal does, with its pahole flags.
# resolve_ids reads one module's BTF once: unoptimised, it compiles in a
# third of the time (3 s against 5-10 s in the lifecycle test's emulated
# guest, where DKMS runs this).
# shellcheck disable=SC2086
if ! ${HOSTCC:-cc} -O0 -o "$tmp/resolve_ids" "$HERE/resolve_ids.c" 2>"$tmp/err" ||
	! LLVM_OBJCOPY=${OBJCOPY:-objcopy} pahole -J $flags --btf_base "$base" \
		"$tmp/m.ko" >"$tmp/err" 2>&1 ||
	! "$tmp/resolve_ids" "$base" "$tmp/m.ko" 2>"$tmp/err"; then
	say "no BTF for $(basename "$KO"), no XDP or tc for this build: $(head -n 3 "$tmp/err")"
	exit 0
fi
cp "$tmp/m.ko" "$KO"
say "BTF made for $(basename "$KO") against $KVER's (${NFCF_BTF_BASE:-$base})"
