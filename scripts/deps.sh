#!/bin/sh
# Install the Debian packages the build, the tests, the VM and the demo
# need, when they are missing.  Idempotent; apt-get update only runs when
# something has to be installed.
#
# The module is built and tested for two kernels: Debian 12's 6.1
# (linux-headers-amd64) and its newest 6.12 (linux-headers-6.12.*+deb12-amd64,
# whose BTF step needs pahole, from dwarves); when no 6.12 headers are
# installed, the newest apt knows of.  Its headers depend on an image of
# the same version, which this host never boots (the VM boots a copy that
# selftests/vm/prepare.sh unpacks with dpkg -x) and whose installation
# (initramfs, depmod, hooks) took 808 s of a CI run: a stub package that
# provides it satisfies the dependency instead.
#
# It is also built for Debian 13's pinned 7.x (scripts/kver.sh --pinned7),
# whose headers need gcc-14 and glibc 2.38: in a Debian 13 build root that
# scripts/buildroot.sh makes once (about 40 s, 380 MB under build/), never
# on the host.  The VM's copy of that kernel comes with prepare.sh.
set -eu
cd "$(dirname "$0")/.."

# The pinned 7.x kernel's build root, made when missing (root only);
# NFC_DEPS_BUILDROOT=0 leaves it to the caller (make check makes it in a
# stage of its own, beside others).
k7=$(scripts/kver.sh --pinned7)
buildroot() {
	[ "${NFC_DEPS_BUILDROOT:-1}" = 0 ] && return 0
	scripts/buildroot.sh --print-dir "$k7" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "deps.sh: no Debian 13 build root for $k7; run as root to make it (scripts/buildroot.sh)" >&2
		return 1
	fi
	scripts/buildroot.sh "$k7" >/dev/null
}

PKGS="
make gcc clang libclang-rt-14-dev llvm libbpf-dev libxdp-dev xdp-tools
linux-headers-amd64 kmod cpio
qemu-system-x86 busybox-static
libnl-genl-3-dev libjson-c-dev libxtables-dev pkg-config
sparse linux-source-6.1 dwarves
iproute2 ethtool nftables ipset python3 python3-scapy python3-pyroute2 libcap2-bin
iptables netfilter-persistent iptables-persistent gnuplot-nox
dkms dh-dkms debhelper dpkg-dev fakeroot lintian systemd xz-utils logrotate mmdebstrap
fail2ban
crowdsec crowdsec-custom-bouncer
"

# gone PKG: a file of an installed PKG (its configuration aside) is gone.
# Seen: a machine whose dpkg still listed linux-source-6.1 while its
# tarball, which the selftests' headers and lint come from, was deleted
# (make check's build stage failed on it, with every package "installed").
gone() {
	dpkg-query -L "$1" 2>/dev/null | grep -v '^/etc/' | {
		while IFS= read -r f; do
			[ -e "$f" ] || [ -L "$f" ] || return 0
		done
		return 1
	}
}

missing=
reinstall=
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	elif gone "$p"; then
		reinstall="$reinstall $p"
	fi
done
k612=$(scripts/kver.sh --newest 6.12) || k612=
if [ -z "$missing$reinstall" ] && [ -n "$k612" ]; then
	buildroot
	exit
fi

if [ "$(id -u)" != 0 ]; then
	[ -n "$k612" ] || missing="$missing linux-headers-6.12.*+deb12-amd64"
	[ -z "$missing" ] ||
		echo "deps.sh: missing packages:$missing; run as root to install them" >&2
	[ -z "$reinstall" ] ||
		echo "deps.sh: packages whose files are gone:$reinstall; run as root to install them again" >&2
	buildroot || :
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq

