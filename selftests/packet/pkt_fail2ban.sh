#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fail2ban drives nf_cuckoo (contrib/fail2ban/action.d/nf-cuckoo.conf):
# Debian's fail2ban-server runs in server s, in the foreground, on a test
# configuration (a jail on a log file this test writes, polling backend,
# a short bantime, the nf-cuckoo action).  Clients a (10.0.0.1, fd00::1)
# and c (10.0.1.1) send UDP to s.  Five failures of a's addresses in the
# log ban them: a's packets are dropped at s, c's pass, and
# `fail2ban-client status` agrees with `cfctl test`.  A malformed address
# is logged with cfctl's reason and changes nothing else.  fail2ban
# restarted during the ban bans again from its database, with no second
# copy; a ban whose bantime ends leaves the filter, and a passes again
# once its bans are lifted.  The filter destroyed behind
# fail2ban's back (issue 31, point 9) is made again by the next ban
# (actionrepair) with every ban of the jail in it, once each, and an
# address banned again after that (fail2ban's reban) is not added twice.
# An unban that finds the filter gone repairs it and deletes the address,
# which the next repair then leaves out.  Stopping fail2ban destroys the
# filter, as the action says.

. "$(dirname "$0")/pktlib.sh"
. "$(dirname "$0")/f2blib.sh"
require_env
command -v fail2ban-server >/dev/null ||
	bail "fail2ban-server is missing (scripts/deps.sh installs fail2ban)"
plan 25

# The first bans must outlast a restart of fail2ban, a minute and a half
# in a busy emulated VM.
BANTIME=180
# Banned by hand, never sending.
X4=10.0.0.99 Y4=10.0.0.98 Z4=10.0.0.97
topo_clients

nft_load s <<EOF
table inet t {
	counter a4 {}
	counter a6 {}
	counter c4 {}
	chain in {
		type filter hook input priority 0;
		ip saddr $A4 udp dport 5001 counter name a4
		ip6 saddr $A6 udp dport 5001 counter name a6
		ip saddr $C4 udp dport 5001 counter name c4
	}
}
EOF

# The test configuration (f2blib.sh).
FILTER=f2b-nfcf
f2b_config nfcf INFO "$REPO/contrib/fail2ban/action.d/nf-cuckoo.conf" \
	"findtime = 600" "bantime = $BANTIME" \
	"action = nf-cuckoo[cfctl=\"$CFCTL\", helper=\"$REPO/contrib/fail2ban/nf-cuckoo-fail2ban\", statedir=\"$F2B/state\"]"
banned() { f2b status nfcf | sed -n 's/.*Banned IP list:[[:space:]]*//p'; }
is_banned() { banned | tr ' ' '\n' | grep -qx "$1"; }
jail_up() { f2b status nfcf >/dev/null; }
items() { fstat s "$FILTER" .stats.items; }
# send: 5 datagrams from a (IPv4 and IPv6) and from c; DA4 DA6 DC4 get
# how many of each arrived.
send() {
	counters s
	local a4=${CNT[a4]} a6=${CNT[a6]} c4=${CNT[c4]}
	pktr a seq "udp --dst $S4A --sport 4001 --dport 5001 -n 5" \
		"udp --dst $S6A --sport 4001 --dport 5001 -n 5"
	pktr c seq "udp --dst $S4C --sport 4001 --dport 5001 -n 5"
	counters s
	DA4=$((CNT[a4] - a4)) DA6=$((CNT[a6] - a6)) DC4=$((CNT[c4] - c4))
}
# agree: every address fail2ban says is banned tests present, c does not,
# and the filter holds as many entries as there are bans.
agree() {
	local ip list n=0

	list=$(banned)
	for ip in $list; do
		cfq s test "$FILTER" src "$ip" || return 1
		n=$((n + 1))
	done
	! cf s test "$FILTER" src $C4 >/dev/null 2>&1 && [ "$(items)" = "$n" ]
}

