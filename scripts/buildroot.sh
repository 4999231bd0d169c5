#!/bin/bash
# A Debian 13 build root for kernels Debian 12 cannot build modules for:
# 7.x header trees need gcc-14, and their kbuild tools (fixdep, modpost)
# glibc 2.38.  It is made once with mmdebstrap (root only) and cached as
# build/buildroot/trixie-KEY/ (or under $NFC_BUILDROOT_DIR), KEY a
# checksum of the recipe below, the headers' Debian version included: a
# changed recipe, or a new upload of those headers, makes a new one, and
# the old ones are removed.  Nothing of Debian 13 is installed on the host;
# apt's lists come from scripts/apt-trixie.sh.
#
#   buildroot.sh KVER               make the build root for KVER (e.g.
#                                   7.3.4+deb13-amd64) unless it is there;
#                                   print its directory
#   buildroot.sh --print-dir KVER   print its directory; status 1 (and no
#                                   output) when it is not made yet
#   buildroot.sh --version KVER     the Debian version of KVER's headers in
#                                   the build root (else apt's candidate)
#   buildroot.sh --run KVER -- CMD...
#                                   run CMD as root in the build root, in a
#                                   mount namespace of its own (so no mount
#                                   outlives it, whatever way it ends) with
#                                   /proc, /dev and the current directory's
#                                   repository bind-mounted at the same path
#                                   (make M=... works); the cwd is kept.
#                                   `make` runs the kernel's make so when
#                                   /lib/modules/KVER/build is not on the
#                                   host.
#
# The recipe: mmdebstrap's essential variant plus gcc-14, make, binutils,
# pahole (dwarves), libelf-dev, libssl-dev, bc, kmod, dkms (for the install
# test's DKMS part) and
# linux-headers-KVER with what it depends on (-common, linux-kbuild,
# linux-base-KVER), from trixie and trixie-backports; no recommends,
# no documentation, manual pages or translations.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
APT13=$REPO/scripts/apt-trixie.sh
TOP=${NFC_BUILDROOT_DIR:-$REPO/build/buildroot}

usage() { sed -n '2,/^set/{/^set/d;s/^# \{0,1\}//p;}' "$0" >&2; exit 2; }
die() { echo "buildroot.sh: $*" >&2; exit 1; }

PKGS=(gcc-14 make binutils dwarves libelf-dev libssl-dev bc kmod dkms)
DPKGOPTS=(
	'path-exclude=/usr/share/doc/*'
	'path-exclude=/usr/share/man/*'
	'path-exclude=/usr/share/info/*'
	'path-exclude=/usr/share/locale/*'
	'path-include=/usr/share/locale/locale.alias'
	'path-exclude=/usr/share/lintian/*'
)

# The recipe of KVER's build root, one line each; its checksum names it.
recipe() {
	local ver=$1 debver=$2

	echo "mmdebstrap --variant=essential trixie"
	"$APT13" --sources
	echo "include ${PKGS[*]} linux-headers-$ver=$debver"
	printf 'dpkgopt %s\n' "${DPKGOPTS[@]}"
	echo "recipe 1"
}

# The directory, from apt's candidate for the headers unless a build root
# for KVER is there already (then its own version: no apt at all).
dir_of() {
	local ver=$1 debver key

	debver=$("$APT13" --version "linux-headers-$ver") || exit 1
	key=$(recipe "$ver" "$debver" | sha256sum | cut -c1-12)
	echo "$TOP/trixie-$key"
}

made() {
	[ -f "$1/.made" ]
}

