#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The ELF vmlinux inside an x86 bzImage (a Debian vmlinuz):
#
#   btf/vmlinux-of.sh VMLINUZ OUT
#
# The compressed kernel is where the boot header says (setup_sects,
# payload_offset and payload_length, boot protocol 2.08 and later), and
# its last four bytes are the size it unpacks to (gzip's own trailer; the
# kernel's build appends it to xz and zstd streams), which OUT must have.
# Status 0 with OUT written, else 1 and no OUT.  Used by module-btf.sh
# (the kernel's BTF, for the module's) and by the VM runner (a kernel
# QEMU boots at its PVH entry).
set -u

Z=$1 OUT=$2

u() {	# u WIDTH OFFSET: the unsigned little-endian number there
	od -An -tu"$1" -j "$2" -N "$1" "$Z" | tr -d ' '
}

[ "$(dd if="$Z" bs=1 skip=514 count=4 status=none 2>/dev/null)" = HdrS ] &&
	[ "$(u 2 518)" -ge 520 ] || exit 1
setup=$(u 1 497)
[ "$setup" = 0 ] && setup=4
start=$(((setup + 1) * 512 + $(u 4 584)))
len=$(u 4 588)
[ "$len" -gt 4 ] || exit 1
size=$(u 4 $((start + len - 4)))
case $(od -An -tx1 -j "$start" -N 4 "$Z" | tr -d ' \n') in
1f8b*)	dec='gzip -dc' ;;
fd377a58) dec='xz -dc --single-stream' len=$((len - 4)) ;;
28b52ffd) dec='zstd -dcq' len=$((len - 4)) ;;
*)	exit 1 ;;
esac
command -v "${dec%% *}" >/dev/null || exit 1
# shellcheck disable=SC2086  # $dec is a command and its options
if dd if="$Z" bs=64K iflag=skip_bytes,count_bytes skip="$start" \
	count="$len" status=none | $dec >"$OUT.tmp" 2>/dev/null &&
	[ "$(stat -c %s "$OUT.tmp")" = "$size" ] &&
	[ "$(od -An -tx1 -N 4 "$OUT.tmp" | tr -d ' \n')" = 7f454c46 ]; then
	mv "$OUT.tmp" "$OUT"
	exit 0
fi
rm -f "$OUT.tmp"
exit 1
