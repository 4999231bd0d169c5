#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of scripts/test-lifecycle.sh: run by nfclc.service in a
# Debian 12 booted with systemd from the disk the host built, once the
# system is up.  The kernel command line names the stage (nfclc.stage=);
# each stage checks what the one before left behind, sets up what the next
# one checks, and ends by asking for a clean reboot, a power-off, or a hard
# power cut (the host kills QEMU).  State that must outlive a boot is kept
# in /root/lc/state.
#
# Output, to the second serial port (/dev/ttyS1, a file on the host):
#   NFCLC-UP STAGE UPTIME MULTIUSER    the stage starts; the seconds since the
#                                      kernel started, and to multi-user.target
#   ok - DESC / not ok - DESC          test points (# lines: diagnostics)
#   NFCLC-DONE STAGE ACTION            the stage ran to its end; ACTION:
#                                      reboot, poweroff or kill
#   NFCLC-KILL                         cut the power now
#
# The stages, in order (see doc/testing.md, "The lifecycle test"):
#   install    after apt installed the packages: the unit active, the
#              module DKMS built loaded; two filters filled (one of 120,000
#              entries), a fail2ban ban; crowdsec and its bouncer set up as
#              README.md says, 300 decisions; reboot
#   rebooted   every entry, setting and the ban back, packets dropped;
#              restart keeps everything, an entry added; decisions made
#              while cfctl, the adapter and the bouncer are killed (kill
#              -9) at random moments; apt installs the higher version
#              with the filters loaded (its postinst's restart saves the
#              entry added); reload leaves a filter not in the save alone
#              and keeps dropping; reboot
#   upgraded   the new module loaded, every entry back, the one added
#              after the restart too; the save corrupted (base64 flipped
#              in a load line); reboot
#   corrupt    the restore refused it whole, the unit failed, the file
#              kept; the save truncated at a line boundary and the unit
#              started again: the same; the good save put back; a big
#              filter saved again, the power cut in the middle of it
#   powercut   the save is the old or the new one, complete, and restored;
#              power off
# After every boot, CrowdSec's active decisions, the adapter's state and the
# filter crowdsec agree (selftests/lifecycle/crowdsec.py).
set -u
exec >/dev/ttyS1 2>&1
stty -F /dev/ttyS1 -onlcr 2>/dev/null

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LC=/root/lc
ST=$LC/state
E=$LC/entries
SAVE=/var/lib/nf-cuckoo/filters.save
UNIT=nf-cuckoo.service
JAIL=nfclc
BANNED=192.0.2.55
NS=lc-client
CLIENT=10.0.0.1
HOST=10.0.0.2
PY=(python3 -I -S "$HERE/nfcpkt.py")
CS=(python3 -I "$HERE/crowdsec.py")
CSBANNED=10.0.0.3
CSKEY=$LC/crowdsec.key
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$ST"

STAGE=$(sed -n 's/.*nfclc\.stage=\([^ ]*\).*/\1/p' /proc/cmdline)
ACTION=reboot

