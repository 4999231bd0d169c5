#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Record the kernel's jhash() outputs into tests/vectors/jhash.txt:
# build jhash_vectors.ko against the Debian headers (in build/jhash-vectors/,
# keeping the source tree clean), load it in the VM (selftests/vm/vm.sh),
# collect its log lines and write them as
#
#   <len> <initval %08x> <key hex, or - when len is 0> <hash %08x>
#
# Usage: record.sh [--kernel-dir DIR] [OUTPUT]   (default tests/vectors/jhash.txt)
#   --kernel-dir DIR is passed to vm.sh; the module is then built against
#   DIR/lib/modules/<ver>/build, which must exist.

set -euo pipefail

HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
REPO=$(cd "$HERE/../.." && pwd)
VMARGS=()
KDIR=

while [ $# -gt 0 ]; do
	case $1 in
	--kernel-dir) KDIR=$(readlink -f "${2:?}"); VMARGS+=(--kernel-dir "$KDIR")
		shift 2 ;;
	*) break ;;
	esac
done
OUT=${1:-$REPO/tests/vectors/jhash.txt}
EXPECT=$(( (41 + 2) * 4 ))

die() { echo "record: error: $*" >&2; exit 1; }

eval "$("$REPO/selftests/vm/prepare.sh" --print-env "${VMARGS[@]}")"
KVER=$NFC_VM_KVER
if [ -n "$KDIR" ]; then
	BUILD=$KDIR/lib/modules/$KVER/build
else
	BUILD=/lib/modules/$KVER/build
fi
[ -d "$BUILD" ] || die "no kernel build tree at $BUILD"

# Build a copy: kbuild writes its objects next to the sources.
OBJ=$REPO/build/jhash-vectors
rm -rf "$OBJ"
mkdir -p "$OBJ"
cp "$HERE/Kbuild" "$HERE/jhash_vectors.c" "$OBJ/"
make -s -C "$BUILD" M="$OBJ" modules >&2
KO=$OBJ/jhash_vectors.ko
[ -f "$KO" ] || die "build failed"

# The module's init logs the vectors and fails with -EAGAIN on purpose.
LOG=$OBJ/vm.log
set +e
# shellcheck disable=SC2016  # expanded by the guest's shell
"$REPO/selftests/vm/vm.sh" -q "${VMARGS[@]}" -- /bin/sh -c '
	insmod "$1"; rc=$?
	echo "insmod-status $rc"
	dmesg | grep -o "jhash-vector: .*"
	' sh "$KO" </dev/null >"$LOG"
RC=$?
set -e
[ "$RC" = 0 ] || { cat "$LOG" >&2; die "vm.sh failed with $RC"; }
grep -qx 'insmod-status 1' "$LOG" ||
	{ cat "$LOG" >&2; die "insmod did not fail as it should (-EAGAIN)"; }

LINES=$(sed -n 's/^jhash-vector: \([0-9]\{1,3\} [0-9a-f]\{8\} \(-\|[0-9a-f]\{2,\}\) [0-9a-f]\{8\}\)$/\1/p' "$LOG")
N=$(printf '%s\n' "$LINES" | grep -c .)
DONE=$(sed -n 's/^jhash-vector: done \([0-9]*\)$/\1/p' "$LOG")
[ "$N" = "$EXPECT" ] && [ "$DONE" = "$EXPECT" ] ||
	{ cat "$LOG" >&2; die "got $N vectors (module said ${DONE:-nothing}), want $EXPECT"; }
# Each key is 2 * len hex digits.
printf '%s\n' "$LINES" | awk '{ if (($1 == 0 && $3 != "-") ||
	($1 > 0 && length($3) != 2 * $1)) { print "bad line: " $0; bad = 1 } }
	END { exit bad }' >&2 || die "malformed vectors"

mkdir -p "$(dirname "$OUT")"
{
	echo "# jhash() test vectors, recorded from the kernel's own jhash()"
	echo "# (include/linux/jhash.h) by tools/jhash-vectors/record.sh:"
	echo "# module jhash_vectors.ko loaded in a QEMU x86_64 (TCG) VM running"
	echo "# Linux $KVER ($(uname -m), little-endian), $(date -u +%Y-%m-%d)."
	echo "# key[i] = (i * 37 + len * 11 + 5) & 0xff for 0 <= i < len."
	echo "# Format: <len> <initval, 8 hex> <key bytes hex, - if len is 0> <hash, 8 hex>"
	printf '%s\n' "$LINES"
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "record: wrote $N vectors to $OUT" >&2
