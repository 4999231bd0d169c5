#!/bin/bash
# The ways a user builds and installs nf_cuckoo, each tested for real (TAP
# on stdout):
#
#  0. The build flags, in a copy of the tree: cfctl builds with the user's
#     CFLAGS on the command line (make CFLAGS=-O1) and takes CPPFLAGS
#     (_FORTIFY_SOURCE gives fortified calls); a warning is an error with
#     NFCF_WERROR=1 (make check), in cfctl and in the module, and only then.
#  1. make install into a copy of the VM kernel's module tree: the VM boots
#     on that tree, the first cfctl command loads the module by itself, a
#     flow is dropped; the unit and the logrotate file are installed (the
#     unit in /lib/systemd/system for PREFIX=/usr); make uninstall removes
#     what make install put there.
#  2. DKMS: dkms add and build in private trees under build/ (dkms.conf
#     with its version filled in, as README.md says), the module DKMS built
#     passes the smoke test in the VM of that kernel, and a kernel older
#     than 6.1 is skipped.  For a Debian 13 kernel, Debian 13's DKMS does
#     this in the build root (scripts/buildroot.sh).
#  3. The Debian packages (scripts/debs.sh: built once a tree, for the
#     lifecycle test too): dpkg-buildpackage builds the source and
#     nf-cuckoo-dkms, cfctl and nf-cuckoo-crowdsec; lintian finds no error
#     nor warning (source included) and no hardening tag; the packages'
#     relations are checked (cfctl depends on the module's package, not on
#     python3); dpkg -i installs them on this machine, cfctl named first,
#     and dpkg configures nf-cuckoo-dkms before cfctl (DKMS builds the
#     module for the installed headers before the service could start);
#     the unit passes systemd-analyze verify; the logrotate file rotates a
#     log its writer keeps open; then the same packages at a higher version
#     (VERSION+test1: debian/changelog and kmod/version.h bumped in a
#     copy, dkms.conf left to dh_dkms) upgrade them, and DKMS has built
#     and installed the new version and removed the old; the VM boots on
#     the tree with the module DKMS installed and runs
#     selftests/vm/installed.sh with /usr/sbin/cfctl and the installed
#     unit; then purge: nf-cuckoo-crowdsec's takes its state and log,
#     cfctl's /var/lib/nf-cuckoo, and nothing of them is left.
#
#   scripts/test-install.sh [KVER]    default: the kernel make builds for
#
# TEST_INSTALL_PARTS (default "0 1 2 3") runs some of the parts only, when
# working on them: make check runs them all.
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
KVER=${1:-$(scripts/kver.sh)} || exit 1
VERSION=$(dpkg-parsechangelog -l debian/changelog -S Version)
work=$top/build/install-test/$KVER
# The copies of the tree below build a Debian 13 kernel's module in this
# tree's build root.
export NFC_BUILDROOT_DIR=${NFC_BUILDROOT_DIR:-$top/build/buildroot}
n=0
failed=0
parts=" ${TEST_INSTALL_PARTS:-0 1 2 3} "
part() { [[ $parts == *" $1 "* ]]; }

point() {	# point STATUS DESCRIPTION [DIAG]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - install: $2"
	else
		echo "not ok $n - install: $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | tail -n 30 | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}

# A kernel directory for vm.sh: the VM kernel's images and a copy of its
# module tree (hard links; depmod replaces its index files, never edits).
kernel_copy() {	# DIR
	local src=$top/build/vm/kernel-$KVER

	rm -rf "$1"
	mkdir -p "$1/lib/modules"
	ln -s "$src/vmlinuz" "$1/vmlinuz"
	[ -f "$src/vmlinux" ] && ln -s "$src/vmlinux" "$1/vmlinux"
	cp -al "$src/lib/modules/$KVER" "$1/lib/modules/"
}

vm() {	# KERNEL_DIR COMMAND...: TAP lines of COMMAND run in the VM
	local kdir=$1

	shift
	selftests/vm/vm.sh -q --timeout 900 --kernel-dir "$kdir" --cwd "$top" \
		-- "$@" 2>&1
}

# The VM's tap lines count as ours: renumber them.
vm_points() {	# PREFIX KERNEL_DIR COMMAND...
	local prefix=$1 out rc line

	shift
	out=$(vm "$@")
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) point 0 "$prefix: ${line#ok * - }" ;;
		"not ok "*) point 1 "$prefix: ${line#not ok * - }" ;;
		"# "*) echo "$line" ;;
		esac
	done <<<"$out"
	[ "$rc" = 0 ] || point 1 "$prefix: the VM run ended with status $rc" "$out"
}

