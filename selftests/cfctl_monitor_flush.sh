#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# STAGE and LOAD_HIGH events of adds that race with flushes (issue 30).
# An add that grew a filter sends a STAGE event for each new stage, with
# the stage described (its STAGE nest), and LOAD_HIGH with its newest
# stage's; those are built after the batch dropped the filter's lock.  A
# FLUSH from another socket in between drops the stages: the events
# must still describe them, not hit WARN_ON_ONCE in nfcf_event_end() and
# vanish (a lost event number: "lost N events" to every listener, which
# must mean that the listener read too slowly, nothing else).
#
# A filter keyed on src, capacity 100 factor 2 stages 8; `cfctl monitor
# -j` listens (a buffer of 32 MiB).  For NFC_MONFLUSH_SECONDS (default 5)
# one process adds the same 3000 sources again and again (nfc_nl.py
# addloop: from one stage, 4 STAGE events and a LOAD_HIGH one, the fifth
# stage 1500 of 1600 full), while two others flush the filter every 2
# ms, each from its own socket (nfc_nl.py flushloop).  Pass: all three
# ran without an error; the monitor printed STAGE and LOAD_HIGH events
# (the race ran), no "lost" line, and every STAGE and LOAD_HIGH event
# carries its stage's description, consistent with its index (capacity
# 100 * 2^index, fingerprint 12 + index bits); the kernel log has no
# WARNING.  The unfixed module warns once (WARN_ON_ONCE in
# nfcf_event_end()) and loses an event number in about every other add.
# TAP output.

. "$(dirname "$0")/lib.sh"
require_env
command -v python3 >/dev/null || skip_all "python3 missing"
isolate "$@"

SECS=${NFC_MONFLUSH_SECONDS:-5}
# 3000 sources in stages of 100, 200, 400, 800 and 1600: the last one
# 1500 of 1600 (93.75%), past the LOAD_HIGH mark (90%).
N=3000
CAP=${NFC_MONFLUSH_CAP:-100}
FACTOR=${NFC_MONFLUSH_FACTOR:-2}
FLUSHERS=${NFC_MONFLUSH_FLUSHERS:-2}
IVL=${NFC_MONFLUSH_INTERVAL:-0.002}
NFCNL=$SELFTESTS/nfc_nl.py
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	[ ${#PIDS[@]} -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

plan 6
kmsg_mark

# A buffer of 32 MiB: thousands of events a second must not overrun it.
"$CFCTL" monitor -j rcvbuf 33554432 >"$TMP/mon" 2>"$TMP/mon.err" &
MON=$!
PIDS+=("$MON")
# joined: make probe events until the monitor shows one (30 s at most).
joined() {
	local i
	for i in $(seq 1 60); do
		"$CFCTL" create "probe$i" family ip key src capacity 1 >/dev/null 2>&1
		"$CFCTL" destroy "probe$i" >/dev/null 2>&1
		grep -q probe "$TMP/mon" && return 0
		sleep 0.5
	done
	return 1
}
joined && ok "cfctl monitor -j joined the events group" ||
	bail "the monitor did not join: $(cat "$TMP/mon.err")"

check "create a growing filter keyed on src (capacity $CAP factor $FACTOR stages 8)" \
	"$CFCTL" create g family ip key src capacity $CAP factor $FACTOR stages 8 seed 9

t0=$(now)
{ "$NFCNL" addloop g "$SECS" $N; echo "STATUS $?"; } >"$TMP/adder" 2>&1 &
PIDS+=($!)
for ((i = 0; i < FLUSHERS; i++)); do
	{ "$NFCNL" flushloop g "$SECS" $IVL; echo "STATUS $?"; } >"$TMP/flusher.$i" 2>&1 &
	PIDS+=($!)
done
wait "${PIDS[@]:1}"
diag "they ran $(elapsed "$t0") s"
nfl=$(awk '/^flushes/ { n += $2 } END { print n + 0 }' "$TMP"/flusher.*)
if grep -qx 'STATUS 0' "$TMP/adder" &&
   [ "$(grep -lx 'STATUS 0' "$TMP"/flusher.* | wc -l)" = "$FLUSHERS" ]; then
	ok "meanwhile: $(head -1 "$TMP/adder") of $N entries; $nfl flushes from $FLUSHERS other sockets"
else
	not_ok "adds of $N entries and flushes from other sockets meanwhile" \
		"adder: $(cat "$TMP/adder")" "flushers: $(cat "$TMP"/flusher.*)"
fi

# One last event after everything: when the monitor shows it, it has read
# all that came before.
"$CFCTL" destroy g
wait_until 30 grep -q '"event":"del","name":"g"' "$TMP/mon" ||
	diag "the monitor did not show the last event (del g)"
kill -TERM $MON
wait $MON
PIDS=()

# The events of g (after the probes): every STAGE and LOAD_HIGH event
# describes its stage, consistently with its index; no event lost.
python3 - "$TMP/mon" $CAP $FACTOR >"$TMP/res" 2>"$TMP/bad" <<'EOF'
import json, sys
stage = load = 0
cap, factor = int(sys.argv[2]), int(sys.argv[3])
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "lost":
        print("lost events: %s" % line.strip(), file=sys.stderr)
        continue
    if e.get("name") != "g" or e["event"] not in ("stage", "load-high"):
        continue
    i = e.get("stage")
    if e["event"] == "stage":
        stage += 1
    else:
        load += 1
    if i is None or "capacity" not in e:
        print("no stage index or description: %s" % line.strip(), file=sys.stderr)
    elif e["capacity"] != cap * factor ** i or e["fingerprint_bits"] != min(12 + i, 32):
        print("stage %d described as capacity %d fingerprint %d, want %d and %d: %s" %
              (i, e["capacity"], e["fingerprint_bits"], cap * factor ** i,
               min(12 + i, 32), line.strip()), file=sys.stderr)
print(stage, load)
EOF
read -r nstage nload <"$TMP/res"
[ "${nstage:-0}" -gt 0 ] && [ "${nload:-0}" -gt 0 ] && ok "the monitor got $nstage STAGE and $nload LOAD_HIGH events of the filter" ||
	not_ok "the monitor got STAGE and LOAD_HIGH events of the filter" "$(tail -5 "$TMP/mon")" "$(cat "$TMP/bad")"
nbad=$(grep -c . "$TMP/bad")
[ "$nbad" = 0 ] &&
	ok "no event lost; each STAGE and LOAD_HIGH event describes its stage (capacity $CAP * $FACTOR^index, fingerprint 12 + index)" ||
	not_ok "no event lost; each STAGE and LOAD_HIGH event describes its stage (capacity $CAP * $FACTOR^index, fingerprint 12 + index)" \
		"$nbad wrong:" "$(head -10 "$TMP/bad")"

check_klog
finish
