#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of `make check-debug`: Debian's linux-source-6.1,
# `make defconfig` plus scripts/debug-kernel.config (KASAN, lockdep,
# PROVE_RCU, DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN, and the netfilter, veth,
# namespace and 9p pieces the selftests need, all built in).
#
#   debug-kernel.sh build   build it unless cached; print its directory
#   debug-kernel.sh path    print its directory if cached, else exit 1
#   debug-kernel.sh key     print the cache key
#
# The build is cached under build/debug-kernel/<key>/ (or
# $NFC_DEBUG_KERNEL_DIR/<key>/), where <key> is a checksum of the config
# fragment, the linux-source-6.1 package version and the compiler: only
# the first run pays (about 20 minutes on 2 idle cores).  The directory
# holds what selftests/vm/vm.sh --kernel-dir boots (vmlinuz,
# lib/modules/<ver>/); lib/modules/<ver>/build points to the configured
# tree that modules are built against, build/debug-kernel/src/, which
# stays at that path: a change of the fragment rebuilds only what the
# changed options touch, and replaces the kernel of the old key.

set -euo pipefail
SELF=$(readlink -f "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/.." && pwd)
FRAGMENT=$REPO/scripts/debug-kernel.config
TOP=${NFC_DEBUG_KERNEL_DIR:-$REPO/build/debug-kernel}
TREE=$TOP/src/linux-source-6.1
TARBALL=/usr/src/linux-source-6.1.tar.xz
BUILD_PKGS=(linux-source-6.1 gcc make bc flex bison libelf-dev libssl-dev
	    cpio kmod xz-utils dwarves)

log() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: error: $*" >&2; exit 1; }

ensure_pkgs() {
	local p missing=()

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages (need root): ${missing[*]}"
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
}

cache_key() {
	local srcver

	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
		srcver=none
	{ cat "$FRAGMENT"; echo "$srcver"; gcc --version | head -1; } |
		sha256sum | cut -c1-16
}

# The source and compiler the tree was built with: another of either
# means a fresh tree.
tree_base() {
	local srcver

	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
		srcver=none
	{ echo "$srcver"; gcc --version | head -1; } | sha256sum | cut -c1-16
}

# The cached directory, if complete and the tree is still configured
# for it (modules are built against the tree).
cached() {
	local key dir

	key=$(cache_key)
	dir=$TOP/$key
	[ -f "$dir/.done" ] && [ "$(cat "$TREE/.nfc-key" 2>/dev/null)" = "$key" ] ||
		return 1
	echo "$dir"
}

# The tree, unpacked once and kept at one path: objtool and the
# objects' dependencies record it, so a tree that moved is rebuilt
# whole, while one that stays rebuilds only what a changed option
# touches (an interrupted build goes on where it stopped, too).
ensure_tree() {
	local base

	base=$(tree_base)
	if [ -f "$TREE/Makefile" ] && [ "$(cat "$TOP/src/base" 2>/dev/null)" = "$base" ]; then
		return 0
	fi
	rm -rf "$TOP/src"
	mkdir -p "$TOP/src"
	log "unpacking $TARBALL into $TOP/src"
	tar -xf "$TARBALL" -C "$TOP/src"
	[ -f "$TREE/Makefile" ] || die "no kernel tree in $TARBALL"
	echo "$base" >"$TOP/src/base"
}

configure() {
	local tree=$1 line opt val

	make -s -C "$tree" defconfig >&2
	while IFS= read -r line; do
		case $line in ''|'#'*) continue ;; esac
		opt=${line%%=*}
		opt=${opt#CONFIG_}
		val=${line#*=}
		case $val in
		y) "$tree/scripts/config" --file "$tree/.config" -e "$opt" ;;
		n) "$tree/scripts/config" --file "$tree/.config" -d "$opt" ;;
		\"*) val=${val#\"}; val=${val%\"}
		     "$tree/scripts/config" --file "$tree/.config" \
			--set-str "$opt" "$val" ;;
		*) "$tree/scripts/config" --file "$tree/.config" \
			--set-val "$opt" "$val" ;;
		esac
	done <"$FRAGMENT"
	make -s -C "$tree" olddefconfig >&2
	# olddefconfig drops what a dependency forbids: say so, it matters.
	while IFS= read -r line; do
		case $line in ''|'#'*) continue ;; esac
		if [[ $line = *=n ]]; then
			if grep -qx "${line%=n}=y" "$tree/.config"; then
				die "$line did not stick"
			fi
		elif ! grep -qxF "$line" "$tree/.config"; then
			log "note: $line not in the final config"
		fi
	done <"$FRAGMENT"
}

build() {
	local key dir kver start d

	if dir=$(cached); then
		echo "$dir"
		return 0
	fi
	ensure_pkgs "${BUILD_PKGS[@]}"
	[ -f "$TARBALL" ] || die "$TARBALL missing"
	key=$(cache_key)
	dir=$TOP/$key
	start=$(date +%s)
	ensure_tree
	rm -f "$TREE/.nfc-key"
	# Kernels of other fragments: the tree is no longer theirs.
	for d in "$TOP"/*/; do
		d=${d%/}
		[[ ${d##*/} =~ ^[0-9a-f]{16}$ ]] && rm -rf "$d"
	done
	mkdir -p "$dir"
	configure "$TREE"
	log "building (about 20 minutes on 2 cores the first time; log: $dir/build.log)"
	make -C "$TREE" -j"$(nproc)" bzImage modules >"$dir/build.log" 2>&1 ||
		{ tail -40 "$dir/build.log" >&2; die "kernel build failed"; }
	kver=$(make -s -C "$TREE" kernelrelease)
	make -C "$TREE" INSTALL_MOD_PATH="$dir" modules_install \
		>>"$dir/build.log" 2>&1 || die "modules_install failed"
	mkdir -p "$dir/lib/modules/$kver"
	ln -sfn "$TREE" "$dir/lib/modules/$kver/build"
	depmod -b "$dir" "$kver"
	cp "$TREE/arch/x86/boot/bzImage" "$dir/vmlinuz"
	cp "$TREE/.config" "$dir/config"
	echo "$key" >"$TREE/.nfc-key"
	echo "$kver" >"$dir/.done"
	log "built $kver in $(($(date +%s) - start)) s"
	echo "$dir"
}

case ${1:-} in
build) build ;;
path) cached ;;
key) cache_key ;;
*) sed -n '2,/^$/s/^# \{0,1\}//p' "$SELF"; exit 2 ;;
esac