selftests/vm/prepare.sh --kver "$KVER" --quiet >/dev/null || {
	point 1 "prepare the VM for $KVER"
	exit 1
}

# A copy of the tree as git has it (and of what is not committed yet).
tree_copy() {	# DIR
	rm -rf "$1"
	mkdir -p "$1"
	git ls-files -z --cached --others --exclude-standard |
		tar -c --null -T - -f - | tar -x -C "$1"
}

# 0. Build flags.
if part 0; then
fl=$work/flags
tree_copy "$fl"
out=$(make -s -C "$fl/tools/cfctl" CFLAGS=-O1 cfctl 2>&1) &&
	"$fl/tools/cfctl/cfctl" --version >/dev/null
point $? "cfctl builds with CFLAGS on the command line (make CFLAGS=-O1)" "$out"
make -s -C "$fl/tools/cfctl" clean >/dev/null
out=$(make -s -C "$fl/tools/cfctl" CPPFLAGS=-D_FORTIFY_SOURCE=2 \
	CFLAGS="-O2 -g" cfctl 2>&1)
nm -D "$fl/tools/cfctl/cfctl" 2>/dev/null | grep -q '__[a-z]*_chk@'
point $? "CPPFLAGS reach the compiler: -D_FORTIFY_SOURCE=2 gives fortified calls" "$out"
# A warning of our own, in cfctl and in the module (make check exports
# NFCF_WERROR=1: the builds without it unset it).
echo 'static int nfcf_unused_warning;' >>"$fl/tools/cfctl/base64.c"
echo 'static int nfcf_unused_warning;' >>"$fl/kmod/flowkey.c"
out=$(env -u NFCF_WERROR make -s -C "$fl/tools/cfctl" base64.o 2>&1)
rc=$?
rm -f "$fl/tools/cfctl/base64.o"
out2=$(make -s -C "$fl/tools/cfctl" NFCF_WERROR=1 base64.o 2>&1)
rc2=$?
[ "$rc" = 0 ] && grep -q 'nfcf_unused_warning' <<<"$out" && [ "$rc2" != 0 ]
point $? "cfctl: a warning is an error with NFCF_WERROR=1 only" "$out$out2"
out=$(env -u NFCF_WERROR make -s -C "/lib/modules/$KVER/build" M="$fl" kmod/flowkey.o 2>&1)
rc=$?
rm -f "$fl/kmod/flowkey.o"
out2=$(make -s -C "/lib/modules/$KVER/build" M="$fl" NFCF_WERROR=1 kmod/flowkey.o 2>&1)
rc2=$?
[ "$rc" = 0 ] && grep -q 'nfcf_unused_warning' <<<"$out" && [ "$rc2" != 0 ]
point $? "module: a warning is an error with NFCF_WERROR=1 (make check) only, not in DKMS's build" "$out$out2"
rm -rf "$fl"
fi

# 1. make install / make uninstall, from a copy of the tree: make check
# runs this beside stages that build in the tree itself.
if part 1; then
src=$work/src
tree_copy "$src"
kdir=$work/make-install
kernel_copy "$kdir"
out=$(make -s -C "$src" install KVER="$KVER" DESTDIR="$kdir" PREFIX=/usr/local 2>&1)
point $? "make install DESTDIR=... puts the module in updates/ and runs depmod" "$out"
grep -q "^updates/nf_cuckoo.ko:" "$kdir/lib/modules/$KVER/modules.dep" &&
	grep -q "^updates/xt_cuckoo.ko:.* updates/nf_cuckoo.ko" "$kdir/lib/modules/$KVER/modules.dep"
