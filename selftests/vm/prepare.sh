#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare what selftests/vm/vm.sh boots, idempotently, cached under
# build/vm/ (or $NFC_VM_DIR):
#
#   build/vm/kernel-<kver>/vmlinuz                 Debian's unsigned kernel
#   build/vm/kernel-<kver>/vmlinux                 its ELF, booted at its PVH
#                                                  entry (below)
#   build/vm/kernel-<kver>/lib/modules/<kver>/     its modules, depmod'ed
#   build/vm/initramfs-<kver>[-<hash>].cpio        busybox + 9p/virtio + init
#
# The kernel is Debian's image of <kver>, the release the module is built
# for (--kver, by default what `make` picks: scripts/kver.sh), at exactly
# the version of its linux-headers-<kver>, so that modules built against
# those headers load in the VM.  It is fetched with `apt-get download` and
# unpacked with `dpkg -x`, never installed:
#
#   Debian 12's 6.1 and 6.12: linux-image-<kver>-unsigned (boot/vmlinuz-*,
#   lib/modules/), at the version of the headers installed on the host,
#   from the host's apt;
#   Debian 13's (<kver> ending +deb13-amd64, such as the pinned 7.x of
#   scripts/kver.sh --pinned7): from 6.19 on split into
#   linux-binary-unsigned-<kver> (else the signed linux-binary-<kver>),
#   linux-modules-<kver> and linux-base-<kver>, everything under
#   usr/lib/modules/<kver>/ (vmlinuz.unsigned or vmlinuz there), at the
#   version of the headers in the Debian 13 build root the module is built
#   in (scripts/buildroot.sh --version), through scripts/apt-trixie.sh's
#   apt configuration of its own; an older Debian 13 kernel, still in one
#   linux-image-<kver>-unsigned, the same way.
#
# Its modules may come compressed (6.12 and 7.x: .ko.xz; .ko.zst too) and
# virtio may be built in: both are handled.
#
# Usage: prepare.sh [--kver KVER] [--kernel-dir DIR] [--print-env] [--quiet]
#   --kver KVER       Debian's kernel release KVER (6.12.117+deb12-amd64)
#   --kernel-dir DIR  use DIR (DIR/vmlinuz, DIR/lib/modules/<ver>/) instead
#                     of the Debian kernel; only the initramfs is built
#                     (with --kver too, <ver> must be KVER)
#   --print-env       print NFC_VM_KERNEL, NFC_VM_INITRD, NFC_VM_KVER,
#                     NFC_VM_KDIR and NFC_VM_CPU (the CPU model every VM
#                     is given: the environment's, else the default below)
#                     as shell assignments on stdout
#   --quiet           no progress messages
#
# Progress goes to stderr.  Missing Debian packages are installed with
# apt-get (root only).

set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
HERE=$(dirname "$SELF")
REPO=$(cd "$HERE/../.." && pwd)
VMDIR=${NFC_VM_DIR:-$REPO/build/vm}

KDIR=
KVER=
PRINT_ENV=0
QUIET=0

log() { [ "$QUIET" = 1 ] || echo "prepare: $*" >&2; }
die() { echo "prepare: error: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--kernel-dir) KDIR=${2:?--kernel-dir needs an argument}; shift 2 ;;
	--kernel-dir=*) KDIR=${1#*=}; shift ;;
	--kver) KVER=${2:?--kver needs an argument}; shift 2 ;;
	--kver=*) KVER=${1#*=}; shift ;;
	--print-env) PRINT_ENV=1; shift ;;
	--quiet|-q) QUIET=1; shift ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$SELF"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done

# ---- Debian packages ------------------------------------------------------

APT_UPDATED=0
apt_update_once() {
	[ "$APT_UPDATED" = 1 ] && return 0
	log "apt-get update"
	apt-get update -qq >&2
	APT_UPDATED=1
}

pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q 'install ok installed'
}

