#!/bin/bash
# The ways a user installs nf_cuckoo, each tested for real (TAP on stdout):
#
#  1. make install into a copy of the VM kernel's module tree: the VM boots
#     on that tree, the first cfctl command loads the module by itself, a
#     flow is dropped; make uninstall removes what make install put there.
#  2. DKMS: dkms add and build in private trees under build/, and the
#     module DKMS built passes the smoke test in the VM of that kernel.
#  3. The Debian packages: dpkg-buildpackage builds nf-cuckoo-dkms and
#     cfctl, lintian finds no error, dpkg -i installs them on this machine
#     (DKMS builds the module for the installed headers), the unit passes
#     systemd-analyze verify, the VM boots on the tree with the module DKMS
#     installed and runs selftests/vm/installed.sh with /usr/sbin/cfctl and
#     the installed unit; then both are purged and nothing of them is left.
#
#   scripts/test-install.sh [KVER]    default: the kernel make builds for
set -u
cd "$(dirname "$0")/.." || exit 1
top=$PWD
KVER=${1:-$(scripts/kver.sh)} || exit 1
VERSION=$(dpkg-parsechangelog -l debian/changelog -S Version)
work=$top/build/install-test/$KVER
n=0
failed=0

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

# A kernel directory for vm.sh: the VM kernel's vmlinuz and a copy of its
# module tree (hard links; depmod replaces its index files, never edits).
kernel_copy() {	# DIR
	local src=$top/build/vm/kernel-$KVER

	rm -rf "$1"
	mkdir -p "$1/lib/modules"
	ln -s "$src/vmlinuz" "$1/vmlinuz"
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

# 1. make install / make uninstall.
kdir=$work/make-install
kernel_copy "$kdir"
out=$(make -s install KVER="$KVER" DESTDIR="$kdir" PREFIX=/usr/local 2>&1)
point $? "make install DESTDIR=... puts the module in updates/ and runs depmod" "$out"
grep -q "^updates/nf_cuckoo.ko:" "$kdir/lib/modules/$KVER/modules.dep"
point $? "depmod indexed updates/nf_cuckoo.ko in the copied tree"
vm_points "make install" "$kdir" selftests/vm/installed.sh \
	"$kdir/usr/local/sbin/cfctl"
cmp -s contrib/fail2ban/action.d/nf-cuckoo.conf "$kdir/etc/fail2ban/action.d/nf-cuckoo.conf"
point $? "make install puts the fail2ban action in /etc/fail2ban/action.d"
cmp -s contrib/crowdsec/nf-cuckoo-crowdsec "$kdir/usr/local/sbin/nf-cuckoo-crowdsec" &&
	[ -x "$kdir/usr/local/sbin/nf-cuckoo-crowdsec" ] &&
	cmp -s contrib/crowdsec/crowdsec.conf "$kdir/etc/nf-cuckoo/crowdsec.conf" &&
	grep -qx 'bin_path: /usr/local/sbin/nf-cuckoo-crowdsec' \
		"$kdir/usr/local/share/nf-cuckoo/crowdsec/crowdsec-custom-bouncer.yaml.local"
point $? "make install puts the CrowdSec adapter, its configuration and the bouncer's settings"
out=$(make -s uninstall KVER="$KVER" DESTDIR="$kdir" PREFIX=/usr/local 2>&1)
left=$(find "$kdir/usr" "$kdir/etc" "$kdir/lib/modules/$KVER/updates" -type f 2>/dev/null)
! grep -q nf_cuckoo "$kdir/lib/modules/$KVER/modules.dep" && [ -z "$left" ]
point $? "make uninstall removes what make install put" "$out$left"
rm -rf "$work/none"
out=$(make -s install KVER=0.0.0-none DESTDIR="$work/none" 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q "install linux-headers-0.0.0-none" <<<"$out" &&
	[ ! -e "$work/none" ]
point $? "make install for a kernel without headers names the package, installs nothing" \
	"status $rc: $out"

# 2. DKMS in private trees.
dk=$work/dkms
rm -rf "$dk"
mkdir -p "$dk/src/nf-cuckoo-$VERSION" "$dk/tree" "$dk/install"
cp -r Kbuild kmod uapi dkms.conf "$dk/src/nf-cuckoo-$VERSION/"
dkms_() {
	dkms --dkmstree "$dk/tree" --sourcetree "$dk/src" \
		--installtree "$dk/install" "$@" -m nf-cuckoo -v "$VERSION"
}
out=$( (dkms_ add && dkms_ build -k "$KVER") 2>&1)
ko=$(find "$dk/tree/nf-cuckoo/$VERSION/$KVER" -name 'nf_cuckoo.ko*' | head -n1)
[ -n "$ko" ]
point $? "dkms build for $KVER" "$out"
if [ -n "$ko" ]; then
	case $ko in
	*.xz) xz -dkf "$ko"; ko=${ko%.xz} ;;
	esac
	vm_points "dkms" "$top/build/vm/kernel-$KVER" selftests/vm/smoke.sh "$ko"
fi

# 3. The Debian packages.
pkg=$work/deb
rm -rf "$pkg"
mkdir -p "$pkg/src"
git ls-files -z | tar -c --null -T - -f - | tar -x -C "$pkg/src"
out=$(cd "$pkg/src" && dpkg-buildpackage -us -uc -b 2>&1)
debs="$pkg/nf-cuckoo-dkms_${VERSION}_all.deb $pkg/cfctl_${VERSION}_amd64.deb"
# shellcheck disable=SC2086
if ! ls $debs >/dev/null 2>&1; then
	point 1 "dpkg-buildpackage builds nf-cuckoo-dkms and cfctl" "$out"
	exit 1
fi
point 0 "dpkg-buildpackage builds nf-cuckoo-dkms and cfctl"
out=$(lintian --tag-display-limit 0 "$pkg/nf-cuckoo_${VERSION}_amd64.changes" 2>&1)
rc=$?
errors=$(grep '^E:' <<<"$out")
[ "$rc" = 0 ] && [ -z "$errors" ]
point $? "lintian reports no error" "$out"

dpkg --purge cfctl nf-cuckoo-dkms >/dev/null 2>&1
# shellcheck disable=SC2086
if ! out=$(DEBIAN_FRONTEND=noninteractive dpkg -i $debs 2>&1); then
	point 1 "dpkg -i installs both" "$out"
	dpkg --purge cfctl nf-cuckoo-dkms >/dev/null 2>&1
	exit 1
fi
point 0 "dpkg -i installs both"
installed=/lib/modules/$KVER/updates/dkms/nf_cuckoo.ko
[ -f "$installed" ] || [ -f "$installed.xz" ]
point $? "DKMS built and installed the module for $KVER" "$(dkms status 2>&1)"
out=$(systemd-analyze verify /lib/systemd/system/nf-cuckoo.service 2>&1)
point $? "systemd-analyze verify nf-cuckoo.service" "$out"
cmp -s contrib/fail2ban/action.d/nf-cuckoo.conf /etc/fail2ban/action.d/nf-cuckoo.conf
point $? "the cfctl package installs the fail2ban action"
cmp -s contrib/crowdsec/nf-cuckoo-crowdsec /usr/sbin/nf-cuckoo-crowdsec &&
	cmp -s contrib/crowdsec/crowdsec.conf /etc/nf-cuckoo/crowdsec.conf &&
	cmp -s contrib/crowdsec/crowdsec-custom-bouncer.yaml.local \
		/usr/share/nf-cuckoo/crowdsec/crowdsec-custom-bouncer.yaml.local &&
	/usr/sbin/nf-cuckoo-crowdsec --help | grep -q feed_via_stdin
point $? "the cfctl package installs the CrowdSec adapter, its configuration and the bouncer's settings"

kdir=$work/deb-kernel
kernel_copy "$kdir"
mkdir -p "$kdir/lib/modules/$KVER/updates/dkms"
cp /lib/modules/"$KVER"/updates/dkms/nf_cuckoo.ko* "$kdir/lib/modules/$KVER/updates/dkms/"
# As prepare.sh does for the kernel's own modules: the VM's are plain .ko.
find "$kdir/lib/modules/$KVER/updates/dkms" -name '*.xz' -exec xz -d {} +
depmod -b "$kdir" -a "$KVER"
vm_points "packages" "$kdir" selftests/vm/installed.sh /usr/sbin/cfctl \
	/lib/systemd/system/nf-cuckoo.service

out=$(dpkg --purge cfctl nf-cuckoo-dkms 2>&1)
point $? "dpkg --purge removes both" "$out"
left=$(ls -d /usr/src/nf-cuckoo-* /var/lib/dkms/nf-cuckoo /usr/sbin/cfctl \
	/lib/systemd/system/nf-cuckoo.service /usr/share/man/man8/cfctl.8.gz \
	/etc/fail2ban/action.d/nf-cuckoo.conf /usr/sbin/nf-cuckoo-crowdsec \
	/etc/nf-cuckoo/crowdsec.conf /usr/share/nf-cuckoo \
	/lib/modules/*/updates/dkms/nf_cuckoo.ko* 2>/dev/null)
st=$(dpkg-query -W -f='${Status}\n' cfctl nf-cuckoo-dkms 2>/dev/null | grep -v not-installed)
[ -z "$left$st" ]
point $? "nothing of them is left (module, files, DKMS tree, dpkg status)" "$left$st"

[ "$failed" = 0 ]