point $? "depmod indexed updates/nf_cuckoo.ko and xt_cuckoo.ko (which needs it) in the copied tree"
vm_points "make install" "$kdir" selftests/vm/installed.sh \
	"$kdir/usr/local/sbin/cfctl"
cmp -s contrib/fail2ban/action.d/nf-cuckoo.conf "$kdir/etc/fail2ban/action.d/nf-cuckoo.conf" &&
	cmp -s contrib/fail2ban/action.d/nf-cuckoo-iptables.conf \
		"$kdir/etc/fail2ban/action.d/nf-cuckoo-iptables.conf"
point $? "make install puts the fail2ban actions (nf-cuckoo, nf-cuckoo-iptables) in /etc/fail2ban/action.d"
cmp -s contrib/crowdsec/nf-cuckoo-crowdsec "$kdir/usr/local/sbin/nf-cuckoo-crowdsec" &&
	[ -x "$kdir/usr/local/sbin/nf-cuckoo-crowdsec" ] &&
	cmp -s contrib/crowdsec/crowdsec.conf "$kdir/etc/nf-cuckoo/crowdsec.conf" &&
	grep -qx 'bin_path: /usr/local/sbin/nf-cuckoo-crowdsec' \
		"$kdir/usr/local/share/nf-cuckoo/crowdsec/crowdsec-custom-bouncer.yaml.local" &&
	cmp -s contrib/crowdsec/crowdsec-custom-bouncer.service.conf \
		"$kdir/usr/local/lib/systemd/system/crowdsec-custom-bouncer.service.d/nf-cuckoo-crowdsec.conf"
point $? "make install puts the CrowdSec adapter, its configuration, the bouncer's settings and its unit's drop-in"
cmp -s contrib/logrotate/nf-cuckoo-crowdsec "$kdir/etc/logrotate.d/nf-cuckoo-crowdsec"
point $? "make install puts the adapter's logrotate file in /etc/logrotate.d"
cmp -s tools/systemd/nf-cuckoo.service \
	"$kdir/usr/local/lib/systemd/system/nf-cuckoo.service"
point $? "make install puts nf-cuckoo.service in \$PREFIX/lib/systemd/system"
out=$(make -s -C "$src" uninstall KVER="$KVER" DESTDIR="$kdir" PREFIX=/usr/local 2>&1)
left=$(find "$kdir/usr" "$kdir/etc" "$kdir/lib/modules/$KVER/updates" -type f 2>/dev/null)
! grep -q nf_cuckoo "$kdir/lib/modules/$KVER/modules.dep" && [ -z "$left" ]
point $? "make uninstall removes what make install put" "$out$left"
# PREFIX=/usr: the unit where Debian's packages put theirs.
rm -rf "$work/usr-prefix"
out=$(make -s -C "$src" install KVER="$KVER" DESTDIR="$work/usr-prefix" PREFIX=/usr 2>&1)
rc=$?
[ "$rc" = 0 ] && cmp -s tools/systemd/nf-cuckoo.service \
	"$work/usr-prefix/lib/systemd/system/nf-cuckoo.service"
