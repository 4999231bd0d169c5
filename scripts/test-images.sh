#!/bin/bash
# A saved filter does not depend on the kernel that saved it: filters of
# three kinds, made and saved under one kernel, restore under the other
# with every entry found, and the restored filters save the very same
# image (every setting, the seed and the table, byte for byte); both ways.
# TAP on stdout.
#
#   scripts/test-images.sh [--ko-dir DIR] KVER_A KVER_B
#
# Each kernel's module is built in a copy of the sources under
# build/images/KVER (the tree's own nf_cuckoo.ko is left alone), or with
# --ko-dir taken from DIR/KVER/nf_cuckoo.ko (make check's, built by its
# module@KVER stages: build/ko).
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
kodir=
if [ "${1:-}" = --ko-dir ]; then
	kodir=$(realpath "${2:?usage: test-images.sh [--ko-dir DIR] KVER_A KVER_B}") || exit 1
	shift 2
fi
A=${1:?usage: test-images.sh [--ko-dir DIR] KVER_A KVER_B}
B=${2:?usage: test-images.sh [--ko-dir DIR] KVER_A KVER_B}
work=$top/build/images
# shellcheck source=../selftests/tap.sh
. selftests/tap.sh
TEST=images

point() {	# point STATUS DESCRIPTION [DIAG]
	if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2" "${3:-}"; fi
}

# ko KVER: the module the VMs of KVER load.
ko() {
	if [ -n "$kodir" ]; then echo "$kodir/$1/nf_cuckoo.ko"; else echo "$work/$1/nf_cuckoo.ko"; fi
}

build() {	# KVER: the module for KVER, in $work/KVER/
	local out

	if [ -n "$kodir" ]; then
		[ -f "$(ko "$1")" ] || bail "no $(ko "$1")"
		return
	fi
	rm -rf "${work:?}/$1"
	mkdir -p "$work/$1"
	cp -r Kbuild kmod uapi "$work/$1/"
	out=$(make -s -C "/lib/modules/$1/build" M="$work/$1" modules 2>&1 |
		grep -v 'Skipping BTF')
	[ -f "$work/$1/nf_cuckoo.ko" ] && [ -z "$out" ]
	point $? "the module builds for $1 in a copy" "$out"
}

# vm_save KVER OUT MODE [FILE]: selftests/vm/images.sh in KVER's VM; the
# save it prints goes to OUT.
vm_save() {
	local k=$1 save=$2 out rc

	shift 2
	out=$(selftests/vm/vm.sh -q --timeout 600 --kver "$k" --cwd "$top" -- \
		selftests/vm/images.sh "$(ko "$k")" \
		"$top/tools/cfctl/cfctl" "$work/entries" "$@" 2>&1)
	rc=$?
	sed -n '/^-- save begin --$/,/^-- save end --$/{/^-- save /d;p;}' \
		<<<"$out" >"$save"
	[ "$rc" = 0 ] && [ -s "$save" ] || { printf '%s\n' "$out"; return 1; }
}

same_image() {	# SAVE1 SAVE2 DESCRIPTION: equal but for the first line (a
		# comment) and the last (the checksum, of the first too)
	local d

	d=$(diff <(sed '1d;$d' "$1") <(sed '1d;$d' "$2") | head -n 10)
	[ -z "$d" ] && grep -q '^create f4 ' "$1"
	point $? "$3" "$d"
}

if [ -n "$kodir" ]; then plan 6; else plan 8; fi
make -s -C tools/cfctl cfctl || bail "cfctl does not build"
mkdir -p "$work/entries"
python3 - "$work/entries" <<'PY'
import sys
d = sys.argv[1]
with open(d + "/f4", "w") as f:
	for i in range(4000):
		f.write("udp 10.1.%d.%d:%d 192.0.2.1:53\n" % (i >> 8, i & 255, 1024 + i))
with open(d + "/f6", "w") as f:
	for i in range(2000):
		f.write("tcp src 2001:db8::%x\n" % (i + 1))
with open(d + "/fi", "w") as f:
	for i in range(2000):
		f.write("tcp 198.51.100.%d:%d 203.0.113.9:443\n" % (i % 250, 1024 + i))
PY
build "$A"
build "$B"

for pair in "$A $B" "$B $A"; do
	set -- $pair
	out=$(vm_save "$1" "$work/made-$1.save" make)
	point $? "three filters made and saved under $1" "$out"
	out=$(vm_save "$2" "$work/from-$1-on-$2.save" restore "$work/made-$1.save")
	point $? "$1's save restores under $2, every entry found" "$out"
	same_image "$work/made-$1.save" "$work/from-$1-on-$2.save" \
		"restored exactly: under $2 the filters save $1's image again"
done
finish