create() {
	local ver=$1 dir debver tmp opts=() o t0

	dir=$(dir_of "$ver")
	made "$dir" && { echo "$dir"; return 0; }
	[ "$(id -u)" = 0 ] || die "making the build root needs root"
	# Fresh lists first: the archive keeps only the newest upload.
	"$APT13" update
	debver=$("$APT13" --version "linux-headers-$ver") || exit 1
	dir=$(dir_of "$ver")
	command -v mmdebstrap >/dev/null || die "no mmdebstrap (apt-get install mmdebstrap)"
	mkdir -p "$TOP"
	exec 8>"$TOP/.lock"
	flock 8
	made "$dir" && { echo "$dir"; return 0; }

	t0=$(date +%s)
	echo "buildroot.sh: making $(basename "$dir") for linux-headers-$ver=$debver" >&2
	tmp=$dir.tmp
	rm -rf "$tmp"
	for o in "${DPKGOPTS[@]}"; do
		opts+=(--dpkgopt="$o")
	done
	# The host's apt.conf.d does not reach mmdebstrap's apt: pass on its
	# date checks (off where the archive is a snapshot).
	for o in Acquire::Check-Valid-Until Acquire::Check-Date; do
		[ "$(apt-config dump "$o" | sed -n "s/^$o \"\(.*\)\";/\1/p")" = false ] &&
			opts+=(--aptopt="$o \"false\"")
	done
	mapfile -t srcs < <("$APT13" --sources)
	# trixie's apt would pick the headers from backports on its own (no
	# other suite has them), their dependencies from trixie.
	mmdebstrap --quiet --mode=root --variant=essential \
		--include="$(IFS=,; echo "${PKGS[*]}"),linux-headers-$ver=$debver" \
		"${opts[@]}" trixie "$tmp" "${srcs[@]}" >&2 ||
		{ rm -rf "$tmp"; die "mmdebstrap failed"; }
	[ -d "$tmp/lib/modules/$ver/build" ] ||
		{ rm -rf "$tmp"; die "no /lib/modules/$ver/build in the build root"; }
	recipe "$ver" "$debver" >"$tmp/.made"
	# Older build roots of this kernel (another recipe) go.
	for o in "$TOP"/trixie-*; do
		[ -d "$o" ] && [ "$o" != "$dir" ] && [ "$o" != "$tmp" ] &&
			grep -qx "include .* linux-headers-$ver=.*" "$o/.made" 2>/dev/null &&
			rm -rf "$o"
	done
	rm -rf "$dir"
	mv "$tmp" "$dir"
	echo "buildroot.sh: made $dir ($(du -sh "$dir" | cut -f1), $(($(date +%s) - t0)) s)" >&2
	echo "$dir"
}

# run DIR CMD...: CMD in the build root DIR, with the repository of the
# cwd (or the cwd itself) at the same path.
run() {
	local dir=$1 share
	shift
	[ "$(id -u)" = 0 ] || die "running in the build root needs root"
	share=$(git -C "$PWD" rev-parse --show-toplevel 2>/dev/null) || share=$PWD
	# (A worktree's git directory lives elsewhere: Kbuild needs none.)
	# The host's PATH may name directories the build root lacks.
	export NFCF_BR_DIR=$dir NFCF_BR_SHARE=$share NFCF_BR_CWD=$PWD \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	exec unshare --mount --propagation private -- /bin/sh -euc '
		r=$NFCF_BR_DIR
		mount --bind /dev "$r/dev"
		mount -t proc proc "$r/proc"
		mkdir -p "$r$NFCF_BR_SHARE"
		mount --bind "$NFCF_BR_SHARE" "$r$NFCF_BR_SHARE"
		unset NFCF_BR_DIR NFCF_BR_SHARE
		exec chroot "$r" /bin/sh -c "cd \"\$NFCF_BR_CWD\" && unset NFCF_BR_CWD && exec \"\$@\"" sh "$@"
	' sh "$@"
}

[ $# -gt 0 ] || usage
case $1 in
--print-dir)
	dir=$(dir_of "${2:?--print-dir needs a KVER}")
	made "$dir" || exit 1
	echo "$dir" ;;
--version)
	ver=${2:?--version needs a KVER}
	dir=$(dir_of "$ver")
	if made "$dir"; then
		dpkg-query --admindir="$dir/var/lib/dpkg" -W -f='${Version}\n' \
			"linux-headers-$ver"
	else
		"$APT13" --version "linux-headers-$ver"
	fi ;;
--run)
	ver=${2:?--run needs a KVER}
	[ "${3:-}" = -- ] || usage
	shift 3
	[ $# -gt 0 ] || usage
	dir=$(dir_of "$ver")
	made "$dir" || die "no build root for $ver: run scripts/buildroot.sh $ver (or scripts/deps.sh)"
	run "$dir" "$@" ;;
-h|--help) usage ;;
-*) usage ;;
*) create "$1" ;;
esac