f2b_start
if until_ok 120 jail_up; then
	ok "fail2ban-server runs the jail with the nf-cuckoo action"
else
	f2b_failed_start
fi
check_all "actionstart made $FILTER: key src, family inet, input hook, drop" \
	"$(fstat s "$FILTER" '[(.key | join(",")), .family, .hook, .action] | join(" ")')" = "src inet input drop"

send
check_all "before any ban, a (IPv4, IPv6) and c get through" \
	"$DA4" = 5 "$DA6" = 5 "$DC4" = 5

fail $A4
fail $A6
if until_ok 60 is_banned $A4 && until_ok 30 is_banned $A6; then
	ok "five failures in the log: fail2ban bans $A4 and $A6"
else
	not_ok "five failures in the log: fail2ban bans $A4 and $A6" "banned: $(banned)"
fi
check "fail2ban-client status agrees with cfctl test" agree
send
check_all "banned: a's packets are dropped at s, c's get through" \
	"$DA4" = 0 "$DA6" = 0 "$DC4" = 5

# A malformed address reaches the action (fail2ban passes it on): cfctl
# refuses it, fail2ban logs why and goes on.
f2b set nfcf banip 10.0.0.300 >/dev/null
until_ok 20 grep -q "cfctl: add: .*bad address .10\.0\.0\.300" "$F2B/fail2ban.log"
check_all "a malformed address: logged with cfctl's reason, nothing else changed" \
	"$(grep -c "cfctl: add: .*bad address .10\.0\.0\.300" "$F2B/fail2ban.log")" -ge 1 \
	"$(items)" = 2 "$(f2b ping | grep -c pong)" = 1
# fail2ban keeps the address as banned all the same: lift it, as an admin
# would (the unban fails in cfctl too, and is logged).
f2b set nfcf unbanip 10.0.0.300 >/dev/null
until_ok 20 eval '[ "$(banned | wc -w)" = 2 ]'

# Restart during the ban: fail2ban stops (the filter goes), starts, bans
# again from its database.
f2b stop >/dev/null
until_ok 60 eval '! kill -0 $F2B_PID 2>/dev/null'
check_all "fail2ban stopped: its process is gone, and the filter with it" \
	"$(kill -0 $F2B_PID 2>/dev/null && echo running)" = "" \
	"$(cf s list -n | grep -cx "$FILTER")" = 0
f2b_start
until_ok 120 jail_up && until_ok 60 is_banned $A4 && until_ok 30 is_banned $A6
check_all "restarted: the bans come back from fail2ban's database, one copy each" \
	"$(banned | wc -w)" = 2 "$(items)" = 2
check "after the restart, status and cfctl test still agree" agree
send
check_all "after the restart a is dropped again, c gets through" \
	"$DA4" = 0 "$DA6" = 0 "$DC4" = 5

# The ban ends.  a's bans, long enough to outlast the restart, are lifted
# by hand (unbanip), as an admin would; a bantime's end is seen on a ban
# of its own, 15 s long (new bans take the jail's bantime of the moment),
# rather than waiting out a's.
f2b set nfcf bantime 15 >/dev/null
f2b set nfcf banip $Z4 >/dev/null
until_ok 20 eval '[ "$(items)" = 3 ]'
t_z=$SECONDS
zgone=0
until_ok 90 eval '! is_banned $Z4 && [ "$(items)" = 2 ]' && zgone=1
diag "$Z4's 15 s ban ended $((SECONDS - t_z)) s after it was applied"
f2b set nfcf unbanip $A4 $A6 >/dev/null
until_ok 30 eval '[ -z "$(banned)" ] && [ "$(items)" = 0 ]'
check_all "a bantime over: fail2ban unbans $Z4, the filter drops it; a's lifted by hand: the filter is empty" \
	"$zgone" = 1 "$(banned)" = "" "$(items)" = 0
send
check_all "unbanned: a gets through again" "$DA4" = 5 "$DA6" = 5 "$DC4" = 5