point $? "make install PREFIX=/usr puts nf-cuckoo.service in /lib/systemd/system" "$out"
out=$(make -s -C "$src" uninstall KVER="$KVER" DESTDIR="$work/usr-prefix" PREFIX=/usr 2>&1)
left=$(find "$work/usr-prefix" -type f 2>/dev/null)
[ -z "$left" ]
point $? "... and make uninstall removes it" "$out$left"
rm -rf "$work/usr-prefix"
rm -rf "$work/none"
out=$(make -s -C "$src" install KVER=0.0.0-none DESTDIR="$work/none" 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q "install linux-headers-0.0.0-none" <<<"$out" &&
	[ ! -e "$work/none" ]
point $? "make install for a kernel without headers names the package, installs nothing" \
	"status $rc: $out"
fi

# 2. DKMS in private trees.
if part 2; then
dk=$work/dkms
rm -rf "$dk"
mkdir -p "$dk/src/nf-cuckoo-$VERSION" "$dk/tree" "$dk/install"
cp -r Kbuild kmod uapi btf "$dk/src/nf-cuckoo-$VERSION/"
sed "s/#MODULE_VERSION#/$VERSION/" dkms.conf >"$dk/src/nf-cuckoo-$VERSION/dkms.conf"
# A kernel whose headers this host cannot build for (Debian 13's) gets
# the DKMS of its Debian release, in the build root (scripts/buildroot.sh);
# there the kernel's source must be named (trixie's DKMS looks for it
# under --installtree otherwise).
inroot=()
[ -d "/lib/modules/$KVER/build" ] ||
	inroot=(scripts/buildroot.sh --run "$KVER" --)
dkms_() {
	${inroot[@]+"${inroot[@]}"} dkms --dkmstree "$dk/tree" --sourcetree "$dk/src" \
		--installtree "$dk/install" "$@" -m nf-cuckoo -v "$VERSION"
}
out=$( (dkms_ add && dkms_ build -k "$KVER" --kernelsourcedir "/lib/modules/$KVER/build") 2>&1)
ko=$(find "$dk/tree/nf-cuckoo/$VERSION/$KVER" -name 'nf_cuckoo.ko*' | head -n1)
[ -n "$ko" ]
point $? "dkms build for $KVER" "$out"
if [ -n "$ko" ]; then
	case $ko in
	*.xz) xz -dkf "$ko"; ko=${ko%.xz} ;;
	esac
	vm_points "dkms" "$top/build/vm/kernel-$KVER" selftests/vm/smoke.sh "$ko"
fi
# Kernels older than 6.1 are skipped (77), not built (nor failed): given
# this kernel's headers, only dkms.conf's BUILD_EXCLUSIVE_KERNEL can say.
out=$(dkms_ build -k 5.10.0-99-amd64 --kernelsourcedir "/lib/modules/$KVER/build" 2>&1)
rc=$?
[ "$rc" = 77 ] && grep -q BUILD_EXCLUSIVE <<<"$out"
point $? "dkms skips a kernel older than 6.1 (5.10), status 77" "status $rc: $out"
fi

# 3. The Debian packages.
part 3 || { [ "$failed" = 0 ]; exit; }
PKGS="nf-cuckoo-crowdsec cfctl nf-cuckoo-dkms"
purge_all() {
	# shellcheck disable=SC2086
	dpkg --purge $PKGS >/dev/null 2>&1
}
# debs DIR VERSION: the three packages in DIR at VERSION
debs() {
	echo "$1/cfctl_${2}_amd64.deb $1/nf-cuckoo-crowdsec_${2}_all.deb $1/nf-cuckoo-dkms_${2}_all.deb"
}
V2=$VERSION+test1
if ! dir=$(scripts/debs.sh 2>&1); then
	point 1 "dpkg-buildpackage builds the source, nf-cuckoo-dkms, cfctl and nf-cuckoo-crowdsec" "$dir"
	exit 1
fi
point 0 "dpkg-buildpackage builds the source, nf-cuckoo-dkms, cfctl and nf-cuckoo-crowdsec"
pkg=$dir/old
debs1=$(debs "$pkg" "$VERSION")
out=$(lintian -I --tag-display-limit 0 "$pkg/nf-cuckoo_${VERSION}_amd64.changes" 2>&1)
rc=$?
bad=$(grep -E '^[EW]: |hardening' <<<"$out")
[ "$rc" = 0 ] && [ -z "$bad" ]
point $? "lintian reports no error, no warning (source included) and no hardening tag" "$out"