ok() { echo "ok - $STAGE: $1"; }
not_ok() {
	echo "not ok - $STAGE: $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | tail -n 25 | sed 's/^/# /'
	return 0
}
check() {	# check DESC DIAG CMD...: a point, passed when CMD succeeds
	local desc=$1 diag=$2

	shift 2
	if "$@"; then ok "$desc"; else not_ok "$desc" "$diag"; fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
wait_until() {	# SECONDS CMD...
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.5
	done
}

# ---- what is checked ------------------------------------------------------

unit_state() {
	echo "$(systemctl is-active $UNIT) / $(systemctl show -p Result --value $UNIT)"
}
unit_log() { journalctl -b -u $UNIT --no-pager -o cat 2>&1 | tail -n 15; }
unit_times() {	# UNIT...: when each became active, after how long starting
	local u a b

	for u in "$@"; do
		a=$(systemctl show -p InactiveExitTimestampMonotonic --value "$u")
		b=$(systemctl show -p ActiveEnterTimestampMonotonic --value "$u")
		awk -v u="$u" -v a="$a" -v b="$b" 'BEGIN {
			if (b > 0) printf "%s at %.1f s (%.1f s starting); ", u, b / 1e6, (b - a) / 1e6 }'
	done
}
# Where the boot's time went (each boot is a minute or more of make
# check): when the initramfs and systemd began, and the units that took
# longest to start, with when each was up.  (systemd-analyze says
# nothing until the boot is finished, and this stage is part of it.)
boot_times() {
	systemctl show -p InitRDTimestampMonotonic -p UserspaceTimestampMonotonic |
		awk -F= '{ printf "%s %.1f s; ", $1, $2 / 1e6 } END { print "" }'
	systemctl show -p Id -p InactiveExitTimestampMonotonic \
		-p ActiveEnterTimestampMonotonic '*.service' '*.mount' '*.socket' \
		'*.device' '*.swap' 2>&1 |
		awk 'BEGIN { RS = ""; FS = "\n" } {
			id = ""; a = 0; b = 0
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "Id") id = kv[2]
				else if (kv[1] == "InactiveExitTimestampMonotonic") a = kv[2]
				else if (kv[1] == "ActiveEnterTimestampMonotonic") b = kv[2]
			}
			if (a > 0 && b > a) printf "%6.1f s %s (up at %.1f s)\n", (b - a) / 1e6, id, b / 1e6
		}' | sort -rn | head -n 10
}
unit_active() {
	if systemctl is-active -q $UNIT; then
		ok "$UNIT is active${1:+ $1}"
	else
		not_ok "$UNIT is active${1:+ $1}" "$(unit_state)" "$(unit_log)"
	fi
}
unit_failed() {
	if systemctl is-failed -q $UNIT; then
		ok "$UNIT is failed$1"
	else
		not_ok "$UNIT is failed$1" "$(unit_state)" "$(unit_log)"
	fi
}

# Every filter's settings, a line each, without statistics.
settings() {	# [NAME...]
	cfctl -j list "$@" 2>&1 | python3 -c '
import json, sys
for f in json.load(sys.stdin):
	f.pop("stats", None)
	f.pop("id", None)	# a filter restored gets a new one
	print(json.dumps(f, sort_keys=True))'
}
items() {	# NAME: the entries it holds
	cfctl -j show "$1" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["stats"]["items"])' 2>/dev/null
}
exists() { cfctl show "$1" >/dev/null 2>&1; }

# entries_back WHAT NAME...: each NAME holds every entry of $E/NAME.list (and
# of $ST/NAME.added) and exactly as many items as were recorded.
entries_back() {
	local what=$1 f bad='' want got

	shift
	for f in "$@"; do
		if ! exists "$f"; then
			bad="$bad $f: no such filter;"
			continue
		fi
		cfctl -q test -f "$E/$f.list" "$f" >/dev/null 2>&1 ||
			bad="$bad $f: entries of $f.list missing;"
		if [ -s "$ST/$f.added" ]; then
			cfctl -q test -f "$ST/$f.added" "$f" >/dev/null 2>&1 ||
				bad="$bad $f: the entries added later missing;"
		fi
		want=$(cat "$ST/$f.items" 2>/dev/null)
		got=$(items "$f")
		[ "$got" = "$want" ] || bad="$bad $f: $got items, not $want;"
	done
	if [ -z "$bad" ]; then
		ok "$what: every entry of $* is back, the counts exact"
	else
		not_ok "$what: every entry of $* is back, the counts exact" "$bad"
	fi
}
record() {	# NAME...: their counts and settings, as they are now
	local f

	for f in "$@"; do
		items "$f" >"$ST/$f.items"
	done
	settings "$@" >"$ST/settings.$(echo "$@" | tr ' ' _)"
}
settings_back() {	# WHAT NAME...
	local what=$1 want

	shift
	want=$ST/settings.$(echo "$@" | tr ' ' _)
	if settings "$@" | cmp -s - "$want"; then
		ok "$what: the settings of $* are back"
	else
		not_ok "$what: the settings of $* are back" \
			"$(settings "$@" | diff "$want" - 2>&1)"
	fi
}