ensure_pkgs() {
	local p missing=()

	for p in "$@"; do
		pkg_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages (need root): ${missing[*]}"
	apt_update_once
	log "apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
}

# Base tools.  linux-headers-amd64 is needed only for the default Debian
# kernel (it tells which kernel `make` builds for when the running one has
# no headers).
PKGS=(qemu-system-x86 busybox-static kmod cpio)
[ -z "$KDIR$KVER" ] && PKGS+=(linux-headers-amd64)
ensure_pkgs "${PKGS[@]}"

mkdir -p "$VMDIR"
# Serialise concurrent vm.sh runs that prepare the same cache.
exec 9>"$VMDIR/.lock"
flock 9

# ---- the kernel -----------------------------------------------------------

# The kernel release the module is built for (e.g. 6.1.0-56-amd64) and the
# Debian version (e.g. 6.1.192-2) of its installed headers, the image's
# version too; without headers, the newest image apt knows of.  Debian
# 13's come from apt-trixie.sh at the version of the build root's headers.
APT13=
headers_kver() {
	[ -n "$KVER" ] || KVER=$("$REPO/scripts/kver.sh" -q) ||
		die "which kernel? (scripts/kver.sh failed)"
	DEBVER=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER" \
		2>/dev/null) || DEBVER=
	if [ -z "$DEBVER" ] && [[ $KVER == *+deb13-* ]]; then
		APT13=$REPO/scripts/apt-trixie.sh
		DEBVER=$("$REPO/scripts/buildroot.sh" --version "$KVER") ||
			die "Debian 13 has no linux-headers-$KVER"
		return 0
	fi
	if [ -z "$DEBVER" ]; then
		DEBVER=$(apt-cache policy "linux-image-$KVER-unsigned" 2>/dev/null |
			sed -n 's/^ *Candidate: *//p')
		[ "$DEBVER" = "(none)" ] && DEBVER=
	fi
	[ -n "$DEBVER" ] ||
		die "no Debian package linux-image-$KVER-unsigned: boot that kernel with --kernel-dir"
}

# Make sure the decompressor for module file $1 is there.
need_unpacker() {
	case $1 in
	*.xz) command -v xz >/dev/null || ensure_pkgs xz-utils ;;
	*.zst) command -v zstd >/dev/null || ensure_pkgs zstd ;;
	*.gz) command -v gzip >/dev/null || ensure_pkgs gzip ;;
	esac
}

# Decompress every module under $1 in place (.ko.xz/.ko.zst/.ko.gz -> .ko).
decompress_modules() {
	local dir=$1 f n=0

	while IFS= read -r -d '' f; do
		need_unpacker "$f"
		case $f in
		*.ko.xz) xz -dq "$f" ;;
		*.ko.zst) zstd -dq --rm "$f" ;;
		*.ko.gz) gzip -dq "$f" ;;
		esac
		n=$((n + 1))
	done < <(find "$dir" -type f \( -name '*.ko.xz' -o -name '*.ko.zst' \
		-o -name '*.ko.gz' \) -print0)
	[ "$n" = 0 ] || log "decompressed $n modules in $dir"
}

# apt-get and apt-cache: the host's, or Debian 13's (scripts/apt-trixie.sh).
apt_() {
	if [ -n "$APT13" ]; then
		"$APT13" "$@"
	elif [ "$1" = update ]; then
		apt_update_once
	else
		"$@"
	fi
}

apt_download() {
	local dir=$1
	shift
	(cd "$dir" && apt_ apt-get download -qq -o APT::Sandbox::User=root "$@" >&2)
}

# The packages that hold KVER's image at DEBVER, on one line: from 6.19 on
# Debian splits it (the unsigned binary, else the signed one; the modules;
# the base files), before it is linux-image-KVER-unsigned alone.
image_pkgs() {
	local bin

	for bin in "linux-binary-unsigned-$KVER" "linux-binary-$KVER"; do
		if apt_ apt-cache show -q=2 "$bin=$DEBVER" >/dev/null 2>&1; then
			echo "$bin linux-modules-$KVER linux-base-$KVER"
			return 0
		fi
	done
	echo "linux-image-$KVER-unsigned"
}