# The relations that order the installation and split the packages.
f() { dpkg-deb -f "$pkg/${1}_${VERSION}_$2.deb" "$3"; }
f cfctl amd64 Depends | grep -q "nf-cuckoo-dkms (= $VERSION) | nf-cuckoo-module" &&
	! f cfctl amd64 Depends | grep -q python3
point $? "cfctl depends on nf-cuckoo-dkms of its version, not on python3" \
	"$(f cfctl amd64 Depends)"
f nf-cuckoo-crowdsec all Depends | grep -q python3 &&
	f nf-cuckoo-crowdsec all Depends | grep -q "cfctl (>= $VERSION)" &&
	[ "$(f nf-cuckoo-crowdsec all Enhances)" = crowdsec-custom-bouncer ] &&
	[ "$(f nf-cuckoo-crowdsec all Architecture)" = all ] &&
	dpkg-deb -c "$pkg/nf-cuckoo-crowdsec_${VERSION}_all.deb" | grep -q ' ./usr/sbin/nf-cuckoo-crowdsec$' &&
	dpkg-deb -c "$pkg/nf-cuckoo-crowdsec_${VERSION}_all.deb" |
		grep -q ' ./lib/systemd/system/crowdsec-custom-bouncer.service.d/nf-cuckoo-crowdsec.conf$' &&
	! dpkg-deb -c "$pkg/cfctl_${VERSION}_amd64.deb" | grep -q crowdsec
point $? "nf-cuckoo-crowdsec holds the adapter and the bouncer unit's drop-in (Depends python3 and cfctl, Enhances crowdsec-custom-bouncer), cfctl nothing of it"
dpkg-deb --fsys-tarfile "$pkg/nf-cuckoo-dkms_${VERSION}_all.deb" |
	tar -xO "./usr/src/nf-cuckoo-$VERSION/dkms.conf" | grep -qx "PACKAGE_VERSION=\"$VERSION\""
point $? "the packaged dkms.conf holds the package's version"

# The same packages at a higher version, for the upgrade.
debs2=$(debs "$dir/new" "$V2")
# shellcheck disable=SC2086
out=$(ls $debs2 2>&1) &&
	dpkg-deb --fsys-tarfile "$dir/new/nf-cuckoo-dkms_${V2}_all.deb" |
	tar -xO "./usr/src/nf-cuckoo-$V2/dkms.conf" | grep -qx "PACKAGE_VERSION=\"$V2\""
point $? "the packages build at $V2 too (a copy bumped), dh_dkms puts $V2 in dkms.conf" "$out"

purge_all
log_from=$(($(wc -l </var/log/dpkg.log 2>/dev/null || echo 0) + 1))
# cfctl first: dpkg must still configure the module's package before it.
# shellcheck disable=SC2086
if ! out=$(DEBIAN_FRONTEND=noninteractive dpkg -i $debs1 2>&1); then
	point 1 "dpkg -i installs the three" "$out"
	purge_all
	exit 1
fi
point 0 "dpkg -i installs the three"
log=$(tail -n +"$log_from" /var/log/dpkg.log)
dk_line=$(grep -n "status installed nf-cuckoo-dkms:all $VERSION" <<<"$log" | head -n1 | cut -d: -f1)
cf_line=$(grep -n "configure cfctl:amd64 $VERSION" <<<"$log" | head -n1 | cut -d: -f1)
[ -n "$dk_line" ] && [ -n "$cf_line" ] && [ "$dk_line" -lt "$cf_line" ]
point $? "dpkg configured nf-cuckoo-dkms (DKMS built the module) before cfctl (whose postinst starts the unit)" \
	"$(grep -E 'configure|status installed' <<<"$log")"
