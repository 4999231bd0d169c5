#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Events: `cfctl monitor` (text) and `cfctl monitor -j` running in the
# background see exactly the events of create, add, del, set, flush,
# save + restore, destroy, an add that takes a filter to 90% of its
# capacity and one refused because it is full, a stage added when growth
# is turned on, with their counts and
# numbers (nlmsg_seq 1, 2, 3... without a gap); requests that change
# nothing send nothing.  A listener in another network namespace receives
# nothing of them; one without CAP_NET_ADMIN is refused.  A listener that
# reads too slowly (a 4 KiB buffer, stopped while 6,000 requests are
# made) loses events and says how many, exactly, and the writer is not
# held up by it.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
command -v ip >/dev/null || skip_all "ip (iproute2) missing"
isolate "$@"

TMP=$(mktemp -d)
chmod 755 "$TMP"
OTHER=cft-mon-$$
PIDS=()
cleanup() {
	local p

	for p in "${PIDS[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
	done
	ip netns del "$OTHER" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
ip netns add "$OTHER" || skip_all "cannot create network namespaces"

plan 21

# start FILE [CMD-PREFIX...] -- MONITOR ARGS: a monitor in the background.
start() {
	local out=$1
	shift
	"$@" >"$out" 2>"$out.err" &
	PIDS+=($!)
	LAST=$!
}

# joined FILE [IN-NS...]: make probe events until FILE shows one (the
# monitor has joined), at most 30 s.  Probe i is named probe$i, so that
# the first event a monitor sees, whichever probe's, says which number
# it must carry (2i - 1 for its new, 2i for its del).  The probes' own
# events are left out of every check below.
joined() {
	local file=$1 i
	shift
	for i in $(seq 1 60); do
		"$@" "$CFCTL" create "probe$i" family ip key src capacity 1 >/dev/null 2>&1
		"$@" "$CFCTL" destroy "probe$i" >/dev/null 2>&1
		grep -q probe "$file" && return 0
		sleep 0.5
	done
	return 1
}

start "$TMP/j" "$CFCTL" monitor -j
MJ=$LAST
start "$TMP/t" "$CFCTL" monitor
MT=$LAST
start "$TMP/o" ip netns exec "$OTHER" "$CFCTL" monitor -j
MO=$LAST
if joined "$TMP/j" && joined "$TMP/t" && joined "$TMP/o" ip netns exec "$OTHER"; then
	ok "three monitors joined (two here, one in another namespace)"
else
	bail "a monitor did not join: $(cat "$TMP"/*.err)"
fi
# Every probe's two events are through: wait for the last one's.
sleep 1

# The changes, each with the events it must send (JSON, after the probes).
"$CFCTL" create bl family ip key src capacity 1000 seed 1 action drop
"$CFCTL" add bl src 10.0.0.1 src 10.0.0.2 src 10.0.0.3
"$CFCTL" -exist add bl src 10.0.0.2 	# skipped: changes nothing
"$CFCTL" del bl src 10.0.0.1
"$CFCTL" del bl src 10.9.9.9 2>/dev/null	# refused: nothing
"$CFCTL" set bl action count
"$CFCTL" flush bl
"$CFCTL" add bl src 10.0.0.4
"$CFCTL" save bl >"$TMP/save"
"$CFCTL" destroy bl
"$CFCTL" restore -f "$TMP/save"
"$CFCTL" create tiny family ip key src capacity 10 seed 2 nogrow
"$CFCTL" add tiny src 10.1.0.1 src 10.1.0.2 src 10.1.0.3 src 10.1.0.4 \
	src 10.1.0.5 src 10.1.0.6 src 10.1.0.7 src 10.1.0.8
"$CFCTL" add tiny src 10.1.0.9 		# 9 of 10: load-high
"$CFCTL" add tiny src 10.1.0.10 		# past it: no second one
python3 -c 'print("\n".join("10.2.%d.%d" % (i // 256, i % 256) for i in range(1000)))' \
	>"$TMP/many"
"$CFCTL" add -f "$TMP/many" tiny 2>/dev/null	# full: refused whole
"$CFCTL" set tiny grow
"$CFCTL" add tiny src 10.3.0.1 		# at capacity: a stage first
"$CFCTL" destroy tiny
"$CFCTL" destroy bl
sleep 2

cat >"$TMP/want" <<'EOF'
new bl
add bl 3
del-entries bl 1
set bl
flush bl
add bl 1
del bl
restore bl
new tiny
add tiny 8
add tiny 1
load-high tiny 0 9 10
add tiny 1
full tiny
set tiny
stage tiny 1
add tiny 1
del tiny
del bl
EOF
# The JSON lines after the last probe's, as "event name [count|stage...]".
python3 - "$TMP/j" >"$TMP/got" 2>"$TMP/check" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
last = max(i for i, e in enumerate(lines)
           if e.get("name", "").startswith("probe"))
prev = None
for e in lines:
    if "seq" not in e:
        print("lost: %s" % e, file=sys.stderr)
        continue
    if prev is not None and e["seq"] != prev + 1:
        print("gap: seq %d after %d" % (e["seq"], prev), file=sys.stderr)
    prev = e["seq"]
for e in lines[last + 1:]:
    w = [e["event"], e.get("name", "-")]
    if "entries" in e:
        w.append(str(e["entries"]))
    if e["event"] == "load-high":
        w += [str(e["stage"]), str(e["items"]), str(e["capacity"])]
    if e["event"] == "stage":
        w.append(str(e["stage"]))
    f = e.get("filter")
    if e["event"] in ("new", "set", "restore"):
        if not f or f["name"] != e["name"] or "stats" in f or "seed" in f:
            print("bad description: %s" % e, file=sys.stderr)
        elif e["name"] == "bl" and (f["capacity"], f["key"], f["family"]) != (1000, ["src"], "ip"):
            print("wrong description: %s" % e, file=sys.stderr)
        elif e["name"] == "tiny" and e["event"] == "set" and not f["grow"]:
            print("wrong description: %s" % e, file=sys.stderr)
        elif e["name"] == "bl" and e["event"] in ("set", "restore") and f["action"] != "count":
            print("set/restore does not say action count: %s" % e, file=sys.stderr)
    print(" ".join(w))
EOF
if diff -u "$TMP/want" "$TMP/got" >"$TMP/diff"; then
	ok "monitor -j: exactly the events of the changes, in order, with their counts"
else
	not_ok "monitor -j: exactly the events of the changes, in order, with their counts" \
		"$(cat "$TMP/diff" "$TMP/check")"
fi
[ ! -s "$TMP/check" ] && ok "monitor -j: numbered 1, 2, 3... (no gap); new, set, restore describe the filter without stats" ||
	not_ok "monitor -j: numbered 1, 2, 3... (no gap); new, set, restore describe the filter without stats" \
		"$(cat "$TMP/check")"
# The JSON monitor joined first, in a namespace without events before:
# its first event, of probe i, is number 2i - 1 (new) or 2i (del), even
# if it joined after the first probes' events.
first=$(python3 -c '
import json, sys
e = json.loads(open(sys.argv[1]).readline())
i = int(e["name"][len("probe"):])
want = 2 * i - (e["event"] == "new")
print("ok" if e["seq"] == want else
      "seq %d of %s %s, want %d" % (e["seq"], e["event"], e["name"], want))
' "$TMP/j")
[ "$first" = ok ] && ok "the namespace's first event is number 1" ||
	not_ok "the namespace's first event is number 1" "first event: $first"

# The text monitor saw the same.
awk '/probe/ { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' \
	"$TMP/t" >"$TMP/tt"
tcheck() {	# DESC REGEX: a line of the text monitor (after the probes)
	grep -qE -- "$2" "$TMP/tt" && ok "monitor: $1" ||
		not_ok "monitor: $1" "want /$2/ in:" "$(cat "$TMP/tt")"
}
tcheck "new filter, with its parameters" \
	"^new filter bl family ip key src capacity 1000 fingerprint 12 bucket 4 kicks 500 hook prerouting priority -300 action drop grow factor 2 stages 8$"
tcheck "add N entries" "^add bl 3 entries$"
tcheck "del N entries" "^del bl 1 entry$"
tcheck "set, with the new action" "^set filter bl family ip .* action count grow factor 2 stages 8$"
tcheck "flush" "^flush bl$"
tcheck "restore" "^restore filter bl family ip key src capacity 1000 .*action count grow factor 2 stages 8$"
tcheck "load-high at 9 of capacity 10" "^load-high tiny stage 0 items 9 of capacity 10 \(90\.0%\)$"
tcheck "full" "^full tiny$"
tcheck "a stage, its capacity twice the first's and one bit more" \
	"^stage tiny 1 capacity 20 items 1 .*fingerprint 13 "
tcheck "del filter" "^del filter bl$"
[ "$(grep -vc probe "$TMP/t")" = 19 ] && ok "monitor: 19 lines besides the probes', one per event" ||
	not_ok "monitor: 19 lines besides the probes', one per event" "$(cat "$TMP/t")"

# The other namespace's monitor: its own probes only.
if [ -s "$TMP/o" ] && ! grep -vE '"name":"probe[0-9]+"' "$TMP/o" >/dev/null; then
	ok "a monitor in another namespace got none of these events"
else
	not_ok "a monitor in another namespace got none of these events" "$(cat "$TMP/o")"
fi

kill -TERM "$MJ" "$MT" "$MO"
rc=0
wait "$MJ" || rc=$?
wait "$MT" || rc=$?
[ "$rc" = 0 ] && ok "SIGTERM ends monitor with status 0" ||
	not_ok "SIGTERM ends monitor with status 0" "status $rc" "$(cat "$TMP"/*.err)"
PIDS=()

# Without CAP_NET_ADMIN: refused.
expect "without CAP_NET_ADMIN (capsh --drop) joining is refused" 3 \
	"needs CAP_NET_ADMIN" capsh --drop=cap_net_admin -- -c '"$@"' capsh \
	timeout 10 "$CFCTL" monitor
expect "as nobody (setpriv) joining is refused" 3 "needs CAP_NET_ADMIN" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	timeout 10 "$CFCTL" monitor

# A slow reader: a 4 KiB buffer, stopped while 6,000 add requests (lines
# alternating between two filters: one request each) are made.
"$CFCTL" create a family ip key src capacity 10000 seed 3
"$CFCTL" create b family ip key src capacity 10000 seed 4
python3 -c '
for i in range(3000):
    print("add a src 10.3.%d.%d" % (i // 256, i % 256))
    print("add b src 10.3.%d.%d" % (i // 256, i % 256))' >"$TMP/slow"
start "$TMP/s" "$CFCTL" monitor -j rcvbuf 4096
MS=$LAST
joined "$TMP/s" || bail "the slow monitor did not join: $(cat "$TMP/s.err")"
sleep 1
kill -STOP "$MS"
t0=$(now)
run timeout 300 "$CFCTL" restore -f "$TMP/slow"
took=$(elapsed "$t0")
[ "$RC" = 0 ] && ok "6,000 requests made in $took s while the listener was stopped (not blocked by it)" ||
	not_ok "6,000 requests made while the listener was stopped (not blocked by it)" \
		"status $RC after $took s" "$OUT"
kill -CONT "$MS"
sleep 2
"$CFCTL" flush a	# one more event: the gap before it is what was lost
sleep 2
kill -TERM "$MS"
wait "$MS"
PIDS=()
res=$(python3 - "$TMP/s" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
last = max(i for i, e in enumerate(lines)
           if e.get("name", "").startswith("probe"))
seen = lost = 0
unknown = False
for e in lines[last + 1:]:
    if e["event"] == "lost":
        if e["lost"] is None:
            unknown = True
        else:
            lost += e["lost"]
    else:
        seen += 1
print(seen, lost, seen + lost, unknown, lines[-1]["event"])
EOF
)
set -- $res
if [ "${3:-}" = 6001 ] && [ "$2" -gt 0 ] && [ "$4" = False ] && [ "$5" = flush ]; then
	ok "the slow listener got $1 events and was told it lost $2: 6,001 in all"
else
	not_ok "the slow listener got some events and was told exactly how many it lost" \
		"seen, lost, sum, unknown, last: $res" "$(grep -v '"add"' "$TMP/s" | tail -5)"
fi

finish
