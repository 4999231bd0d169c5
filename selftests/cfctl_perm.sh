#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every command needs CAP_NET_ADMIN over the network namespace: a process
# without it gets EPERM and changes nothing; root of a user namespace may
# manage filters of a network namespace that user namespace owns, and only
# those.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
command -v capsh >/dev/null || skip_all "capsh (libcap2-bin) missing"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) missing"
isolate "$@"

TMP=$(mktemp -d)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT

plan 17

"$CFCTL" create mine family ip key src fingerprint 32 seed 5
"$CFCTL" add mine src 10.0.0.1
BEFORE=$(snapshot)
echo "add mine src 10.0.0.2" >"$TMP/r"
chmod 644 "$TMP/r"

noadmin() {
	capsh --drop=cap_net_admin -- -c '"$@"' capsh "$@"
}

EPERM="Operation not permitted"
expect "without CAP_NET_ADMIN: list gets EPERM" 3 "^cfctl: list: $EPERM" \
	noadmin "$CFCTL" list
expect "without CAP_NET_ADMIN: show gets EPERM" 3 "$EPERM" noadmin "$CFCTL" show mine
expect "without CAP_NET_ADMIN: create gets EPERM" 3 "^cfctl: create: $EPERM" \
	noadmin "$CFCTL" create theirs
expect "without CAP_NET_ADMIN: add gets EPERM" 3 "$EPERM" \
	noadmin "$CFCTL" add mine src 10.0.0.3
expect "without CAP_NET_ADMIN: test gets EPERM (3, not 'absent')" 3 "$EPERM" \
	noadmin "$CFCTL" test mine src 10.0.0.1
expect "without CAP_NET_ADMIN: save gets EPERM" 3 "$EPERM" noadmin "$CFCTL" save
expect "without CAP_NET_ADMIN: restore gets EPERM" 3 "$EPERM" \
	noadmin "$CFCTL" restore -f "$TMP/r"
expect "without CAP_NET_ADMIN: destroy gets EPERM" 3 "$EPERM" noadmin "$CFCTL" destroy mine
[ "$(snapshot)" = "$BEFORE" ] && ok "... and nothing changed" ||
	not_ok "... and nothing changed" "$(snapshot)"
expect "dropping another capability (cap_sys_admin) does not matter" 0 "^mine$" \
	capsh --drop=cap_sys_admin -- -c '"$@"' capsh "$CFCTL" list -n

NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
expect "an unprivileged user gets EPERM" 3 "^cfctl: list: $EPERM" $NOBODY "$CFCTL" list

# A user namespace of our own: CAP_NET_ADMIN there, not over this netns.
expect "root of a new user namespace, in this (init-owned) netns: EPERM" 3 "$EPERM" \
	unshare -U -r "$CFCTL" list
run unshare -U -r --net sh -c "
	$CFCTL create ns family ip key src fingerprint 32 seed 6 &&
	$CFCTL add ns src 192.0.2.1 &&
	$CFCTL test ns src 192.0.2.1 &&
	$CFCTL list -n"
[ "$RC" = 0 ] && grep -q "^ns$" <<<"$OUT" &&
	ok "root of a new user namespace manages filters of its own netns" ||
	not_ok "root of a new user namespace manages filters of its own netns" "status $RC" "$OUT"
run "$CFCTL" list -n
[ "$OUT" = mine ] && ok "... which this netns does not see" ||
	not_ok "... which this netns does not see" "$OUT"

# Batches larger than the default socket buffer still go through where
# SO_SNDBUFFORCE is not allowed (CAP_NET_ADMIN only in the user namespace).
# (printf over the list: a command substitution per line costs 5,000
# forks, most of a minute in the emulator)
printf 'src 2001:db8::%x\n' $(seq 0 4999) >"$TMP/v6"
chmod 644 "$TMP/v6"
run unshare -U -r --net sh -c "
	$CFCTL create big6 family ip6 key src && $CFCTL -v add -f $TMP/v6 big6"
[ "$RC" = 0 ] && grep -q "5000 entries added" <<<"$OUT" &&
	ok "in a user namespace, 5000 IPv6 entries fit the socket's buffer" ||
	not_ok "in a user namespace, 5000 IPv6 entries fit the socket's buffer" "status $RC" "$OUT"

# Unprivileged user namespaces, as an unprivileged user.
if $NOBODY unshare -U -r true 2>/dev/null; then
	run $NOBODY unshare -U -r --net sh -c "
		$CFCTL create u family ip key src && $CFCTL add u src 198.51.100.1 &&
		$CFCTL test u src 198.51.100.1"
	[ "$RC" = 0 ] && ok "an unprivileged user manages filters in a netns of its own user namespace" ||
		not_ok "an unprivileged user manages filters in a netns of its own user namespace" "status $RC" "$OUT"
	expect "... bounded by the namespace's memory ceiling (EDQUOT)" 3 \
		"memory ceiling.*\(Disk quota exceeded\)" \
		$NOBODY unshare -U -r --net "$CFCTL" create huge capacity 4G
else
	skip "an unprivileged user manages filters in a netns of its own user namespace" \
		"unprivileged user namespaces are disabled here"
	skip "... bounded by the namespace's memory ceiling (EDQUOT)" \
		"unprivileged user namespaces are disabled here"
fi

finish
