#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fail2ban's rule form (contrib/fail2ban/action.d/nf-cuckoo-iptables.conf):
# Debian's fail2ban-server runs in server s, in the foreground, a jail on
# UDP port 5001 with the action that iptables-ipset's users would pick,
# over Debian's own iptables.conf.  Clients a (10.0.0.1, fd00::1) and c
# (10.0.1.1) send UDP to s, on ports 5001 and 5002.  Five failures of a's
# addresses ban them: the action makes one filter a family (f2b-nfr,
# family ip, and f2b-nfr6, ip6), each with no hook of its own, and puts
# the jail's rule in s's INPUT chain with iptables and ip6tables (nft
# back end, Debian's default).  a's datagrams to 5001 are rejected, to
# 5002 they pass, c's pass; the filters cannot be destroyed under their
# rules; unbanning a's IPv4 address lets it through; fail2ban's stop takes
# the rules away, then the filters.

. "$(dirname "$0")/pktlib.sh"
. "$(dirname "$0")/f2blib.sh"
require_env
command -v fail2ban-server >/dev/null ||
	bail "fail2ban-server is missing (scripts/deps.sh installs fail2ban)"
[ -r /etc/fail2ban/action.d/iptables.conf ] ||
	bail "no /etc/fail2ban/action.d/iptables.conf (Debian's fail2ban)"
plan 9

# fail2ban's commands inherit XTABLES_LIBDIR.
trap 'cleanup; xt_unload' EXIT
xt_load

topo_clients

# Counted at s's input after the jail's rule: iptables-nft's INPUT chain
# (table ip filter) is at priority 0, this one at 10.
nft_load s <<EOF
table inet t {
	counter a4 {}
	counter a6 {}
	counter p4 {}
	counter c4 {}
	chain in {
		type filter hook input priority 10;
		ip saddr $A4 udp dport 5001 counter name a4
		ip6 saddr $A6 udp dport 5001 counter name a6
		ip saddr $A4 udp dport 5002 counter name p4
		ip saddr $C4 udp dport 5001 counter name c4
	}
}
EOF

f2b_config nfr INFO "/etc/fail2ban/action.d/iptables.conf $REPO/contrib/fail2ban/action.d/nf-cuckoo-iptables.conf" \
	"findtime = 600" "bantime = 3600" \
	"action = nf-cuckoo-iptables[port=5001, protocol=udp, cfctl=\"$CFCTL\", helper=\"$REPO/contrib/fail2ban/nf-cuckoo-fail2ban\", statedir=\"$F2B/state\"]"
jail_up() { f2b status nfr >/dev/null; }
has() { cf s test "$1" src "$2" >/dev/null 2>&1; }
# send: 5 datagrams each from a (IPv4 and IPv6 to 5001, IPv4 to 5002)
# and from c; DA4 DA6 DP4 DC4 get how many of each arrived.
send() {
	counters s
	local a4=${CNT[a4]} a6=${CNT[a6]} p4=${CNT[p4]} c4=${CNT[c4]}
	pktr a seq "udp --dst $S4A --sport 4001 --dport 5001 -n 5" \
		"udp --dst $S6A --sport 4001 --dport 5001 -n 5" \
		"udp --dst $S4A --sport 4001 --dport 5002 -n 5"
	pktr c seq "udp --dst $S4C --sport 4001 --dport 5001 -n 5"
	counters s
	DA4=$((CNT[a4] - a4)) DA6=$((CNT[a6] - a6)) DP4=$((CNT[p4] - p4))
	DC4=$((CNT[c4] - c4))
}
# rule4 / rule6: the jail's rule as iptables-save and ip6tables-save
# print it, counted.
rule4() { ns s iptables-save -t filter | grep -c -- '^-A INPUT -p udp -m udp --dport 5001 -m cuckoo --filter f2b-nfr -j REJECT'; }
rule6() { ns s ip6tables-save -t filter | grep -c -- '^-A INPUT -p udp -m udp --dport 5001 -m cuckoo --filter f2b-nfr6 -j REJECT'; }

f2b_start
until_ok 120 jail_up || f2b_failed_start

fail $A4
fail $A6
until_ok 60 has f2b-nfr $A4 && until_ok 30 has f2b-nfr6 $A6
check_all "five failures: the action made f2b-nfr (ip) and f2b-nfr6 (ip6), hook none, each holding a's address" \
	"$(fstat s f2b-nfr '[.family, .hook, .stats.items] | join(" ")')" = "ip none 1" \
	"$(fstat s f2b-nfr6 '[.family, .hook, .stats.items] | join(" ")')" = "ip6 none 1"
check_all "the jail's rule is in s's INPUT chain, with iptables and ip6tables" \
	"$(rule4)" = 1 "$(rule6)" = 1
send
check_all "banned: a's datagrams to the jail's port rejected (IPv4, IPv6); to 5002 and c's pass" \
	"$DA4" = 0 "$DA6" = 0 "$DP4" = 5 "$DC4" = 5
check_all "each filter is used by 1 iptables rule, which counted a's datagrams" \
	"$(fstat s f2b-nfr .rules)" = 1 "$(fstat s f2b-nfr6 .rules)" = 1 \
	"$(fstat s f2b-nfr .stats.packets.rules.matches)" -ge 5
cfr s destroy f2b-nfr
check_all "a filter its rule uses cannot be destroyed (EBUSY, status 3)" \
	"$RC" = 3 "$(grep -c 'in use by' <<<"$OUT")" = 1

f2b set nfr unbanip $A4 >/dev/null
until_ok 30 eval '! has f2b-nfr $A4'
send
check_all "unbanip $A4: out of f2b-nfr, a's IPv4 arrives, IPv6 still rejected" \
	"$(fstat s f2b-nfr .stats.items)" = 0 "$DA4" = 5 "$DA6" = 0

f2b stop >/dev/null
until_ok 60 eval '! kill -0 $F2B_PID 2>/dev/null'
check_all "fail2ban stopped: its rules are gone, then its filters (no EBUSY)" \
	"$(rule4)" = 0 "$(rule6)" = 0 "$(cf s list -n | grep -c '^f2b-nfr')" = 0 \
	"$(grep -c 'in use by' "$F2B/fail2ban.log")" = 0
send
check_all "after the stop, a's datagrams arrive again" \
	"$DA4" = 5 "$DA6" = 5
check_eq "no BUG, WARNING or Oops in the kernel log" "$(oopses)" ""
finish
