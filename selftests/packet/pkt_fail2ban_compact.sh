#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fail2ban's unbans in a filter that grew (issue 31, point 10): a filter
# of several stages refuses to delete an entry that more than one stage
# answers for ("ambiguous"), and the action (contrib/fail2ban) then
# rebuilds it from its record of the bans, less that address, into one
# stage (`cfctl compact`), so that every unban applies.
#
# A jail whose filter was made for 1,000 addresses holds 8,000 (four
# stages): they are put in through the action's own program
# (nf-cuckoo-fail2ban ban, 4,000 a call), since fail2ban runs one command
# a ban and 8,000 bans through fail2ban-server would take most of an
# hour in the emulated VM (0.2 s or more for each program started).
# Then, through fail2ban-client, 10 addresses are banned and unbanned:
# 6 fresh ones and 4 that the grown filter already
# answers for (false positives of one of its old stages: such an address,
# once added to the newest stage, is in two stages, and its delete is
# refused as ambiguous, as about 0.2% of the deletes of any address are).
# Every unban must apply: fail2ban holds no ban, the filter holds exactly
# the 8,000 (its item count, each of them present, the action's record
# the same list), the 10 test absent (but for a false positive or two),
# no unban failed, and the filter has one stage.

. "$(dirname "$0")/pktlib.sh"
. "$(dirname "$0")/f2blib.sh"
require_env
command -v fail2ban-server >/dev/null ||
	bail "fail2ban-server is missing (scripts/deps.sh installs fail2ban)"
"$CFCTL" help compact 2>/dev/null | grep -q "compact -f LIST NAME" ||
	bail "$CFCTL has no compact verb, which the action needs"
plan 9

# (fail2ban runs the action's program once a ban and once an unban: 0.3 s
# each here, 1.3 s a ban or unban through fail2ban-client: so the fresh
# ones are few; the ambiguous ones are the point, and the first of them
# compacts the filter, after which the others are plain deletes)
N=8000 NAMB=4 NNEW=6
mkns s

FILTER=f2b-nfcf
STATEDIR=$F2B/state
HELPER=$REPO/contrib/fail2ban/nf-cuckoo-fail2ban
# DEBUG: fail2ban logs a command's stderr only when it fails, or at DEBUG.
f2b_config nfcf DEBUG "$REPO/contrib/fail2ban/action.d/nf-cuckoo.conf" "bantime = 1d" \
	"action = nf-cuckoo[capacity=1000, cfctl=\"$CFCTL\", helper=\"$HELPER\", statedir=\"$STATEDIR\"]"
jail_up() { f2b status nfcf >/dev/null; }
banned() { f2b status nfcf | sed -n 's/.*Banned IP list:[[:space:]]*//p'; }
items() { fstat s "$FILTER" .stats.items; }
stages() { fstat s "$FILTER" '.stages | length'; }
# addrs N FIRST-OCTETS: N addresses from FIRST-OCTETS.0.0 on, one a line.
addrs() {
	awk -v n="$1" -v a="$2" 'BEGIN { for (i = 0; i < n; i++)
		printf "10.%d.%d.%d\n", a + int(i / 65536), int(i / 256) % 256, i % 256 }'
}

f2b_start
until_ok 120 jail_up || f2b_failed_start

# The $N, through the action's program: the filter and the record.
addrs $N 64 >"$SCRATCH/held"
t0=$SECONDS
ns s xargs -n 4000 "$HELPER" -c "$CFCTL" -s "$STATEDIR" ban "$FILTER" \
	<"$SCRATCH/held" || bail "could not put the $N addresses in $FILTER"
diag "$N addresses put in by the action's program in $((SECONDS - t0)) s"
check_all "a filter made for 1,000 holds $N bans: it grew to more than one stage" \
	"$(items)" = $N "$(stages)" -gt 1

# Addresses the grown filter answers for without holding them.
addrs 20000 96 >"$SCRATCH/cands"
cf s test -v -f "$SCRATCH/cands" "$FILTER" 2>/dev/null |
	sed -n 's/^line [0-9]*: \([^ ]*\) is in .*/\1/p' | head -$NAMB >"$SCRATCH/amb"
[ "$(wc -l <"$SCRATCH/amb")" = $NAMB ] ||
	bail "fewer than $NAMB false positives among 20,000 addresses: $(cat "$SCRATCH/amb")"
addrs $NNEW 128 >"$SCRATCH/new"
cat "$SCRATCH/amb" "$SCRATCH/new" | shuf >"$SCRATCH/bans"

t0=$SECONDS
mapfile -t BANS <"$SCRATCH/bans"
f2b set nfcf banip "${BANS[@]}" >/dev/null
diag "$((NAMB + NNEW)) bans through fail2ban-client in $((SECONDS - t0)) s"
check_all "fail2ban bans $((NAMB + NNEW)) more, each added once" \
	"$(banned | wc -w)" = $((NAMB + NNEW)) "$(items)" = $((N + NAMB + NNEW))

t0=$SECONDS
# (a file, not <(...): the VM has no /dev/fd)
shuf "$SCRATCH/bans" >"$SCRATCH/unbans"
mapfile -t BANS <"$SCRATCH/unbans"
f2b set nfcf unbanip "${BANS[@]}" >/dev/null
diag "$((NAMB + NNEW)) unbans through fail2ban-client in $((SECONDS - t0)) s"
check_all "every unban applies: fail2ban holds no ban, the filter exactly the $N" \
	"$(banned | wc -w)" = 0 "$(items)" = $N \
	"$(grep -cE 'Failed to execute unban|Unban is impossible' "$F2B/fail2ban.log")" = 0
ns s "$HELPER" -s "$STATEDIR" list "$FILTER" | sort >"$SCRATCH/record"
sort "$SCRATCH/held" >"$SCRATCH/held.sorted"
check_eq "the action's record holds exactly the $N" \
	"$(cmp "$SCRATCH/record" "$SCRATCH/held.sorted" && echo same)" same
cfr s test -f "$SCRATCH/held" "$FILTER"
check_eq "each of the $N tests present" "$RC $OUT" "0 $FILTER: $N of $N entries present (probably), 0 absent"
absent=$(cf s test -f "$SCRATCH/bans" "$FILTER" 2>/dev/null |
	sed -n 's/.*, \([0-9]*\) absent$/\1/p')
check_ge "the $((NAMB + NNEW)) unbanned test absent (but for a false positive or two)" \
	"$absent" $((NAMB + NNEW - 3))
n=$(grep -c "was ambiguous in a filter that grew: compacted" "$F2B/fail2ban.log")
diag "ambiguous unbans that compacted the filter: $n"
check_all "an ambiguous unban compacted the filter: it has one stage" \
	"$n" -ge 1 "$(stages)" = 1

f2b stop >/dev/null
until_ok 60 eval '! kill -0 $F2B_PID 2>/dev/null'
check_all "fail2ban stopped: no filter left behind" \
	"$(cf s list -n | grep -c .)" = 0
check_eq "no BUG, WARNING or Oops in the kernel log" "$(oopses | wc -l)" 0
