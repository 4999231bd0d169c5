#!/bin/bash
# The Debian packages of this tree, for the tests that install them
# (scripts/test-install.sh, scripts/test-lifecycle.sh): built once a tree,
# whichever test comes first, and cached under build/debs/KEY, KEY a
# checksum of the files git has or would add (committed or not).
#
#   debs.sh    build them unless cached; print the directory, which holds
#              old/  this tree at its version (debian/changelog), source
#                    and binary packages (dpkg-buildpackage -us -uc: the
#                    .changes lintian reads)
#              new/  a copy one version higher, VERSION+test1 (the
#                    changelog and kmod/version.h bumped; dkms.conf is left
#                    as it is, for dh_dkms -V to fill in), binary packages
#                    (-b): the upgrade
#              Each has build.log.  Status 1 and the logs' ends on
#              standard error when a build fails.
#
# Two tests asking at once: the second waits (flock) and takes the first's.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=$(dpkg-parsechangelog -l debian/changelog -S Version)
NEWVERSION=$VERSION+test1
TOP=build/debs

files() { git ls-files -z --cached --others --exclude-standard; }

# build DIR VERSION [OPTION]: dpkg-buildpackage of a copy of the tree in
# DIR/src at VERSION.
build() {
	local dir=$1 v=$2 src=$1/src cl

	mkdir -p "$src"
	files | tar -c --null -T - -f - | tar -x -C "$src"
	if [ "$v" != "$VERSION" ]; then
		sed -i "s/^#define NF_CUCKOO_VERSION\t.*/#define NF_CUCKOO_VERSION\t\"$v\"/" \
			"$src/kmod/version.h"
		cl=$(cat "$src/debian/changelog")
		{
			echo "nf-cuckoo ($v) unstable; urgency=medium"
			echo
			echo "  * The upgrade of the install and lifecycle tests."
			echo
			echo " -- nf_cuckoo developers <nf-cuckoo-devel@example.org>  $(date -R)"
			echo
			printf '%s\n' "$cl"
		} >"$src/debian/changelog"
	fi
	if ! (cd "$src" && dpkg-buildpackage -us -uc ${3:+"$3"}) >"$dir/build.log" 2>&1 ||
		! ls "$dir/nf-cuckoo-dkms_${v}_all.deb" "$dir/cfctl_${v}_amd64.deb" \
			"$dir/nf-cuckoo-crowdsec_${v}_all.deb" >/dev/null 2>&1; then
		echo "debs.sh: the packages at $v did not build; the end of $dir/build.log:" >&2
		tail -n 20 "$dir/build.log" >&2
		return 1
	fi
	rm -rf "$src"
}

mkdir -p "$TOP"
exec 9>"$TOP/lock"
flock 9
key=$(files | xargs -0 sha256sum 2>/dev/null | sha256sum | cut -c1-16)
dir=$TOP/$key
if [ ! -f "$dir/ok" ]; then
	find "$TOP" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
	mkdir -p "$dir/old" "$dir/new"
	build "$dir/old" "$VERSION"
	build "$dir/new" "$NEWVERSION" -b
	touch "$dir/ok"
fi
echo "$PWD/$dir"
