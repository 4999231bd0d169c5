#!/bin/sh
# The kernel release the module is built for: the one Debian's
# linux-headers-amd64 meta-package points at.  Not `uname -r`: that is the
# build host's kernel, which here is not the kernel the module runs on.
set -eu
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
	echo "kver.sh: linux-headers-amd64 is not installed (run scripts/deps.sh)" >&2
	exit 1
}
# "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)" -> "6.1.0-56-amd64"
echo "$dep" | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p'