# Packets: a client namespace on a veth pair; nftables counts what arrives.
# big drops udp CLIENT:40000 -> HOST:5000 (in big.list); port 5001 is in no
# filter.
pkt_setup() {
	ip netns add $NS &&
	ip link add veth0 type veth peer name veth1 netns $NS &&
	ip addr add $HOST/24 dev veth0 && ip link set veth0 up &&
	ip -n $NS addr add $CLIENT/24 dev veth1 && ip -n $NS link set veth1 up &&
	ip -n $NS addr add $CSBANNED/24 dev veth1 &&
	nft -f - <<-EOF
	table inet lc {
		counter c5000 {}
		counter c5001 {}
		counter c5002 {}
		chain input {
			type filter hook input priority 0;
			ip saddr $CLIENT udp dport 5000 counter name c5000
			ip saddr $CLIENT udp dport 5001 counter name c5001
			ip saddr $CSBANNED udp dport 5002 counter name c5002
		}
	}
	EOF
}
counter() { nft list counter inet lc "c$1" | awk '$1 == "packets" { print $2 }'; }
arrived() {	# DPORT [SRC]: of 5 datagrams sent, how many arrived
	local before after

	before=$(counter "$1")
	ip netns exec $NS "${PY[@]}" udp ${2:+--src "$2"} --dst $HOST \
		--sport 40000 --dport "$1" -n 5 >/dev/null
	after=$(counter "$1")
	echo $((after - before))
}
packets() {	# WHAT
	local a b

	a=$(arrived 5000)
	b=$(arrived 5001)
	if [ "$a" = 0 ] && [ "$b" = 5 ]; then
		ok "$1: big drops its flow (0 of 5 arrived), another passes (5 of 5)"
	else
		not_ok "$1: big drops its flow, another passes" \
			"dropped flow: $a of 5 arrived; other flow: $b of 5"
	fi
}

module_version() { cat /sys/module/nf_cuckoo/version 2>/dev/null; }
f2b_banned() {	# the ban is in fail2ban's jail and in its filter
	fail2ban-client status $JAIL 2>/dev/null | grep -qw "$BANNED" &&
		cfctl -q test f2b-$JAIL src $BANNED >/dev/null 2>&1
}
f2b_up() { fail2ban-client status $JAIL >/dev/null 2>&1; }

# save_complete FILE: a save of format 2 whose end line holds the sha256 of
# every byte before it ("# end sha256 HEX").  Prints why not.
save_complete() {
	local first last sum

	first=$(head -n 1 "$1")
	case $first in
	"# nf_cuckoo save 2"*) ;;
	*) echo "not a save of format 2 (first line: ${first:0:60})"; return 1 ;;
	esac
	last=$(tail -n 1 "$1")
	sum=$(head -n -1 "$1" | sha256sum | cut -d' ' -f1)
	[ "$last" = "# end sha256 $sum" ] && return 0
	echo "end line '${last:0:80}', sha256 of the rest $sum"
	return 1
}

# CrowdSec: its Local API (crowdsec.service, without its agent: see
# cs_setup), crowdsec-custom-bouncer and the adapter it runs, as the
# system's services.
cs_lapi_up() { cscli lapi status >/dev/null 2>&1; }
cs_agreed() { CS_AGREE=$("${CS[@]}" agree $CSKEY 2>&1); }
cs_agree() {	# WHAT: the active decisions, the state and the filter agree
	if wait_until 240 cs_agreed; then
		ok "$1: CrowdSec's active decisions, the adapter's state and filter crowdsec agree ($CS_AGREE)"
	else
		not_ok "$1: CrowdSec's active decisions, the adapter's state and filter crowdsec agree" \
			"$CS_AGREE" \
			"$(systemctl status crowdsec-custom-bouncer 2>&1 | tail -n 5)" \
			"$(tail -n 8 /var/log/nf-cuckoo-crowdsec.log 2>&1)"
	fi
}
cs_packets() {	# WHAT
	local a

	a=$(arrived 5002 $CSBANNED)
	check "$1: CrowdSec's ban of $CSBANNED drops it (0 of 5 arrived)" \
		"$a of 5 arrived" test "$a" = 0
}