# stamp_at FILE VERSION: FILE names packages, each at VERSION.
stamp_at() {
	local v want=()

	[ -f "$1" ] && read -r -a want <"$1" || return 1
	[ ${#want[@]} -gt 0 ] || return 1
	for v in "${want[@]}"; do
		[ "${v##*=}" = "$2" ] || return 1
	done
}

fetch_debian_kernel() {
	local pkgs=() want=() dst tmp deb stamp src v

	headers_kver
	dst=$VMDIR/kernel-$KVER
	KDIR=$dst
	# Unpacked at DEBVER already: which packages held it is in the
	# stamp, and asking apt again costs seconds every boot.
	stamp_at "$dst/.stamp" "$DEBVER" && return 0
	read -r -a pkgs <<<"$(image_pkgs)"
	want=("${pkgs[@]/%/=$DEBVER}")
	stamp=${want[*]}

	log "fetching $stamp"
	tmp=$VMDIR/.dl.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# apt-get download would write into the cwd as the _apt sandbox user,
	# and only warn when it cannot: download as root straight away.
	if ! apt_download "$tmp" "${want[@]}"; then
		apt_ update
		apt_download "$tmp" "${want[@]}" || die "cannot download $stamp"
	fi
	for deb in "$tmp"/*.deb; do
		log "unpacking $(basename "$deb")"
		dpkg -x "$deb" "$tmp/x"
	done

	rm -rf "$dst"
	mkdir -p "$dst/lib/modules"
	if [ ${#pkgs[@]} = 1 ]; then
		[ -f "$tmp/x/boot/vmlinuz-$KVER" ] || die "no vmlinuz-$KVER in $stamp"
		[ -d "$tmp/x/lib/modules/$KVER" ] || die "no lib/modules/$KVER in $stamp"
		mv "$tmp/x/boot/vmlinuz-$KVER" "$dst/vmlinuz"
		mv "$tmp/x/boot/config-$KVER" "$dst/config"
		mv "$tmp/x/boot/System.map-$KVER" "$dst/System.map"
		mv "$tmp/x/lib/modules/$KVER" "$dst/lib/modules/$KVER"
	else
		# Everything is in usr/lib/modules/KVER/; the image is named
		# after its signing.
		src=$tmp/x/usr/lib/modules/$KVER
		[ -d "$src/kernel" ] || die "no usr/lib/modules/$KVER/kernel in $stamp"
		for v in vmlinuz.unsigned vmlinuz vmlinuz.efi.signed ''; do
			[ -n "$v" ] || die "no vmlinuz in usr/lib/modules/$KVER of $stamp"
			[ -f "$src/$v" ] && break
		done
		mv "$src/$v" "$dst/vmlinuz"
		cp "$src/config" "$dst/config"
		cp "$src/System.map" "$dst/System.map"
		mv "$src" "$dst/lib/modules/$KVER"
	fi
	rm -rf "$tmp"

	# Debian 6.1 ships uncompressed modules; later ones may not.  The
	# VM's modprobe is the host's kmod, which may lack a decompressor,
	# and busybox insmod in the initramfs has none for zstd: keep it
	# simple and store them uncompressed.
	decompress_modules "$dst/lib/modules/$KVER"
	log "depmod -b $dst $KVER"
	depmod -b "$dst" "$KVER"
	echo "$stamp" >"$dst/.stamp"
}

if [ -z "$KDIR" ]; then
	fetch_debian_kernel
	INITRD=$VMDIR/initramfs-$KVER.cpio
else
	KDIR=$(readlink -f "$KDIR")
	[ -f "$KDIR/vmlinuz" ] || die "$KDIR/vmlinuz not found"
	vers=("$KDIR"/lib/modules/*/)
	[ ${#vers[@]} = 1 ] && [ -d "${vers[0]}" ] ||
		die "$KDIR/lib/modules/ must hold exactly one kernel version"
	[ -z "$KVER" ] || [ "$KVER" = "$(basename "${vers[0]}")" ] ||
		die "$KDIR holds $(basename "${vers[0]}"), not $KVER"
	KVER=$(basename "${vers[0]}")
	if [ ! -f "$KDIR/lib/modules/$KVER/modules.dep" ]; then
		log "depmod -b $KDIR $KVER"
		depmod -b "$KDIR" "$KVER"
	fi
	INITRD=$VMDIR/initramfs-$KVER-$(echo "$KDIR" | sha1sum | cut -c1-8).cpio
fi
MODDIR=$KDIR/lib/modules/$KVER

# ---- the initramfs --------------------------------------------------------

# Modules the init needs before the host's root is mounted, leaves first;
# their dependencies are resolved from modules.dep.  Built-in ones (in
# modules.builtin: 6.12 builds virtio_pci in) are skipped.
INITRD_MODULES=(virtio_pci 9pnet_virtio 9p)

# Print the modules.dep paths needed for $@, dependencies first.
resolve_modules() {
	awk -v want="$*" '
	function base(p) { sub(/.*\//, "", p); sub(/\.ko(\.[a-z]+)?$/, "", p)
			   gsub(/-/, "_", p); return p }
	function visit(m,    n, i, d) {
		if (m in done) return
		done[m] = 1
		n = split(deps[m], d, " ")
		for (i = 1; i <= n; i++) visit(d[i])
		print m
	}
	FILENAME ~ /modules\.builtin$/ { builtin[base($1)] = 1; next }
	{
		m = $1; sub(/:$/, "", m)
		path[base(m)] = m
		$1 = ""; deps[m] = $0
	}
	END {
		n = split(want, w, " ")
		for (i = 1; i <= n; i++) {
			if (w[i] in builtin)
				continue
			if (!(w[i] in path)) {
				print "prepare: " w[i] " is not a module (built in?)" > "/dev/stderr"
				continue
			}
			visit(path[w[i]])
		}
	}' "$MODDIR/modules.dep" "$MODDIR/modules.builtin"
}

write_init() {
	# Stage 1, /init in the initramfs: load the 9p stack, mount the host's
	# root and what goes over it, then switch_root into it, so that the
	# kernel's own usermode helpers (request_module -> /sbin/modprobe)
	# run the host's tools on the kernel's modules.
	cat >"$1" <<'EOF'
#!/bin/sh
# nf_cuckoo VM init, stage 1 (generated by selftests/vm/prepare.sh)
/bin/busybox mkdir -p /proc /sys /dev /sbin /usr/bin /usr/sbin /newroot
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1

arg() {
	for a in $(cat /proc/cmdline); do
		case $a in "nfcvm.$1="*) echo "${a#*=}"; return ;; esac
	done
}
RUN=$(arg run)
KDIR=$(arg kdir)
TOKEN=$(arg token)

fail() {
	echo "nfc-vm: init: $*"
	echo "NFC-VM-EXIT $TOKEN 125"
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 10
}

for m in $(cat /modules.list); do
	insmod "/$m" || fail "insmod $m failed"
done

R=/newroot
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro \
	hostroot $R || fail "cannot mount the host root over 9p"
[ -f "$R$RUN/cmd.sh" ] || fail "$RUN/cmd.sh not visible in the VM"
cp "$R$RUN/cmd.sh" /cmd.sh || fail "cannot read $RUN/cmd.sh"
[ -x "$R/bin/bash" ] || fail "no /bin/bash on the host root"

# Host directories under /tmp, /var/tmp or /run that the command needs
# (its cwd, the repository): keep them over the tmpfs mounts.
i=0
while IFS= read -r p; do
	[ -n "$p" ] && [ -d "$R$p" ] || continue
	mkdir -p /keep/$i && mount --bind "$R$p" /keep/$i ||
		fail "cannot keep $p"
	echo "$p" >/keep/$i.path
	i=$((i + 1))
done <"$R$RUN/keep"

mount -t tmpfs -o mode=1777 tmpfs $R/tmp || fail "tmpfs /tmp"
mount -t tmpfs -o mode=0755 tmpfs $R/run || fail "tmpfs /run"
mount -t tmpfs -o mode=1777 tmpfs $R/var/tmp || fail "tmpfs /var/tmp"
while [ $i -gt 0 ]; do
	i=$((i - 1))
	p=$(cat /keep/$i.path)
	mkdir -p "$R$p" && mount --move /keep/$i "$R$p" ||
		fail "cannot bind $p back"
done
mount --move /proc $R/proc || fail "proc"
mount --move /sys $R/sys || fail "sysfs"
mount --move /dev $R/dev || fail "devtmpfs"
mkdir -p $R/dev/pts $R/dev/shm $R/run/lock $R/run/nfc-vm
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts $R/dev/pts ||
	fail "devpts"
ln -sf pts/ptmx $R/dev/ptmx 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs $R/dev/shm
mount -t debugfs debugfs $R/sys/kernel/debug || fail "debugfs"
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
mount -t bpf bpf $R/sys/fs/bpf 2>/dev/null
# /lib may be a symlink on the host (merged /usr): let the host's mount
# resolve it inside the new root, else resolve it with the host's readlink.
chroot $R mount --bind "$KDIR/lib/modules" /lib/modules 2>/dev/null ||
	mount --bind "$R$KDIR/lib/modules" "$R$(chroot $R readlink -f \
		/lib/modules)" || fail "cannot bind $KDIR/lib/modules"
cp /cmd.sh /init2 /bin/busybox $R/run/nfc-vm/ || fail "cannot fill /run"
exec switch_root $R /run/nfc-vm/busybox sh /run/nfc-vm/init2
fail "switch_root failed"
EOF
	chmod 755 "$1"

	# Stage 2, PID 1 on the host's root: run the command, report, power
	# off.  It runs from /run/nfc-vm with a copy of busybox.
	cat >"$(dirname "$1")/init2" <<'EOF'
# nf_cuckoo VM init, stage 2 (generated by selftests/vm/prepare.sh)
BB=/run/nfc-vm/busybox
arg() {
	for a in $($BB cat /proc/cmdline); do
		case $a in "nfcvm.$1="*) echo "${a#*=}"; return ;; esac
	done
}
TOKEN=$(arg token)
DMESG=$(arg dmesg)
$BB hostname nfc-vm
$BB ip link set lo up 2>/dev/null

echo "NFC-VM-START $TOKEN $($BB cut -d' ' -f1 /proc/uptime)"
/usr/bin/env -i \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/tmp TERM=dumb LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 \
	/bin/bash /run/nfc-vm/cmd.sh </dev/null
rc=$?
if [ "$DMESG" = 1 ]; then
	echo "----- dmesg -----"
	$BB dmesg
	echo "----- end of dmesg -----"
fi
echo "NFC-VM-EXIT $TOKEN $rc"
$BB poweroff -f
echo o >/proc/sysrq-trigger
$BB sleep 10
EOF
}

build_initramfs() {
	local stage=$VMDIR/.initramfs.$$ m mods

	log "building $(basename "$INITRD") for $KVER"
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,dev,proc,sys,newroot}
	cp "$(command -v busybox)" "$stage/bin/busybox"
	file -L "$stage/bin/busybox" 2>/dev/null | grep -q 'dynamically' &&
		die "busybox is not static (install busybox-static)"
	ln -s busybox "$stage/bin/sh"
	mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
	write_init "$stage/init"

	mods=$(resolve_modules "${INITRD_MODULES[@]}")
	: >"$stage/modules.list"
	for m in $mods; do
		mkdir -p "$stage/$(dirname "$m")"
		need_unpacker "$m"
		case $m in
		*.ko.xz) xz -dc "$MODDIR/$m" >"$stage/${m%.xz}"; m=${m%.xz} ;;
		*.ko.zst) zstd -dqc "$MODDIR/$m" >"$stage/${m%.zst}"
			  m=${m%.zst} ;;
		*.ko.gz) gzip -dc "$MODDIR/$m" >"$stage/${m%.gz}"; m=${m%.gz} ;;
		*) cp "$MODDIR/$m" "$stage/$m" ;;
		esac
		echo "$m" >>"$stage/modules.list"
	done
	log "initramfs modules: $(xargs -r -n1 basename <"$stage/modules.list" |
		tr '\n' ' ')"

	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc --quiet -R 0:0) >"$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	rm -rf "$stage"
}

