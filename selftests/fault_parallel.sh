#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Many cfctl processes at once: W workers (default 8) run in parallel, each
# R rounds (default 2) of: a restore stream adding N entries (default 500)
# to a shared filter and the same to a filter of its own, some of them
# twice in the shared one (two copies); a restore stream deleting half of
# them and one copy of each twice-added entry; `test` of the other half in
# both filters; `show` of its own filter; and for half of the workers a
# `set` of the shared filter's action.  The workers' keys are disjoint, so
# every serial order of the operations gives each worker the same
# answers: every restore applies everything, every test finds every
# remaining entry, its own filter's count is exact after each round.  At
# the end both kinds of filter hold exactly what must remain (counts add
# up, nothing lost) and nothing that was deleted.  Fingerprints of 32 bits
# and fixed seeds: "absent" answers cannot be false positives.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"
W=${NFC_PAR_WORKERS:-8}
R=${NFC_PAR_ROUNDS:-2}
N=${NFC_PAR_ENTRIES:-500}
DUP=20
plan 6

TMP=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; rm -rf "$TMP"' EXIT
kmsg_mark

for ((i = 0; i < W; i++)); do
	echo "create p$i capacity 10000 fingerprint 32 seed 2 action count"
done >"$TMP/create"
check "create the shared filter and $W filters of one worker each" eval '
	"$CFCTL" create sh capacity 100000 fingerprint 32 seed 1 action count &&
	"$CFCTL" restore -f "$TMP/create"'

# Every worker's files in one awk run: entry k of round r of worker i is
# udp 10.(100+i).(2r+k/256).(k%256):(1000+k) -> 10.200.0.1:53.
awk -v W="$W" -v R="$R" -v N="$N" -v DUP="$DUP" -v dir="$TMP" 'BEGIN {
	for (i = 0; i < W; i++) for (r = 1; r <= R; r++) {
		base = dir "/" i "." r
		for (k = 0; k < N; k++) {
			e = sprintf("udp 10.%d.%d.%d:%d 10.200.0.1:53", 100 + i,
				    2 * r + int(k / 256), k % 256, 1000 + k)
			print "add sh " e > (base ".add")
			print "add p" i " " e > (base ".add")
			if (k % 2) {
				print e > (base ".keep")
				print e > (dir "/" i ".keep")
				if (k < 2 * DUP) {
					print "add sh " e > (base ".add")
					print "del sh " e > (base ".del")
				}
			} else {
				print "del sh " e > (base ".del")
				print "del p" i " " e > (base ".del")
				print e > (dir "/" i ".gone")
			}
		}
	}
}'
for ((i = 0; i < W; i++)); do
	cat "$TMP/$i.keep" >>"$TMP/all.keep"
	cat "$TMP/$i.gone" >>"$TMP/all.gone"
done

# worker I: its rounds; a line "FAIL ..." for anything unexpected, a line
# "OPS n" with the entries it sent.
worker() {
	local i=$1 r out ops=0 want

	fail() {
		echo "FAIL worker $i round $r: $*"
	}
	for ((r = 1; r <= R; r++)); do
		out=$("$CFCTL" restore -f "$TMP/$i.$r.add" 2>&1) ||
			fail "restore (adds): $out"
		out=$("$CFCTL" restore -f "$TMP/$i.$r.del" 2>&1) ||
			fail "restore (deletes): $out"
		out=$("$CFCTL" test -f "$TMP/$i.$r.keep" sh 2>&1) ||
			fail "test sh: $out"
		out=$("$CFCTL" test -f "$TMP/$i.$r.keep" p$i 2>&1) ||
			fail "test p$i: $out"
		want=$((r * N / 2))
		out=$("$CFCTL" show p$i 2>&1)
		[[ $out =~ Items:\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = $want ] ||
			fail "p$i holds not $want entries: $out"
		if ((i % 2)); then
			"$CFCTL" set sh action "$( ((r % 2)) && echo drop || echo count)" ||
				fail "set sh"
		fi
		# 2N + DUP adds, N + DUP deletes, 2 x N/2 tests
		ops=$((ops + 4 * N + 2 * DUP))
	done
	# Its own filter holds exactly what remains, nothing deleted.
	out=$("$CFCTL" test -f "$TMP/$i.keep" p$i 2>&1) || fail "final test: $out"
	out=$("$CFCTL" test -f "$TMP/$i.gone" p$i 2>&1)
	[[ $out == *" 0 of "* ]] || fail "deleted entries still in p$i: $out"
	echo "OPS $((ops + R * N))"
}

start=$(now)
for ((i = 0; i < W; i++)); do
	worker $i >"$TMP/w$i.log" 2>&1 &
	PIDS+=($!)
done
wait "${PIDS[@]}"
PIDS=()
secs=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
ops=$(awk '/^OPS / { n += $2 } END { print n + 0 }' "$TMP"/w*.log)
fails=$(cat "$TMP"/w*.log | grep -v '^OPS ')
diag "$W workers x $R rounds: $ops entry operations in ${secs}s"
[ -z "$fails" ] && ok "every reply of every worker was the one any serial order gives ($ops entry operations)" ||
	not_ok "every reply of every worker was the one any serial order gives" "$fails"

want=$((W * R * N / 2))
n=$(jfield sh 'f["stats"]["items"]')
[ "$n" = "$want" ] && ok "the shared filter holds exactly $want entries" ||
	not_ok "the shared filter holds exactly $want entries" "it holds $n"
expect "every entry that must remain is in the shared filter (none lost)" 0 \
	" $want of $want entries present" "$CFCTL" test -f "$TMP/all.keep" sh
expect "and none of the $want deleted ones" 1 " 0 of $want entries present" \
	"$CFCTL" test -f "$TMP/all.gone" sh
check_klog
finish