# The bouncer set up as README.md says ("With CrowdSec"): a key from
# cscli bouncers add, the shipped settings merged in; 300 decisions made
# before it starts, one on a client of the packet checks.
cs_setup() {
	local out rc key y=/etc/crowdsec/bouncers/crowdsec-custom-bouncer.yaml.local

	# The Local API alone (-no-cs, as pkt_crowdsec runs it, and as a
	# Local API host with its agents elsewhere does): the local agent's
	# log parsing feeds nothing the adapter sees, and its start (the
	# configuration test, then the hub's parsers) took 25-91 s of every
	# boot in the emulated guest, each boot waiting for it.
	mkdir -p /etc/systemd/system/crowdsec.service.d
	printf '%s\n' '[Service]' 'ExecStartPre=' 'ExecStart=' \
		'ExecStart=/usr/bin/crowdsec -c /etc/crowdsec/config.yaml -no-cs' \
		>/etc/systemd/system/crowdsec.service.d/nfclc.conf
	systemctl daemon-reload
	out=$(systemctl enable --now crowdsec 2>&1)
	if ! wait_until 180 cs_lapi_up; then
		not_ok "crowdsec's Local API runs" "$out" \
			"$(systemctl status crowdsec 2>&1 | tail -n 8)"
		return
	fi
	key=$(cscli bouncers add nfclc-router -o raw 2>&1) &&
		cscli bouncers add nfclc-check -o raw >$CSKEY 2>&1 &&
		sed -i '/^\(bin_path\|api_url\|api_key\):/d' $y &&
		printf 'api_url: http://127.0.0.1:8080/\napi_key: %s\n' "$key" |
		cat /usr/share/nf-cuckoo/crowdsec/crowdsec-custom-bouncer.yaml.local - >>$y
	rc=$?
	check "the bouncer set up as README.md says (cscli bouncers add, the shipped settings)" \
		"$key $(cat $y)" test $rc = 0
	python3 -c '
print("duration,scope,value")
for i in range(299): print("24h,ip,10.66.%d.%d" % (i >> 8, i & 255))
' >$LC/decisions.csv
	out=$(cscli decisions import -i $LC/decisions.csv 2>&1 &&
		cscli decisions add --ip $CSBANNED --duration 24h 2>&1)
	check "300 decisions made (cscli decisions import, add)" "$out" test $? = 0
	if [ -e $LC/cs-old ]; then
		# (NFC_LC_CS_OLD=1: the settings shipped before, under which
		# the bouncer restarted a dead adapter without its decisions)
		sed -i 's/^total_retries: 0$/total_retries: -1/' $y
		rm -f /lib/systemd/system/crowdsec-custom-bouncer.service.d/nf-cuckoo-crowdsec.conf
		systemctl daemon-reload
		diag "NFC_LC_CS_OLD: total_retries: -1, no drop-in for the bouncer"
	fi
	out=$(systemctl enable --now crowdsec-custom-bouncer 2>&1)
	check "crowdsec-custom-bouncer started" "$out" \
		systemctl is-active -q crowdsec-custom-bouncer
}

# Decisions made for SECONDS (up to 3x, until each of the three has been
# killed once) while cfctl, the adapter and the bouncer are killed at
# random moments; then, with none killed, everything agrees.
cs_chaos() {
	local out rc

	out=$("${CS[@]}" chaos "$1" 2>&1)
	rc=$?
	check "decisions made for $1 s while cfctl, the adapter and the bouncer were each killed (kill -9) at random moments: $out" \
		"$out" test $rc = 0
	cs_agree "after the kills, without a reboot"
	diag "the adapter's log: $(grep -c 'rebuilt from the state' /var/log/nf-cuckoo-crowdsec.log) rebuilds of its filter in all"
}

# ---- the stages -----------------------------------------------------------