# Rebuild when this script (which holds the init), busybox or the module
# tree changed.
if [ ! -s "$INITRD" ] || [ "$SELF" -nt "$INITRD" ] ||
   [ "$(command -v busybox)" -nt "$INITRD" ] ||
   [ "$MODDIR/modules.dep" -nt "$INITRD" ]; then
	build_initramfs
fi

# QEMU boots an ELF kernel that has a PVH entry note (CONFIG_PVH: every
# Debian amd64 kernel has it) straight at that entry: no firmware, no
# self-decompression, which under emulation took 5-9 s of a 14-17 s boot
# (qemu start to the command: 10-14 s with the bzImage, 5 s with this).
# KDIR/vmlinux is unpacked once from the bzImage (btf/vmlinux-of.sh); a
# kernel without the note (0x12, XEN_ELFNOTE_PHYS32_ENTRY) boots as the
# bzImage, and one whose config says it has no CONFIG_PVH (the debug
# kernel's) is not unpacked at every boot to find that out.
pvh_image() {	# DIR: prints DIR/vmlinux, made if need be, or fails
	local out=$1/vmlinux

	if [ -f "$1/config" ] && ! grep -q '^CONFIG_PVH=y' "$1/config"; then
		return 1
	fi
	if [ ! -s "$out" ] || [ "$1/vmlinuz" -nt "$out" ]; then
		command -v readelf >/dev/null &&
			"$REPO/btf/vmlinux-of.sh" "$1/vmlinuz" "$out.new" &&
			readelf -n "$out.new" | grep -Eq '^ *Xen .*(\(0x0*12\)|PHYS32)' ||
			{ rm -f "$out.new"; return 1; }
		mv "$out.new" "$out"
		log "unpacked $out from the bzImage, to boot at its PVH entry"
	fi
	echo "$out"
}
IMAGE=$(pvh_image "$KDIR") || IMAGE=$KDIR/vmlinuz

# The CPU the VMs emulate: QEMU's "max" without ERMS.  With ERMS the
# guest kernel clears and copies pages and user memory with `rep stosb`
# and `rep movsb`, and glibc its large copies, which QEMU 7.2's TCG runs
# one byte at a time: reading 2 GB of /dev/zero took 5.9 s, 1.0 s without
# it; six selftests (pkt_host, cfctl_perm, cfctl_errors, fault_fill,
# pkt_xt, cfctl_grow) 146 and 136 s, 131 and 117 s without, run
# alternately.  The kernel then copies by `rep movsq` or by loops, as on a
# CPU without ERMS; nothing tested depends on which.
VM_CPU=${NFC_VM_CPU:-max,erms=off}

if [ "$PRINT_ENV" = 1 ]; then
	printf 'NFC_VM_KERNEL=%q\n' "$IMAGE"
	printf 'NFC_VM_INITRD=%q\n' "$INITRD"
	printf 'NFC_VM_KVER=%q\n' "$KVER"
	printf 'NFC_VM_KDIR=%q\n' "$KDIR"
	printf 'NFC_VM_CPU=%q\n' "$VM_CPU"
fi
log "ready: $KDIR ($KVER), $INITRD"