installed=/lib/modules/$KVER/updates/dkms/nf_cuckoo.ko
xt=${installed%/*}/xt_cuckoo.ko
{ [ -f "$installed" ] || [ -f "$installed.xz" ]; } && { [ -f "$xt" ] || [ -f "$xt.xz" ]; }
point $? "DKMS built and installed both modules (nf_cuckoo, xt_cuckoo) for $KVER" "$(dkms status 2>&1)"
out=$(systemd-analyze verify /lib/systemd/system/nf-cuckoo.service 2>&1)
point $? "systemd-analyze verify nf-cuckoo.service" "$out"
cmp -s contrib/fail2ban/action.d/nf-cuckoo.conf /etc/fail2ban/action.d/nf-cuckoo.conf &&
	cmp -s contrib/fail2ban/action.d/nf-cuckoo-iptables.conf \
		/etc/fail2ban/action.d/nf-cuckoo-iptables.conf
point $? "the cfctl package installs the fail2ban actions (nf-cuckoo, nf-cuckoo-iptables)"
plugin=/usr/share/netfilter-persistent/plugins.d
cmp -s contrib/netfilter-persistent/12-nf-cuckoo "$plugin/12-nf-cuckoo" &&
	[ -x "$plugin/12-nf-cuckoo" ] &&
	cmp -s contrib/netfilter-persistent/45-nf-cuckoo "$plugin/45-nf-cuckoo" &&
	[ -x "$plugin/45-nf-cuckoo" ]
point $? "the cfctl package installs the netfilter-persistent plugins (12 and 45)"
zcat /usr/share/doc/cfctl/README.Debian.gz 2>/dev/null | grep -q 'modprobe -r nf_cuckoo'
point $? "the cfctl package installs README.Debian"
readelf -h /usr/lib/nf-cuckoo/nf_cuckoo.bpf.o 2>/dev/null | grep -q 'Linux BPF' &&
	grep -aq /usr/lib/nf-cuckoo/ /usr/sbin/cfctl
point $? "the cfctl package installs the XDP and tc program where its cfctl looks for it"
cmp -s contrib/crowdsec/nf-cuckoo-crowdsec /usr/sbin/nf-cuckoo-crowdsec &&
	cmp -s contrib/crowdsec/crowdsec.conf /etc/nf-cuckoo/crowdsec.conf &&
	cmp -s contrib/crowdsec/crowdsec-custom-bouncer.yaml.local \
		/usr/share/nf-cuckoo/crowdsec/crowdsec-custom-bouncer.yaml.local &&
	cmp -s contrib/logrotate/nf-cuckoo-crowdsec /etc/logrotate.d/nf-cuckoo-crowdsec &&
	/usr/sbin/nf-cuckoo-crowdsec --help | grep -q feed_via_stdin
point $? "nf-cuckoo-crowdsec installs the adapter, its configuration, the bouncer's settings and the logrotate file"

# The logrotate file, on a log whose writer keeps it open in append mode
# as the adapter does: the old lines rotated away, the new ones at the
# start of the emptied file.
lr=$work/logrotate
rm -rf "$lr"
mkdir -p "$lr"
sed "s|/var/log/nf-cuckoo-crowdsec.log|$lr/a.log|" \
	/etc/logrotate.d/nf-cuckoo-crowdsec >"$lr/conf"
(
	exec 3>>"$lr/a.log"
	echo "before rotation" >&3
	while [ ! -e "$lr/rotated" ]; do sleep 0.1; done
	echo "after rotation" >&3
)&
writer=$!
while [ ! -s "$lr/a.log" ]; do sleep 0.1; done
out=$(logrotate -f -s "$lr/state" "$lr/conf" 2>&1)
rc=$?
touch "$lr/rotated"
wait "$writer"
[ "$rc" = 0 ] && [ "$(cat "$lr/a.log.1" 2>/dev/null)" = "before rotation" ] &&
	[ "$(cat "$lr/a.log")" = "after rotation" ]
point $? "logrotate rotates the adapter's log under a writer that keeps it open" \
	"status $rc: $out; $(ls -l "$lr")"
rm -rf "$lr"

# The upgrade: DKMS builds the new version, removes the old.
# shellcheck disable=SC2086
out=$(DEBIAN_FRONTEND=noninteractive dpkg -i $debs2 2>&1)
point $? "dpkg -i upgrades the three to $V2" "$out"
st=$(dkms status nf-cuckoo 2>&1)
grep -q "^nf-cuckoo/$V2, $KVER, [^:]*: installed" <<<"$st" &&
	! grep -q "^nf-cuckoo/$VERSION," <<<"$st" && [ ! -e "/usr/src/nf-cuckoo-$VERSION" ]
point $? "dkms status: $V2 built and installed for $KVER, $VERSION gone" "$st"
[ -f "$installed" ] || [ -f "$installed.xz" ]
point $? "the module of $V2 is installed for $KVER" "$st"

kdir=$work/deb-kernel
kernel_copy "$kdir"
mkdir -p "$kdir/lib/modules/$KVER/updates/dkms"
cp /lib/modules/"$KVER"/updates/dkms/nf_cuckoo.ko* /lib/modules/"$KVER"/updates/dkms/xt_cuckoo.ko* \
	"$kdir/lib/modules/$KVER/updates/dkms/"
# As prepare.sh does for the kernel's own modules: the VM's are plain .ko.
find "$kdir/lib/modules/$KVER/updates/dkms" -name '*.xz' -exec xz -d {} +
depmod -b "$kdir" -a "$KVER"
vm_points "packages" "$kdir" selftests/vm/installed.sh /usr/sbin/cfctl \
	/lib/systemd/system/nf-cuckoo.service

# Purge, with what the service and the adapter leave behind.
mkdir -p /var/lib/nf-cuckoo
for f in filters.save filters.save.1 crowdsec.state crowdsec.state.lock \
	crowdsec.state.journal .crowdsec.state.x1y2z3; do
	echo test >"/var/lib/nf-cuckoo/$f"
done
echo test >/var/log/nf-cuckoo-crowdsec.log
echo test | gzip >/var/log/nf-cuckoo-crowdsec.log.2.gz
out=$(dpkg --purge nf-cuckoo-crowdsec 2>&1)
rc=$?
left=$(ls -d /var/lib/nf-cuckoo/*crowdsec* /var/lib/nf-cuckoo/.crowdsec* \
	/var/log/nf-cuckoo-crowdsec.log* /etc/nf-cuckoo /etc/logrotate.d/nf-cuckoo-crowdsec 2>/dev/null)
[ "$rc" = 0 ] && [ -z "$left" ] && [ -f /var/lib/nf-cuckoo/filters.save ]
point $? "dpkg --purge nf-cuckoo-crowdsec removes its state and log, not the saved filters" "$out$left"
out=$(dpkg --purge cfctl nf-cuckoo-dkms 2>&1)
point $? "dpkg --purge removes cfctl and nf-cuckoo-dkms" "$out"
left=$(ls -d /usr/src/nf-cuckoo-* /var/lib/dkms/nf-cuckoo /usr/sbin/cfctl \
	/lib/systemd/system/nf-cuckoo.service /usr/share/man/man8/cfctl.8.gz \
	/etc/fail2ban/action.d/nf-cuckoo.conf /etc/fail2ban/action.d/nf-cuckoo-iptables.conf \
	/usr/sbin/nf-cuckoo-crowdsec \
	/etc/nf-cuckoo /usr/share/nf-cuckoo /var/lib/nf-cuckoo \
	"$plugin/12-nf-cuckoo" "$plugin/45-nf-cuckoo" \
	/usr/share/doc/cfctl /lib/modules/*/updates/dkms/nf_cuckoo.ko* 2>/dev/null)
# shellcheck disable=SC2086
st=$(dpkg-query -W -f='${Status}\n' $PKGS 2>/dev/null | grep -v not-installed)
[ -z "$left$st" ]
point $? "nothing of them is left (module, files, saved filters, DKMS tree, dpkg status)" "$left$st"

[ "$failed" = 0 ]