# The filter lost behind fail2ban's back (a module reload, a `cfctl
# destroy`): the next ban fails, fail2ban's check (actioncheck) finds no
# filter, and actionrepair makes it again with the bans the action had
# applied; the ban is then applied.  fail2ban itself does not ban again
# what it had banned before (it only starts a new ban epoch), so without
# the action's own record a's bans would be lost.  New bans take the
# jail's bantime of the moment: these last an hour, whatever the machine's
# speed.
f2b set nfcf bantime 3600 >/dev/null
f2b set nfcf banip $A4 $A6 >/dev/null
until_ok 20 eval '[ "$(items)" = 2 ]'
mark=$(wc -l <"$F2B/fail2ban.log")
cfq s destroy "$FILTER" || bail "cannot destroy $FILTER"
f2b set nfcf banip $X4 >/dev/null
until_ok 20 is_banned $X4
check_all "the filter destroyed: the next ban makes it again with the jail's 3 bans, once each, and succeeds" \
	"$(cf s list -n | grep -cx "$FILTER")" = 1 "$(banned | wc -w)" = 3 "$(items)" = 3 \
	"$(tail -n +$((mark + 1)) "$F2B/fail2ban.log" | grep -cE 'Unable to restore|Failed to execute ban')" = 0
check "after the repair, status and cfctl test agree" agree
send
check_all "after the repair, a's packets are dropped again, c's get through" \
	"$DA4" = 0 "$DA6" = 0 "$DC4" = 5
# After a repair fail2ban bans again (actionreban) an address it holds as
# banned when it is banned again (failures in the log, or by hand, which
# returns once the reban is done): the repair put it back already, so it
# must not get a second copy (its unban would leave one behind).
f2b set nfcf banip $A4 >/dev/null
check_all "$A4 banned again after the repair: fail2ban rebans it, the filter keeps one copy" \
	"$(grep -c "Reban $A4" "$F2B/fail2ban.log")" -ge 1 "$(items)" = 3
check "after the reban, status and cfctl test agree" agree

# An unban that finds the filter gone: fail2ban runs the repair for it too
# (actionrepair_on_unban), which puts back the bans the action had
# applied, and the unban then deletes its address.  Without it the unban
# is skipped ("Unban is impossible") and the next repair would bring the
# address back, banned for good behind fail2ban's back.
cfq s destroy "$FILTER" || bail "cannot destroy $FILTER"
f2b set nfcf unbanip $A6 >/dev/null
check_all "an unban with the filter gone: the filter is made again, without the address unbanned" \
	"$(cf s list -n | grep -cx "$FILTER")" = 1 "$(banned | wc -w)" = 2 "$(items)" = 2 \
	"$(is_banned $A6 && echo banned)" = ""
check "after that unban, status and cfctl test agree" agree
send
check_all "$A6 unbanned: a's IPv6 packets get through, its IPv4 ones are still dropped" \
	"$DA4" = 0 "$DA6" = 5 "$DC4" = 5
# And the next repair does not bring it back either.
cfq s destroy "$FILTER" || bail "cannot destroy $FILTER"
f2b set nfcf banip $Y4 >/dev/null
until_ok 20 is_banned $Y4
check_all "the next repair holds the 3 bans, not the address unbanned" \
	"$(banned | wc -w)" = 3 "$(items)" = 3 \
	"$(cf s test "$FILTER" src $A6 >/dev/null 2>&1 && echo present)" = ""
check "a missing filter never stopped fail2ban" eval '[ "$(f2b ping | grep -c pong)" = 1 ]'

f2b stop >/dev/null
until_ok 60 eval '! kill -0 $F2B_PID 2>/dev/null'
check_all "fail2ban stopped again: no filter left behind" \
	"$(kill -0 $F2B_PID 2>/dev/null && echo running)" = "" \
	"$(cf s list -n | grep -c .)" = 0
check_eq "no BUG, WARNING or Oops in the kernel log" "$(oopses | wc -l)" 0