stage_install() {
	local v out rc

	unit_active "after apt installed the packages"
	v=$(module_version)
	out=$(modinfo -n nf_cuckoo 2>&1)
	if [ "$v" = "$(cat $LC/version)" ] && [[ $out == */updates/dkms/nf_cuckoo.ko* ]]; then
		ok "the module DKMS built ($out) is loaded, version $v"
	else
		not_ok "the module DKMS built is loaded" "loaded: '$v'; modinfo -n: $out" \
			"$(lsmod | head -n 5)"
	fi
	out=$(dkms status nf-cuckoo 2>&1)
	check "dkms status: nf-cuckoo $(cat $LC/version) installed for $(uname -r)" "$out" \
		grep -q "^nf-cuckoo/$(cat $LC/version), $(uname -r), .*: installed" <<<"$out"

	# The lists, written here once (python in the guest: a few seconds).
	mkdir -p $E
	python3 - $E <<-'EOF'
	import sys
	d = sys.argv[1]
	with open(d + "/big.list", "w") as f:
	    f.write("udp 10.0.0.1:40000 10.0.0.2:5000\n")
	    for i in range(119999):
	        f.write("%s 10.%d.%d.%d:%d 192.0.2.%d:%d\n" % (
	            ("udp", "tcp")[i & 1], 100 + (i >> 16), (i >> 8) & 255,
	            i & 255, 1024 + i % 60000, i % 250, 53 + i % 7))
	with open(d + "/small.list", "w") as f:
	    for i in range(400):
	        f.write("203.0.%d.%d\n" % (113 + i // 200, i % 200 + 1))
	    for i in range(100):
	        f.write("2001:db8:%x::/48\n" % (i + 1))
	    f.write("198.18.0.0/15\n")
	with open(d + "/other.list", "w") as f:
	    for i in range(300):
	        f.write("tcp 172.16.%d.%d:%d 10.1.1.1:443\n" % (i >> 8, i & 255, 2000 + i))
	EOF
	out=$(cfctl create big capacity 150000 hook input 2>&1 &&
		cfctl create small family inet key src capacity 2000 hook input \
			priority 10 fingerprint 16 2>&1 &&
		cfctl add -f $E/big.list big 2>&1 && cfctl add -f $E/small.list small 2>&1)
	rc=$?
	check "two filters created and filled (big: 120,000 entries, small: 501 addresses and prefixes)" \
		"$out" test $rc = 0
	record big small
	pkt_setup || not_ok "the client namespace and counters" "$(ip -br a 2>&1)"
	packets "at install"

	if wait_until 60 f2b_up; then
		out=$(fail2ban-client set $JAIL banip $BANNED 2>&1)
		check "fail2ban bans $BANNED in jail $JAIL: it is in f2b-$JAIL" \
			"$out" wait_until 10 f2b_banned
	else
		not_ok "fail2ban runs jail $JAIL" "$(systemctl status fail2ban 2>&1 | tail -n 8)"
	fi

	cs_setup
	cs_agree "at install"
	cs_packets "at install"
}

stage_rebooted() {
	local out rc t0

	unit_active "after a reboot"
	settings_back "after a reboot" big small
	entries_back "after a reboot" big small
	pkt_setup && packets "after a reboot"
	check "after a reboot, fail2ban's ban of $BANNED is in f2b-$JAIL" \
		"$(fail2ban-client status $JAIL 2>&1)" wait_until 60 f2b_banned
	cs_agree "after a reboot"
	cs_packets "after a reboot"

	t0=$SECONDS
	out=$(systemctl restart $UNIT 2>&1)
	rc=$?
	if [ $rc = 0 ] && systemctl is-active -q $UNIT; then
		ok "systemctl restart $UNIT succeeds, the unit stays active ($((SECONDS - t0)) s)"
	else
		not_ok "systemctl restart $UNIT succeeds, the unit stays active" \
			"status $rc: $out" "$(unit_state)" "$(unit_log)"
	fi
	entries_back "after systemctl restart" big small
	settings_back "after systemctl restart" big small
	echo 198.51.100.77 >"$ST/small.added"
	cfctl add -f "$ST/small.added" small &&
		items small >"$ST/small.items" &&
		check "an entry added to small after the restart" "" \
			cfctl -q test small src 198.51.100.77

	cs_chaos 40
	cs_packets "after the kills"
	upgrade
	reload
}

# Both in the boot of stage_rebooted, the upgrade first: its postinst
# restarts the unit, whose stop saves the entry added after the
# restart, and the reboot after them is the one stage_upgraded checks.
# (A reload puts back what the save holds: before any save, it would
# take that entry away.  A boot of their own took 70 s more of make
# check.)
upgrade() {
	local out rc t0

	# The upgrade, with the filters loaded and the unit active.  DKMS's
	# compiler runs behind ccache, filled by the same build in the chroot
	# the disk was made in (scripts/test-lifecycle.sh, warm_ccache), whose
	# key holds LANG: set here as there.
	t0=$SECONDS
	out=$(cd $LC/debs-new && LANG=C.UTF-8 DEBIAN_KERNEL_USE_CCACHE=1 apt-get install -y ./*.deb 2>&1 |
		while IFS= read -r line; do echo "[$((SECONDS - t0)) s] $line"; done
		exit "${PIPESTATUS[0]}")
	rc=$?
	# Where the upgrade's time goes: its steps, with the second each began.
	diag "$(grep -v 'Reading database\.\.\. *[0-9]*%' <<<"$out" | head -n 80)"
	check "apt install of $(cat $LC/newversion) over $(cat $LC/version) with the filters loaded ($((SECONDS - t0)) s)" \
		"status $rc: $out" test $rc = 0
	# (a miss costs the compilation under emulation, more than without
	# the cache: the harness's fault, not the package's)
	out=$(ccache --print-stats 2>&1 |
		awk '/^(direct_cache_hit|preprocessed_cache_hit|cache_miss)\t/ { printf "%s %s ", $1, $2 }')
	diag "the upgrade's compilations: $out"
	[[ $out == *"cache_miss 0 "* ]] ||
		diag "ccache's log of the misses:" "$(grep -E 'Result:|too new|Command line:' \
			/var/log/nfclc-ccache.log | sed 's/^\[[^]]*\] //' | sort | uniq -c |
			sort -rn | head -n 20)"
	unit_active "after the upgrade"
	out=$(dkms status nf-cuckoo 2>&1)
	check "DKMS built and installed nf-cuckoo $(cat $LC/newversion) for $(uname -r)" "$out" \
		grep -q "^nf-cuckoo/$(cat $LC/newversion), $(uname -r), .*: installed" <<<"$out"
	out=$(modinfo -F version nf_cuckoo 2>&1)
	check "the module modprobe finds now is $(cat $LC/newversion)" "$out" \
		test "$out" = "$(cat $LC/newversion)"
	entries_back "after the upgrade (small: the entry added after the restart too)" big small
	packets "after the upgrade"
	cs_agree "after the upgrade"
}

reload() {
	local out rc before

	# Reload: a filter the save does not name is left alone, and the
	# filters go on dropping while the saved ones are put back.
	out=$(cfctl create other hook output capacity 1000 2>&1 &&
		cfctl add -f $E/other.list other 2>&1)
	rc=$?
	check "a filter not in the save (other, 300 entries)" "$out" test $rc = 0
	items other >"$ST/other.items"
	# (the client's namespace and counters: set up earlier in this boot)
	before=$(counter 5000)
	ip netns exec $NS "${PY[@]}" stream --dst $HOST --sport 40000 \
		--dport 5000 --rate 50 --time 30 --stop /run/lc-stop >/dev/null &
	local pid=$!
	sleep 2
	out=$(systemctl reload $UNIT 2>&1)
	rc=$?
	sleep 1
	touch /run/lc-stop
	wait $pid
	if [ $rc = 0 ] && systemctl is-active -q $UNIT; then
		ok "systemctl reload $UNIT succeeds, the unit stays active"
	else
		not_ok "systemctl reload $UNIT succeeds, the unit stays active" \
			"status $rc: $out" "$(unit_state)" "$(unit_log)"
	fi
	entries_back "after a reload, the filter not in the save" other
	entries_back "after a reload, the saved filters" big small
	out=$(( $(counter 5000) - before ))
	check "big dropped its flow all through the reload (a stream of 50/s)" \
		"$out datagrams of the dropped flow arrived" test "$out" = 0
	packets "after a reload"
	check "after a reload, fail2ban's filter (not in the save) still holds its ban" \
		"$(cfctl show f2b-$JAIL 2>&1)" f2b_banned
	cs_agree "after a reload"
}

stage_upgraded() {
	local v out rc

	v=$(module_version)
	check "after the reboot, the new module is loaded ($(cat $LC/newversion))" \
		"loaded: '$v'" test "$v" = "$(cat $LC/newversion)"
	unit_active "after the upgrade's reboot"
	entries_back "after the upgrade's reboot" big small other
	pkt_setup && packets "after the upgrade's reboot"
	cs_agree "after the upgrade's reboot"

	# A save with base64 flipped in a load line: stopped first, so that
	# the shutdown saves nothing over it.
	out=$(systemctl stop $UNIT 2>&1)
	check "systemctl stop $UNIT saves the filters" "$out" test -s $SAVE
	cp $SAVE "$ST/good.save"
	out=$(python3 - $SAVE 2>&1 <<-'EOF'
	import sys
	p = sys.argv[1]
	lines = open(p).read().split("\n")
	for i, l in enumerate(lines):
	    w = l.split(" ")
	    if w[0] == "load" and len(w) == 4 and len(w[3]) > 64:
	        b = list(w[3])
	        for j in range(16, 48, 3):
	            b[j] = "A" if b[j] != "A" else "B"
	        w[3] = "".join(b)
	        lines[i] = " ".join(w)
	        break
	else:
	    sys.exit("no load line of base64 to corrupt")
	open(p, "w").write("\n".join(lines))
	EOF
	)
	rc=$?
	check "the save is corrupted: base64 flipped in a load line" "$out" test $rc = 0
	sha256sum $SAVE >"$ST/bad.sha"
}

# A start of the unit with a save it must refuse: nothing of it restored.
refused() {	# WHAT WHEN
	local f bad=

	unit_failed " $2 with $1"
	for f in big small other; do
		exists $f && bad="$bad $f"
	done
	check "$1: refused whole $2, no filter of it created" \
		"created:$bad" test -z "$bad"
	check "$1: the file is kept unchanged" "$(sha256sum $SAVE 2>&1)" \
		sha256sum -c --quiet "$ST/bad.sha"
}

# The boot with a corrupted save, then the same unit started with a
# truncated one (one boot for both: what is checked is the unit's start,
# which a boot and `systemctl start` run alike), then the power cut.
stage_corrupt() {
	local at out

	refused "a corrupted save" "at boot"
	# (no save restored: the adapter made its filter again from its state)
	cs_agree "after a boot that refused the save"
	# (a unit that took the save would write the filters over the next
	# one at shutdown: stopped first)
	if systemctl is-active -q $UNIT; then
		out=$(systemctl stop $UNIT 2>&1) || diag "systemctl stop: $out"
	fi
	# Truncated at a line boundary: the last filter's create line and all
	# after it cut, so that what is left looks whole.

	at=$(grep -n '^create ' "$ST/good.save" | tail -n 1 | cut -d: -f1)
	if [ -n "$at" ] && [ "$at" -gt 1 ]; then
		head -n $((at - 1)) "$ST/good.save" >$SAVE
		ok "the save is truncated before its last filter (line $at of $(wc -l <"$ST/good.save"))"
	else
		not_ok "the save is truncated before its last filter" "create lines at: $at"
	fi
	sha256sum $SAVE >"$ST/bad.sha"
	# The unit is failed, not active: starting it runs no save first.
	out=$(systemctl start $UNIT 2>&1)
	diag "systemctl start: $out"
	refused "a truncated save" "after systemctl start"
	powercut_prepare
}

# The good save put back, then a save with the power cut in the middle.
powercut_prepare() {
	local out t0 tmp size rc

	cp "$ST/good.save" $SAVE
	out=$(systemctl restart $UNIT 2>&1)
	check "the good save put back, systemctl restart $UNIT restores it" \
		"$out $(unit_state) $(unit_log)" systemctl is-active -q $UNIT
	entries_back "the good save put back" big small other

	# A big filter (a table of 12 MB, none of it zero: 16 MB of base64),
	# so that a save takes seconds, saved once and synced (the old save),
	# then changed and saved again with the power cut in the middle.
	t0=$SECONDS
	out=$(cfctl create huge capacity 8M nogrow hook output 2>&1 &&
		cfctl add -f $E/big.list huge 2>&1)
	rc=$?
	check "a filter huge of capacity 8M, 120,000 entries ($((SECONDS - t0)) s)" \
		"$out $(free -m)" test $rc = 0
	cp $E/big.list $E/huge.list
	items huge >"$ST/huge.items"
	t0=$SECONDS
	out=$(cfctl save -f $SAVE 2>&1)
	rc=$?
	check "cfctl save -f of the filters ($(du -m $SAVE | cut -f1) MB, $((SECONDS - t0)) s)" \
		"$out" test $rc = 0
	sync
	sha256sum $SAVE >"$ST/old.sha"
	echo "udp 10.9.9.9:9 10.9.9.8:8" >"$ST/huge.new"
	cfctl add -f "$ST/huge.new" huge
	sync "$ST"/*
	cfctl save -f $SAVE &
	local pid=$! f
	# In the middle: the new file is there, under its temporary name
	# (filters.save.XXXXXX), and the save not finished.  (Globs, no
	# process a poll: each costs a tenth of a second here.)
	tmp=
	t0=$SECONDS
	while [ -z "$tmp" ] && [ $((SECONDS - t0)) -lt 60 ] && kill -0 $pid 2>/dev/null; do
		for f in /var/lib/nf-cuckoo/filters.save.??????; do
			[ -s "$f" ] && tmp=$f
		done
		[ -n "$tmp" ] || sleep 0.05
	done
	size=$(stat -c %s "$tmp" 2>/dev/null)
	if [ -n "$tmp" ] && kill -0 $pid 2>/dev/null; then
		ok "the power is cut while cfctl save writes ${tmp##*/} ($size bytes so far)"
	else
		not_ok "the power is cut while cfctl save writes its file" \
			"temporary file: '$tmp' ($size bytes); the save $(kill -0 $pid 2>/dev/null && echo runs || echo ended)" \
			"$(ls -la /var/lib/nf-cuckoo)"
	fi
	ACTION='kill'
}

stage_powercut() {
	local why which

	if sha256sum -c --quiet "$ST/old.sha" 2>/dev/null; then
		which=old
		ok "after the power cut, the save on disk is the old one, whole"
	elif why=$(save_complete $SAVE); then
		which=new
		ok "after the power cut, the save on disk is the new one, complete"
	else
		which=
		not_ok "after the power cut, the save on disk is the old or the new one, complete" \
			"$why" "$(ls -la /var/lib/nf-cuckoo)"
	fi
	[ "$which" = new ] && cp "$ST/huge.new" "$ST/huge.added" &&
		echo $(($(cat "$ST/huge.items") + 1)) >"$ST/huge.items"
	diag "$(ls -la /var/lib/nf-cuckoo)"
	unit_active "after the power cut"
	entries_back "after the power cut (the ${which:-unknown} save)" big small other huge
	pkt_setup && packets "after the power cut"
	cs_agree "after the power cut"
	cs_packets "after the power cut"
	ACTION=poweroff
}

# ---- run ------------------------------------------------------------------

up=$(cut -d' ' -f1 /proc/uptime)
mu=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
echo "NFCLC-UP $STAGE $up $(awk -v u="$mu" 'BEGIN { printf "%.1f", u / 1e6 }')"
diag "$(unit_times nf-cuckoo.service fail2ban.service crowdsec.service crowdsec-custom-bouncer.service)"
diag "$(boot_times)"
if [ "$(type -t "stage_$STAGE")" = function ]; then
	"stage_$STAGE"
else
	not_ok "no such stage '$STAGE'"
	ACTION=poweroff
fi
echo "NFCLC-DONE $STAGE $ACTION $SECONDS"
case $ACTION in
reboot) systemctl --no-block reboot ;;
poweroff) systemctl --no-block poweroff ;;
kill)
	echo NFCLC-KILL
	sleep 120
	echo "not ok - $STAGE: the host cut the power within 120 s"
	systemctl --no-block poweroff ;;
esac
exit 0
