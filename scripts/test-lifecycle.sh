#!/bin/bash
# nf_cuckoo's life on a real Debian 12: installed with apt, booted with
# systemd, restarted, reloaded, upgraded, rebooted and powered off hard.
# TAP on stdout, like scripts/test-install.sh.
#
#  1. A root file system of Debian 12 from Debian's archive (mmdebstrap:
#     systemd, udev, dkms, the VM kernel's image and headers, gcc, make,
#     ccache, iproute2, nftables, python3, fail2ban, crowdsec and its bouncer),
#     cached under build/lifecycle/ and keyed on its recipe (the package
#     list, the suites, the hooks): a change of any rebuilds it.
#  2. The Debian packages of this tree and of a copy of it one version
#     higher (VERSION+test1), from scripts/debs.sh (built once a tree, for
#     the install test too, and cached under build/debs/); the first are
#     installed with `apt install ./*.deb` in a chroot of an overlay of the
#     root file system (DKMS builds the module for the guest kernel there),
#     and the lot is written to an ext4 disk image.
#  3. That disk booted under QEMU (TCG) with the kernel of build/vm,
#     systemd as PID 1, once per stage of selftests/lifecycle/guest.sh
#     (nfclc.stage= on the kernel command line): each stage checks what the
#     one before left, and ends with a clean reboot (QEMU, run with
#     -no-reboot, exits and is started again on the same disk), a power-off,
#     or a hard power cut (QEMU killed the moment the guest asks).  The guest
#     writes its TAP to a second serial port; the console goes to a log.
#
#   scripts/test-lifecycle.sh [KVER]    default: Debian's 6.1 (kver.sh --debian)
#
# Environment: NFC_LC_STAGES="s1 s2 ..." runs only those stages (they
# expect what the earlier ones left: for debugging); NFC_LC_KEEP=1 keeps the
# run directory (build/lifecycle/run: disk image, console logs);
# NFC_LC_TIMEOUT=S gives each boot S seconds (300; the upgrade's 3 S, the
# kills' 2 S);
# NFC_LC_CS_OLD=1 sets the CrowdSec bouncer up as the adapter's package
# did before (it restarted a dead adapter, total_retries: -1, and systemd
# never restarted it), to see the kills of the `rebooted` stage leave
# the filter short of CrowdSec's decisions.
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
KVER=${1:-$(scripts/kver.sh --debian)} || exit 1
VERSION=$(dpkg-parsechangelog -l debian/changelog -S Version)
NEWVERSION=$VERSION+test1
lc=$top/build/lifecycle
run=$lc/run
n=0
failed=0

