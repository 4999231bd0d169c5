#!/bin/sh
# apt-get and apt-cache for Debian 13 (trixie and trixie-backports), with a
# configuration of their own under build/apt-trixie/ (or $NFC_APT13_DIR):
# its own sources.list, package lists, cache and an empty dpkg status, so
# that the host's sources, lists and packages are never touched.  Newer
# kernels than Debian 12's (the pinned 7.x of scripts/kver.sh --pinned7)
# come from there: their headers into the build root
# (scripts/buildroot.sh), their image for the VM (selftests/vm/prepare.sh,
# apt-get download and dpkg -x, never installed).
#
#   apt-trixie.sh update               apt-get update, always
#   apt-trixie.sh apt-get ARGS...      apt-get with that configuration (the
#   apt-trixie.sh apt-cache ARGS...    lists are fetched first if missing)
#   apt-trixie.sh --version PKG        PKG's candidate version (lists
#                                      updated once if apt knows no PKG)
#   apt-trixie.sh --sources            the sources.list it uses
#   apt-trixie.sh --config             the APT_CONFIG file, for tools that
#                                      take one
#
# The archive is $NFC_DEBIAN_MIRROR (http://deb.debian.org/debian).  The
# host's apt.conf.d still applies (its proxy or checks).
set -eu

REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR=${NFC_APT13_DIR:-$REPO/build/apt-trixie}
MIRROR=${NFC_DEBIAN_MIRROR:-http://deb.debian.org/debian}

usage() { sed -n '2,/^set/{/^set/d;s/^# \{0,1\}//p;}' "$0" >&2; exit 2; }

setup() {
	mkdir -p "$DIR/state/lists/partial" "$DIR/cache/archives/partial" \
		"$DIR/etc/preferences.d" "$DIR/etc/sources.list.d"
	src="deb $MIRROR trixie main
deb $MIRROR trixie-backports main"
	[ -f "$DIR/etc/sources.list" ] &&
		[ "$(cat "$DIR/etc/sources.list")" = "$src" ] ||
		printf '%s\n' "$src" >"$DIR/etc/sources.list"
	[ -f "$DIR/state/status" ] || : >"$DIR/state/status"
	cat >"$DIR/apt.conf.new" <<EOF
Dir::Etc::sourcelist "$DIR/etc/sources.list";
Dir::Etc::sourceparts "$DIR/etc/sources.list.d";
Dir::Etc::preferences "$DIR/etc/preferences";
Dir::Etc::preferencesparts "$DIR/etc/preferences.d";
Dir::State "$DIR/state";
Dir::State::status "$DIR/state/status";
Dir::Cache "$DIR/cache";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "root";
APT::Install-Recommends "false";
EOF
	if cmp -s "$DIR/apt.conf.new" "$DIR/apt.conf"; then
		rm -f "$DIR/apt.conf.new"
	else
		mv "$DIR/apt.conf.new" "$DIR/apt.conf"
	fi
}

# apt reads $APT_CONFIG before /etc/apt/apt.conf.d, whose settings add to
# it (and may empty the binary caches' names, as Docker's images do: the
# command line has the last word, and the cache makes a look-up 10 times
# faster).
run() {
	cmd=$1
	shift
	APT_CONFIG=$DIR/apt.conf "$cmd" \
		-o Dir::Cache::pkgcache="$DIR/cache/pkgcache.bin" \
		-o Dir::Cache::srcpkgcache="$DIR/cache/srcpkgcache.bin" "$@"
}

update() {
	run apt-get update -qq >&2
}

have_lists() {
	ls "$DIR"/state/lists/*_Packages* >/dev/null 2>&1
}

version() {
	v=$(run apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	if [ -z "$v" ] || [ "$v" = "(none)" ]; then
		update
		v=$(run apt-cache policy "$1" 2>/dev/null |
			sed -n 's/^ *Candidate: *//p')
	fi
	[ -n "$v" ] && [ "$v" != "(none)" ] || {
		echo "apt-trixie.sh: Debian 13 has no package $1" >&2
		exit 1
	}
	echo "$v"
}

[ $# -gt 0 ] || usage
setup
case $1 in
update) update ;;
apt-get|apt-cache)
	have_lists || update
	run "$@" ;;
--version) have_lists || update; version "${2:?--version needs a package}" ;;
--sources) cat "$DIR/etc/sources.list" ;;
--config) echo "$DIR/apt.conf" ;;
*) usage ;;
esac
