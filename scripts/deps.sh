#!/bin/sh
# Install the Debian packages the build, the tests, the VM and the demo
# need, when they are missing.  Idempotent; apt-get update only runs when
# something has to be installed.
set -eu

PKGS="
make gcc clang libclang-rt-14-dev llvm
linux-headers-amd64 kmod cpio
qemu-system-x86 busybox-static
libnl-genl-3-dev libjson-c-dev pkg-config
sparse linux-source-6.1
iproute2 nftables ipset python3 python3-scapy python3-pyroute2 libcap2-bin
iptables gnuplot-nox
dkms dh-dkms debhelper dpkg-dev fakeroot lintian systemd xz-utils
"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing; run as root to install them" >&2
	exit 1
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