point() {	# point STATUS DESCRIPTION [DIAG]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - lifecycle: $2"
	else
		echo "not ok $n - lifecycle: $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | tail -n 30 | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- 1. the root file system ----------------------------------------------

SUITES="deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main"
# cfctl's own dependencies (libnl-genl-3-200, libjson-c5, libxdp1,
# libbpf1, kmod, python3) are in, so that apt installs our packages with
# no download.
PKGS="systemd systemd-sysv udev kmod dbus e2fsprogs procps
linux-image-$KVER linux-headers-$KVER initramfs-tools zstd
dkms gcc make ccache iproute2 nftables python3
libnl-genl-3-200 libjson-c5 libxdp1 libbpf1
fail2ban python3-systemd crowdsec crowdsec-custom-bouncer"
# What the tests never read: documentation, translations, and the drivers
# of hardware the VM does not have (a third of the kernel's modules).
EXCLUDES="/usr/share/doc/*/* /usr/share/man/*/* /usr/share/locale/*/* /usr/share/info/*
/lib/modules/*/kernel/drivers/gpu/* /lib/modules/*/kernel/drivers/media/*
/lib/modules/*/kernel/drivers/net/wireless/* /lib/modules/*/kernel/drivers/net/ethernet/*
/lib/modules/*/kernel/drivers/infiniband/* /lib/modules/*/kernel/drivers/staging/*
/lib/modules/*/kernel/drivers/scsi/* /lib/modules/*/kernel/drivers/usb/*
/lib/modules/*/kernel/drivers/bluetooth/* /lib/modules/*/kernel/net/bluetooth/*
/lib/modules/*/kernel/net/wireless/* /lib/modules/*/kernel/net/mac80211/*
/lib/modules/*/kernel/sound/* /lib/modules/*/kernel/drivers/iio/*
/lib/modules/*/kernel/drivers/hid/* /lib/modules/*/kernel/drivers/isdn/*
/lib/modules/*/kernel/drivers/mtd/* /lib/modules/*/kernel/drivers/hwmon/*"

# Before any package: crowdsec's postinst registers with CrowdSec's online
# API unless this file exists (README.Debian's opt-out; the guest has no
# network), and the initramfs holds just what finds the root disk.
rootfs_setup_hook() {	# ROOT
	mkdir -p "$1/etc/crowdsec" "$1/etc/initramfs-tools/conf.d" \
		"$1/etc/initramfs-tools/hooks"
	echo "# no Central API (nf_cuckoo's lifecycle test)" \
		>"$1/etc/crowdsec/online_api_credentials.yaml"
	printf 'MODULES=list\nCOMPRESS=zstd\n' >"$1/etc/initramfs-tools/conf.d/nfclc"
	cat >"$1/etc/initramfs-tools/hooks/nfclc" <<-'EOF'
	#!/bin/sh
	[ "$1" = prereqs ] && exit 0
	. /usr/share/initramfs-tools/hook-functions
	for m in virtio_pci virtio_blk ext4; do force_load $m; done
	EOF
	chmod 755 "$1/etc/initramfs-tools/hooks/nfclc"
}

# After: a root on /dev/vda, no daemon the tests do not use (crowdsec is
# installed, not run), no timer that would start apt or a scrub mid-test.
rootfs_customize_hook() {	# ROOT
	echo "/dev/vda / ext4 defaults,errors=remount-ro 0 1" >"$1/etc/fstab"
	echo nfclc >"$1/etc/hostname"
	chroot "$1" systemctl disable crowdsec.service \
		crowdsec-custom-bouncer.service apt-daily.timer \
		apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
		fstrim.timer dpkg-db-backup.timer >/dev/null 2>&1
	# (the unit files that exist are disabled; the rest were not there)
	# The stages run as a unit, no one logs in but root on the console to
	# look into a failure: no logind (10-20 s of each emulated boot).
	chroot "$1" systemctl mask systemd-timesyncd.service \
		systemd-logind.service >/dev/null 2>&1
	chroot "$1" passwd -d root >/dev/null
	test -s "$1/boot/initrd.img-$KVER" && test -d "$1/lib/modules/$KVER/build/"
}

rootfs_key() {
	{
		printf '%s\n' "$KVER" "$SUITES" "$PKGS" "$EXCLUDES"
		declare -f rootfs_setup_hook rootfs_customize_hook
	} | sha256sum | cut -c1-16
}

# rootfs: sets ROOTFS to the cached root directory, building it when its key
# is not there (other keys' are removed).
rootfs() {
	local key dir opts=() p t0 out

	key=$(rootfs_key)
	dir=$lc/rootfs-$key
	ROOTFS=$dir/root
	if [ -f "$dir/ok" ]; then
		diag "root file system: cached ($dir, $(du -sh "$ROOTFS" 2>/dev/null | cut -f1))"
		return 0
	fi
	rm -rf "$lc"/rootfs-*
	mkdir -p "$dir"
	set -f	# (the patterns are dpkg's, not the host's paths)
	for p in $EXCLUDES; do
		opts+=(--dpkgopt="path-exclude=$p")
	done
	set +f
	# (mmdebstrap runs a hook file with the root as its argument)
	for p in setup customize; do
		{
			echo '#!/bin/bash'
			printf 'KVER=%q\n' "$KVER"
			declare -f "rootfs_${p}_hook"
			echo "rootfs_${p}_hook \"\$1\""
		} >"$dir/$p-hook"
		chmod 755 "$dir/$p-hook"
	done
	t0=$(now)
	# shellcheck disable=SC2086
	out=$(mmdebstrap --mode=root --variant=minbase \
		--aptopt='APT::Install-Recommends "false"' "${opts[@]}" \
		--include="$(echo $PKGS | tr ' ' ,)" \
		--setup-hook="$dir/setup-hook" \
		--customize-hook="$dir/customize-hook" \
		bookworm "$ROOTFS" "$SUITES" 2>&1)
	local rc=$?
	if [ "$rc" != 0 ]; then
		point 1 "mmdebstrap builds a Debian 12 root file system" "$out"
		rm -rf "$dir"
		return 1
	fi
	touch "$dir/ok"
	diag "root file system built in $(since "$t0") s ($(du -sh "$ROOTFS" | cut -f1))"
}


# ---- 2. the packages ------------------------------------------------------

# debs: DEBS_OLD and DEBS_NEW, the directories of this tree's packages and of
# the higher version's (scripts/debs.sh: built once a tree, the install
# test's too).
debs() {
	local dir t0 rc=0

	t0=$(now)
	dir=$(scripts/debs.sh 2>"$lc/debs.err") || rc=1
	DEBS_OLD=$dir/old
	DEBS_NEW=$dir/new
	[ "$rc" = 1 ] || diag "packages $VERSION and $NEWVERSION in $(since "$t0") s (scripts/debs.sh)"
	point $rc "dpkg-buildpackage builds nf-cuckoo-dkms and cfctl, $VERSION and $NEWVERSION" \
		"$(cat "$lc/debs.err")"
	return $rc
}

# ---- the disk ---------------------------------------------------------------

MNT=()
umount_all() {
	local i

	for ((i = ${#MNT[@]} - 1; i >= 0; i--)); do
		umount "${MNT[i]}" 2>/dev/null || umount -l "${MNT[i]}"
	done
	MNT=()
}
QPID=
cleanup() {
	[ -n "$QPID" ] && kill -9 "$QPID" 2>/dev/null
	umount_all
	rm -f "$run/root/usr/sbin/policy-rc.d" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# warm_ccache ROOT: DKMS builds $NEWVERSION in the chroot, natively, with
# the compiler behind ccache (Debian's kernel headers call it when
# DEBIAN_KERNEL_USE_CCACHE is set), then forgets it.  The guest's upgrade
# runs DKMS the same way, at the same paths, and its compiler's output
# comes from that cache: the upgrade is still apt's, the postinst's and
# DKMS's, every make step of them run in the guest, but the 15 compilations
# (about 500 s under emulation, a few natively) are not run twice.  The
# environment is set, the same on both sides, not this script's: make
# check's NFCF_WERROR=1 would add -Werror here, and ccache's key holds
# LANG (unset, or another value than the guest's: every compilation
# missed).
warm_ccache() {	# ROOT
	local new=nf-cuckoo-dkms_${NEWVERSION}_all.deb

	printf '%s\n' 'cache_dir = /var/cache/nfclc-ccache' 'max_size = 200M' \
		'log_file = /var/log/nfclc-ccache.log' >"$1/etc/ccache.conf"
	chroot "$1" sh -ec "
		rm -rf /tmp/nfclc-new
		dpkg-deb -x /root/lc/debs-new/$new /tmp/nfclc-new
		cp -a /tmp/nfclc-new/usr/src/nf-cuckoo-$NEWVERSION /usr/src/
		dkms add -m nf-cuckoo -v $NEWVERSION >/dev/null
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 DEBIAN_KERNEL_USE_CCACHE=1 \
			dkms build -m nf-cuckoo -v $NEWVERSION -k $KVER >/dev/null
		dkms remove -m nf-cuckoo -v $NEWVERSION --all >/dev/null
		rm -rf /usr/src/nf-cuckoo-$NEWVERSION /tmp/nfclc-new
		ccache -z >/dev/null
		: >/var/log/nfclc-ccache.log"
}

# disk: an overlay of the root file system, our packages installed in a
# chroot of it with apt as a user would, the test's harness added, all of
# it written to $run/disk.img (ext4).
disk() {
	local r=$run/root out rc t0 ko

	rm -rf "$run"
	mkdir -p "$run/upper" "$run/work" "$r"
	mount -t overlay overlay \
		-o "lowerdir=$ROOTFS,upperdir=$run/upper,workdir=$run/work" "$r" ||
		return 1
	MNT+=("$r")
	mount -t proc proc "$r/proc" && MNT+=("$r/proc") &&
		mount -t sysfs sysfs "$r/sys" && MNT+=("$r/sys") &&
		mount --bind /dev "$r/dev" && MNT+=("$r/dev") || return 1
	mkdir -p "$r/root/lc/debs-old" "$r/root/lc/debs-new"
	cp "$DEBS_OLD"/*.deb "$r/root/lc/debs-old/"
	cp "$DEBS_NEW"/*.deb "$r/root/lc/debs-new/"
	echo "$VERSION" >"$r/root/lc/version"
	echo "$NEWVERSION" >"$r/root/lc/newversion"
	[ "${NFC_LC_CS_OLD:-0}" = 1 ] && touch "$r/root/lc/cs-old"
	# No daemon of the chroot's may start on this machine.
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	t0=$(now)
	out=$(chroot "$r" sh -c 'cd /root/lc/debs-old && apt-get install -y ./*.deb' 2>&1)
	rc=$?
	rm -f "$r/usr/sbin/policy-rc.d"
	point $rc "apt install ./*.deb of $VERSION in a chroot of the root file system ($(since "$t0") s)" "$out"
	ko=$r/lib/modules/$KVER/updates/dkms/nf_cuckoo.ko
	out=$(chroot "$r" dkms status nf-cuckoo 2>&1)
	grep -q "^nf-cuckoo/$VERSION, $KVER, .*: installed" <<<"$out" &&
		[ "$(modinfo -F version "$ko" 2>/dev/null)" = "$VERSION" ] &&
		modinfo -F vermagic "$ko" | grep -q "^$KVER "
	point $? "DKMS built and installed nf_cuckoo $VERSION for $KVER in the chroot" \
		"$out; $(modinfo "$ko" 2>&1 | head -n 5)"
	# (an absolute link, into the chroot)
	out=$(readlink "$r/etc/systemd/system/multi-user.target.wants/nf-cuckoo.service")
	[ "$out" = /lib/systemd/system/nf-cuckoo.service ] &&
		[ -f "$r/lib/systemd/system/nf-cuckoo.service" ]
	point $? "the package enabled nf-cuckoo.service" "link: '$out'"

	t0=$(now)
	out=$(warm_ccache "$r" 2>&1)
	point $? "DKMS built $NEWVERSION in the chroot, into the cache the guest's upgrade compiles from ($(since "$t0") s)" "$out"

	install -D -m 755 selftests/lifecycle/guest.sh "$r/usr/local/lib/nfclc/guest.sh"
	install -D -m 644 selftests/packet/nfcpkt.py "$r/usr/local/lib/nfclc/nfcpkt.py"
	install -D -m 644 selftests/lifecycle/crowdsec.py "$r/usr/local/lib/nfclc/crowdsec.py"
	install -D -m 644 selftests/lifecycle/nfclc.service \
		"$r/etc/systemd/system/nfclc.service"
	ln -sf /etc/systemd/system/nfclc.service \
		"$r/etc/systemd/system/multi-user.target.wants/nfclc.service"
	install -D -m 644 selftests/lifecycle/jail.conf "$r/etc/fail2ban/jail.d/nfclc.conf"
	cp "$r/boot/initrd.img-$KVER" "$run/initrd"
	umount_all
	mount -t overlay overlay -o "lowerdir=$ROOTFS,upperdir=$run/upper,workdir=$run/work,ro" "$r" &&
		MNT+=("$r") || return 1
	t0=$(now)
	out=$(mkfs.ext4 -q -F -L nfclc -d "$r" "$run/disk.img" 4G 2>&1)
	rc=$?
	umount_all
	rm -rf "$run/upper" "$run/work"
	point $rc "the disk image written ($(du -m "$run/disk.img" | cut -f1) MB, $(since "$t0") s)" "$out"
	return $rc
}

# ---- 3. the boots -----------------------------------------------------------

# The guest runs with norandmaps: selftests/vm/vm.sh says why (about twice
# as fast under emulation; the kernel's KASLR stays).

STAGES=${NFC_LC_STAGES:-install rebooted upgraded corrupt powercut}
BOOTS=

# boot STAGE TIMEOUT: boot the disk, the guest runs STAGE; its TAP points
# become ours.  QEMU runs with -no-reboot: the guest's reboot or power-off
# ends it; NFCLC-KILL from the guest gets it killed at once (a power cut:
# what the guest had not written to its disk is lost).  Returns 1 when the
# guest never got to run the stage.
boot() {
	local stage=$1 timeout=$2 con=$run/console-$1.log tap=$run/tap-$1.log
	local t0 tup="" tend killed=0 line up="" mu="" fin="" secs="" rc=0

	: >"$con"
	: >"$tap"
	t0=$(now)
	qemu-system-x86_64 -accel tcg -cpu "$NFC_VM_CPU" -smp "${NFC_VM_SMP:-2}" -m 2048 \
		-nodefaults -no-user-config -no-reboot \
		-display none -vga none -monitor none \
		-serial "file:$con" -serial "file:$tap" \
		-kernel "$NFC_VM_KERNEL" -initrd "$run/initrd" \
		-append "root=/dev/vda ro console=ttyS0,115200 quiet no_timer_check panic=-1 norandmaps nfclc.stage=$stage" \
		-drive "file=$run/disk.img,format=raw,if=virtio" \
		-device virtio-rng-pci \
		</dev/null >"$run/qemu-$stage.log" 2>&1 &
	QPID=$!
	while kill -0 "$QPID" 2>/dev/null; do
		[ -z "$tup" ] && grep -q '^NFCLC-UP ' "$tap" && tup=$(since "$t0")
		if grep -q '^NFCLC-KILL' "$tap"; then
			kill -9 "$QPID"
			killed=1
			break
		fi
		if [ "$(since "$t0" | cut -d. -f1)" -ge "$timeout" ]; then
			kill -9 "$QPID"
			point 1 "boot $stage: timed out after $timeout s" "$(tr -d '\r' <"$con" | tail -n 20)"
			rc=1
			break
		fi
		sleep 0.2
	done
	wait "$QPID" 2>/dev/null
	QPID=
	tend=$(since "$t0")
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"ok - "*) point 0 "${line#ok - }" ;;
		"not ok - "*) point 1 "${line#not ok - }" ;;
		"# "*) echo "$line" ;;
		"NFCLC-UP "*) read -r _ _ up mu <<<"$line" ;;
		"NFCLC-DONE "*) read -r _ _ fin secs <<<"$line" ;;
		esac
	done <"$tap"
	if [ -z "$up" ]; then
		point 1 "boot $stage: the guest reached multi-user and ran its stage" \
			"$(tr -d '\r' <"$con" | tail -n 30)"
		return 1
	fi
	[ -n "$fin" ]
	point $? "boot $stage: the stage ran to its end" "$(tr -d '\r' <"$con" | tail -n 20)"
	if [ "$fin" = kill ]; then
		[ "$killed" = 1 ]
		point $? "boot $stage: the power was cut (QEMU killed) when the guest asked"
	fi
	diag "boot $stage: multi-user.target after $mu s (guest clock), stage started at $up s and took ${secs:-?} s; QEMU start to stage $tup s, QEMU ran $tend s$([ "$killed" = 1 ] && echo ", killed")"
	BOOTS="$BOOTS $stage=$tend"
	return $rc
}

T0=$(now)
if [ "$(id -u)" != 0 ]; then
	point 1 "run as root (mmdebstrap, mount, chroot)"
	exit 1
fi
mkdir -p "$lc"
# One run at a time: they share build/lifecycle/run.
exec 8>"$lc/.lock"
if ! flock -n 8; then
	point 1 "no other test-lifecycle.sh runs in this tree"
	exit 1
fi
# The kernel image to boot, NFC_VM_KERNEL: the one prepare.sh gives (its
# vmlinux, booted at the PVH entry, where it can), and the CPU it gives,
# NFC_VM_CPU.
env=$(selftests/vm/prepare.sh --kver "$KVER" --quiet --print-env) || {
	point 1 "prepare the VM kernel $KVER (selftests/vm/prepare.sh)"
	exit 1
}
eval "$env"
for cmd in mmdebstrap mkfs.ext4 qemu-system-x86_64 dpkg-buildpackage; do
	command -v $cmd >/dev/null || {
		point 1 "$cmd is installed (scripts/deps.sh)"
		exit 1
	}
done
t=$(now)
rootfs || exit 1
T_ROOTFS=$(since "$t")
t=$(now)
debs || exit 1
T_DEBS=$(since "$t")
t=$(now)
disk || exit 1
T_DISK=$(since "$t")
for s in $STAGES; do
	to=${NFC_LC_TIMEOUT:-300}
	# (the CrowdSec kills and the wait for everything to agree after
	# them; the upgrade's DKMS build in the guest)
	[ "$s" = rebooted ] && to=$((to * 4))
	boot "$s" "$to" || break
done
diag "times (s): root file system $T_ROOTFS, packages $T_DEBS, chroot install and disk $T_DISK, boots:$BOOTS; total $(since "$T0")"
[ "${NFC_LC_KEEP:-0}" = 1 ] || rm -f "$run/disk.img"
[ "$failed" = 0 ]
