#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netfilter-persistent plugins 12-nf-cuckoo (start, save) and
# 45-nf-cuckoo (flush), run as netfilter-persistent runs them (run-parts
# -a ACTION on their directory, with stand-ins for iptables' plugins 15
# and 25 that log their runs) against cfctl_fake, in a
# mount namespace of its own where /var/lib, /etc/default, /sys/module and
# /usr/local/sbin (first in the plugin's PATH: cfctl there is cfctl_fake)
# are the test's: the plugin is run as installed, with its own paths.
# TAP output.
#   test_plugin.sh [PATH/TO/cfctl_fake]
set -u
here=$(cd "$(dirname "$0")" && pwd)
FAKE=$(realpath "${1:-$here/../../tools/cfctl/cfctl_fake}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export CFCTL_FAKE_STATE=$dir/state
unset CFCTL_FAKE_FAIL_AT
n=0
failed=0
out=
rc=

mkdir -p "$dir/plugins" "$dir/varlib" "$dir/default" "$dir/sbin" "$dir/sysmod"
cp "$here/12-nf-cuckoo" "$here/45-nf-cuckoo" "$dir/plugins/"
# iptables' and ip6tables' plugins: their flush logged (the rules that
# name a filter go there).
for p in 15-ip4tables 25-ip6tables; do
	printf '#!/bin/sh\n[ "$1" = flush ] && echo "%s flush" >>%s/calls\nexit 0\n' \
		"$p" "$dir" >"$dir/plugins/$p"
	chmod 755 "$dir/plugins/$p"
done
# cfctl for the plugin: the fake, each call logged; while $dir/busy
# holds a count, a destroy fails as a filter a rule still names does.
cat >"$dir/sbin/cfctl" <<EOF
#!/bin/sh
echo "\$*" >>$dir/calls
if [ "\$1" = destroy ] && [ -s $dir/busy ] && [ "\$(cat $dir/busy)" -gt 0 ]; then
	echo \$((\$(cat $dir/busy) - 1)) >$dir/busy
	echo "cfctl: destroy bl: the filter is in use by 1 iptables rule: delete them first" >&2
	exit 3
fi
exec $FAKE "\$@"
EOF
chmod 755 "$dir/sbin/cfctl"
save=$dir/varlib/nf-cuckoo/filters.save
# As root a mount namespace; otherwise one of a user namespace too.
ns=(unshare -m)
[ "$(id -u)" = 0 ] || ns=(unshare -rm)

# plugin LOADED ACTION: netfilter-persistent's run of the plugins for
# ACTION; LOADED: whether /sys/module/nf_cuckoo is there.
plugin() {
	rm -f "$dir/calls"
	rm -rf "$dir/sysmod/nf_cuckoo"
	[ "$1" = loaded ] && mkdir "$dir/sysmod/nf_cuckoo"
	out=$("${ns[@]}" sh -c '
		set -e
		mount --bind "$1/varlib" /var/lib
		mount --bind "$1/default" /etc/default
		mount --bind "$1/sysmod" /sys/module
		mount --bind "$1/sbin" /usr/local/sbin
		exec run-parts -v -a "$2" "$1/plugins"' sh "$dir" "$2" 2>&1)
	rc=$?
}
calls() { cat "$dir/calls" 2>/dev/null; }
fake() { "$FAKE" "$@"; }
items() { fake show "$1" 2>/dev/null | sed -n 's/^Items: //p' | grep . || echo none; }

result() {	# result OK DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - netfilter-persistent plugin: $2"
	else
		echo "not ok $n - netfilter-persistent plugin: $2"
		echo "# last status $rc, output:"
		sed 's/^/#   /' <<<"$out" | head -n 20
		echo "# cfctl calls: $(calls | tr '\n' ';')"
		failed=$((failed + 1))
	fi
}

echo "TAP version 13"
echo "1..16"
[ -x "$FAKE" ] || { echo "Bail out! no cfctl_fake at $FAKE"; exit 1; }
# The namespace itself, or every point below would fail for its sake.
if ! "${ns[@]}" true 2>/dev/null; then
	echo "Bail out! cannot make a mount namespace (${ns[*]})"
	exit 1
fi

plugin loaded start
[ "$rc" = 0 ] && grep -q "Warning: skipping nf_cuckoo (no filters saved" <<<"$out" &&
	[ -z "$(calls)" ]
result $? "start without a save: a warning, status 0, no cfctl run"

fake create bl capacity 1000 key src hook input action drop &&
	fake add bl src 192.0.2.1 src 192.0.2.2 src 198.51.100.0/24 &&
	fake create fl capacity 5000 hook prerouting action mark 7 &&
	fake add fl udp 10.0.0.1:1 10.0.0.2:53
plugin unloaded save
[ "$rc" = 0 ] && grep -q "module not loaded" <<<"$out" && [ -z "$(calls)" ] &&
	[ ! -e "$save" ]
result $? "save with the module not loaded: skipped, nothing written, cfctl not run"

plugin loaded save
[ "$rc" = 0 ] && [ "$(calls)" = "save -f /var/lib/nf-cuckoo/filters.save" ] &&
	head -n1 "$save" | grep -q '^# nf_cuckoo' &&
	grep -q '^create bl ' "$save" && grep -q '^create fl ' "$save"
result $? "save: cfctl save -f /var/lib/nf-cuckoo/filters.save, both filters in it"
cp "$save" "$dir/first.save"

fake destroy
plugin loaded start
[ "$rc" = 0 ] && [ "$(calls)" = "restore -exist -f /var/lib/nf-cuckoo/filters.save" ] &&
	[ "$(items bl)" = 3 ] && [ "$(items fl)" = 1 ]
result $? "start: the filters restored with their entries"
fake test bl src 198.51.100.77 >/dev/null 2>&1 && fake test fl udp 10.0.0.1:1 10.0.0.2:53 >/dev/null 2>&1
result $? "... and their entries found"

# Start again, the filters in place: -exist keeps them as they are.
fake add bl src 203.0.113.9
plugin loaded start
[ "$rc" = 0 ] && [ "$(items bl)" = 4 ] && [ "$(items fl)" = 1 ]
result $? "start again: status 0, the filters kept as the kernel holds them (not doubled, not reverted)"

plugin loaded restart
[ "$rc" = 0 ] && [ "$(calls)" = "restore -exist -f /var/lib/nf-cuckoo/filters.save" ]
result $? "restart is start"

printf 'NF_CUCKOO_SKIP_SAVE=yes\n' >"$dir/default/netfilter-persistent"
fake destroy fl
plugin loaded save
[ "$rc" = 0 ] && [ -z "$(calls)" ] && cmp -s "$save" "$dir/first.save"
result $? "NF_CUCKOO_SKIP_SAVE=yes in /etc/default/netfilter-persistent: save leaves the file"
rm -f "$dir/default/netfilter-persistent"

plugin loaded stop
[ "$rc" = 0 ] && [ -z "$(calls)" ] && [ "$(items bl)" = 4 ]
result $? "stop: nothing done"

plugin loaded flush
[ "$rc" = 0 ] && [ "$(calls)" = "$(printf '15-ip4tables flush\n25-ip6tables flush')" ] &&
	[ "$(items bl)" = 4 ] && grep -q "filters kept" <<<"$out"
result $? "flush: the rules flushed by their plugins, the filters kept (no cfctl run), and it says how to have them destroyed"

printf 'NF_CUCKOO_FLUSH=yes\n' >"$dir/default/netfilter-persistent"
plugin loaded flush
[ "$rc" = 0 ] && [ "$(calls)" = "$(printf '15-ip4tables flush\n25-ip6tables flush\ndestroy')" ] &&
	[ "$(items bl)" = none ]
result $? "flush with NF_CUCKOO_FLUSH=yes: every filter destroyed, after the rules that could name them are flushed"

# iptables-nft lets go of a filter a moment after its rule is flushed.
fake create bl capacity 1000 key src
echo 2 >"$dir/busy"
plugin loaded flush
[ "$rc" = 0 ] && [ "$(calls | grep -c '^destroy$')" = 3 ] && [ "$(items bl)" = none ]
result $? "flush: a filter still in use is destroyed once the rule lets go (tried again)"
fake create bl capacity 1000 key src
echo 1000 >"$dir/busy"
plugin loaded flush
[ "$rc" != 0 ] && grep -q "in use by 1 iptables rule" <<<"$out" && [ "$(items bl)" = 0 ]
result $? "flush: a filter a rule keeps naming: fails after 5 s with cfctl's reason, the filter kept"
rm -f "$dir/default/netfilter-persistent" "$dir/busy"
fake destroy

# A damaged save: start fails, through netfilter-persistent's run-parts
# -a, and nothing of it is applied; the file is kept.
{ head -n 2 "$dir/first.save"; echo "create broken capacity"; tail -n +3 "$dir/first.save"; } >"$save"
cp "$save" "$dir/broken.save"
plugin loaded start
[ "$rc" != 0 ] && [ "$(fake list -n 2>/dev/null)" = "" ] && cmp -s "$save" "$dir/broken.save"
result $? "start with a damaged save: fails, nothing applied, the file kept"

cp "$dir/first.save" "$save"
fake create other capacity 100 key src
plugin loaded start
[ "$rc" = 0 ] && [ "$(items bl)" = 3 ] && [ "$(items other)" = 0 ]
result $? "start leaves a filter the save does not name alone"

usage=0
for p in 12-nf-cuckoo 45-nf-cuckoo; do
	out=$("$here/$p" frob 2>&1)
	rc=$?
	[ "$rc" = 1 ] && grep -q "^Usage: " <<<"$out" || usage=1
done
result $usage "an unknown action: usage, status 1 (both plugins)"

[ "$failed" = 0 ]
