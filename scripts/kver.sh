#!/bin/sh
# Which kernel release the module is built for.
#
#   kver.sh [-q]             what `make` builds for (KVER=... overrides it):
#                            the running kernel when its headers are
#                            installed (/lib/modules/$(uname -r)/build), as
#                            every out-of-tree module does; else the release
#                            Debian's linux-headers-amd64 points at, saying
#                            so in one line on stderr (-q: silently)
#   kver.sh --debian         the release linux-headers-amd64 points at
#   kver.sh --newest SERIES  the newest Debian 12 release of SERIES (e.g.
#                            6.12) whose headers are installed
#   kver.sh --available SERIES  the newest one apt knows of
#   kver.sh --pinned7        the 7.x release the module is also built and
#                            tested for: Debian 13's (trixie-backports),
#                            built in a Debian 13 build root
#                            (scripts/buildroot.sh) and booted in the VM;
#                            its Debian version is whatever
#                            scripts/apt-trixie.sh finds for its headers
set -eu

# Bumping the 7.x kernel is this one line.
PINNED7=7.3.4+deb13-amd64

debian() {
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
		echo "kver.sh: linux-headers-amd64 is not installed (run scripts/deps.sh)" >&2
		exit 1
	}
	# "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)" -> "6.1.0-56-amd64"
	echo "$dep" | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p'
}

# Debian 12's backported series are named like 6.12.117+deb12-amd64 (the
# cloud and rt flavours end otherwise).
case ${1:-} in
--debian)
	debian ;;
--newest)
	for d in /lib/modules/"${2:?--newest needs a series}".*+deb12-amd64/build; do
		[ -d "$d" ] && basename "$(dirname "$d")"
	done | sort -V | tail -n1 | grep . ;;
--pinned7)
	echo "$PINNED7" ;;
--available)
	apt-cache search --names-only \
		"^linux-headers-${2:?--available needs a series}\.[0-9]+\+deb12-amd64\$" |
		sed 's/^linux-headers-\([^ ]*\) .*/\1/' | sort -V | tail -n1 | grep . ;;
-q|'')
	run=$(uname -r)
	if [ -d "/lib/modules/$run/build" ]; then
		echo "$run"
	else
		kver=$(debian)
		[ "${1:-}" = -q ] ||
			echo "nf_cuckoo: no headers for the running kernel $run: building for Debian's linux-headers-amd64, $kver (make KVER=... picks)" >&2
		echo "$kver"
	fi ;;
*)
	sed -n '2,/^set/{/^set/d;s/^# \{0,1\}//p;}' "$0" >&2
	exit 2 ;;
esac