# image_stub KVER: a package providing linux-image-KVER-unsigned at the
# version of linux-headers-KVER, built in a temporary directory; prints
# its path.
image_stub() {
	ver=$(apt-cache policy "linux-headers-$1" | sed -n 's/^ *Candidate: *//p')
	if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
		echo "deps.sh: no candidate for linux-headers-$1" >&2
		return 1
	fi
	dir=$(mktemp -d /tmp/nfcf-stub.XXXXXX) && mkdir -p "$dir/p/DEBIAN" &&
	printf '%s\n' "Package: nf-cuckoo-image-stub-$1" "Version: $ver" \
		"Architecture: all" \
		"Maintainer: nf_cuckoo developers <nf-cuckoo-devel@example.org>" \
		"Provides: linux-image-$1-unsigned (= $ver)" \
		"Description: stands in for a kernel image make check never installs" \
		" nf_cuckoo's make check builds its module against linux-headers-$1" \
		" and boots that kernel in a VM from a copy unpacked with dpkg -x:" \
		" the headers' dependency on an installed image is all this satisfies." \
		>"$dir/p/DEBIAN/control" &&
	dpkg-deb --build --root-owner-group "$dir/p" "$dir/stub.deb" >/dev/null &&
	echo "$dir/stub.deb"
}
if [ -z "$k612" ]; then
	k612=$(scripts/kver.sh --available 6.12) || {
		echo "deps.sh: apt knows no linux-headers-6.12.*+deb12-amd64" >&2
		exit 1
	}
	stub=$(image_stub "$k612") || exit 1
	missing="$missing linux-headers-$k612 $stub"
fi
[ -z "$missing" ] || echo "deps.sh: installing$missing"
[ -z "$reinstall" ] || echo "deps.sh: installing again, files gone:$reinstall"
# Nothing installed here may start a daemon on this machine (fail2ban's
# and crowdsec's packages would): invoke-rc.d asks policy-rc.d, and 101
# says no.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy"
fi
# crowdsec's postinst registers with CrowdSec's online Central API unless
# this file exists, and with no network that fails and leaves dpkg
# half-configured; a file holding only a comment is the package's
# documented opt-out (README.Debian).  The tests run a Local API of their
# own; the hub the postinst sets up is the offline one the package ships.
case " $missing " in
*" crowdsec "*)
	if [ ! -e /etc/crowdsec/online_api_credentials.yaml ]; then
		mkdir -p /etc/crowdsec
		echo "# no Central API (nf_cuckoo's scripts/deps.sh; see README.Debian)" \
			>/etc/crowdsec/online_api_credentials.yaml
	fi ;;
esac
# Of a fresh machine's few minutes here, dpkg's fsync after every file
# and man-db's rebuild of its whole index (for every package that brings
# a man page) were most: neither is worth waiting for on packages this
# run just downloaded.  man-db's daily timer brings the index up to date.
mandb_flag=/var/lib/man-db/auto-update
mandb_off=
if [ -e "$mandb_flag" ]; then
	mv "$mandb_flag" "$mandb_flag.nfcf-deps" && mandb_off=1
fi
restore() {
	[ -z "$policy" ] || rm -f "$policy"
	[ -z "$mandb_off" ] || mv "$mandb_flag.nfcf-deps" "$mandb_flag"
}
apt_install() {	# [--reinstall] PKG...
	apt-get install -y -qq --no-install-recommends \
		-o Dpkg::Options::=--force-unsafe-io "$@" >/dev/null
}
# shellcheck disable=SC2086
if ! { [ -z "$missing" ] || apt_install $missing; } ||
	! { [ -z "$reinstall" ] || apt_install --reinstall $reinstall; }; then
	restore
	exit 1
fi
restore
# Nor at the next boot: the tests run crowdsec and its bouncer themselves,
# and netfilter-persistent's flush in a namespace of their own.
case " $missing " in
*" crowdsec "* | *" crowdsec-custom-bouncer "*)
	systemctl disable crowdsec.service crowdsec-custom-bouncer.service \
		>/dev/null 2>&1 || true ;;
esac
case " $missing " in
*" netfilter-persistent "*)
	systemctl disable netfilter-persistent.service >/dev/null 2>&1 || true ;;
esac
# (mmdebstrap, which makes it, is installed above.)
buildroot
