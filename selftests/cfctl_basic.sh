#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cfctl: create, list, show, set, flush, destroy; text and JSON output.
# Runs as root wherever nf_cuckoo is loaded, in a network namespace of its
# own.  TAP output.

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

plan 28

run "$CFCTL" list
[ "$RC" = 0 ] && [ -z "$OUT" ] && ok "list in a fresh namespace prints nothing" ||
	not_ok "list in a fresh namespace prints nothing" "status $RC" "$OUT"

check "create with the defaults" "$CFCTL" create dflt
expect "create again: the kernel says the name is taken" 3 \
	"^cfctl: create: .*(exist|taken).*\(File exists\)" "$CFCTL" create dflt

expect "list shows it, as ipset list does" 0 \
	"Name: dflt" "$CFCTL" list
if grep -q "^Type: cuckoo family inet key src,dst,sport,dport,proto$" <<<"$OUT" &&
   grep -q "^Header: capacity 65536 fingerprint 12 bucket 4 kicks 500 fpr " <<<"$OUT" &&
   grep -q "^Hook: prerouting priority -300$" <<<"$OUT" &&
   grep -q "^Action: drop$" <<<"$OUT" &&
   grep -q "^Flags: enabled$" <<<"$OUT" &&
   grep -q "^Items: 0$" <<<"$OUT" &&
   grep -q "^Load: 0.00% " <<<"$OUT" &&
   grep -q "^Size in memory: [0-9]* bytes (table [0-9]*)$" <<<"$OUT" &&
   grep -q "^Bits per item: 12\.[0-9]* at capacity$" <<<"$OUT" &&
   grep -q "^Victim: free$" <<<"$OUT" &&
   grep -q "^Packets: lookups 0 matches 0 dropped 0 marked 0$" <<<"$OUT"; then
	ok "the defaults: inet, 5-tuple, 65536, 12 bits, bucket 4, prerouting, drop"
else
	not_ok "the defaults: inet, 5-tuple, 65536, 12 bits, bucket 4, prerouting, drop" "$OUT"
fi

check "create with every parameter" "$CFCTL" create every family ip key src,dst \
	capacity 1000 fingerprint 16 bucket 8 kicks 100 seed 42 hook input \
	priority -5 action mark 0x10/0xff invert disabled
got=$(jfield every '(f["family"], ",".join(f["key"]), f["capacity"], f["fingerprint_bits"], f["bucket_size"], f["max_kicks"], f["hook"], f["priority"], f["action"], f["mark"], f["mark_mask"], f["invert"], f["enabled"], f["bidirectional"], f["loading"])')
want="('ip', 'src,dst', 1000, 16, 8, 100, 'input', -5, 'mark', 16, 255, True, False, False, False)"
if [ "$got" = "$want" ]; then
	ok "show -j reports every parameter as given"
else
	not_ok "show -j reports every parameter as given" "got  $got" "want $want"
fi

check "create with a target false-positive rate" "$CFCTL" create byfpr fpr 0.0001 capacity 5000
got=$(jfield byfpr 'f["fpr"] <= 0.0001 and f["fingerprint_bits"] >= 17 and f["fpr_ppb"] <= 100000')
[ "$got" = True ] && ok "fpr 0.0001 picks a fingerprint whose bound is at most 1e-4" ||
	not_ok "fpr 0.0001 picks a fingerprint whose bound is at most 1e-4" \
		"$("$CFCTL" show byfpr 2>&1)"

check "create a bidirectional filter on both addresses and ports" \
	"$CFCTL" create bidir key src,dst,sport,dport,proto bidirectional action count
[ "$(jfield bidir 'f["bidirectional"], f["action"]')" = "(True, 'count')" ] &&
	ok "show says bidirectional, action count" ||
	not_ok "show says bidirectional, action count" "$("$CFCTL" show bidir 2>&1)"

run "$CFCTL" -j list
if python3 -c '
import json, sys
v = json.loads(sys.argv[1])
assert isinstance(v, list)
assert sorted(f["name"] for f in v) == ["bidir", "byfpr", "dflt", "every"]
for f in v:
    s = f["stats"]
    assert s["items"] == 0 and s["bytes"] >= s["table_bytes"] > 0
    assert s["slots"] == s["buckets"] * f["bucket_size"]
' "$OUT" 2>/dev/null; then
	ok "list -j: one JSON array of every filter, with stats"
else
	not_ok "list -j: one JSON array of every filter, with stats" "$OUT"
fi

run "$CFCTL" list -n
[ "$OUT" = "$(printf 'dflt\nevery\nbyfpr\nbidir')" ] &&
	ok "list -n: the names, in creation order" ||
	not_ok "list -n: the names, in creation order" "$OUT"

run "$CFCTL" list every byfpr
[ "$RC" = 0 ] && grep -q "^Name: every$" <<<"$OUT" && grep -q "^Name: byfpr$" <<<"$OUT" &&
	! grep -q "Name: dflt" <<<"$OUT" && ok "list NAME NAME shows those two only" ||
	not_ok "list NAME NAME shows those two only" "status $RC" "$OUT"

check "add three entries" "$CFCTL" add dflt udp 10.0.0.1:5353 10.0.0.2:53 \
	udp 10.0.0.1:5354 10.0.0.2:53 "tcp [2001:db8::1]:443 [2001:db8::2]:50000"
[ "$(jfield dflt 'f["stats"]["items"], f["stats"]["load_ppm"] > 0')" = "(3, True)" ] &&
	ok "items 3, load above 0" ||
	not_ok "items 3, load above 0" "$("$CFCTL" show dflt 2>&1)"

check "set action, invert, disable" "$CFCTL" set dflt action mark 7 invert disable
[ "$(jfield dflt 'f["action"], f["mark"], f["mark_mask"], f["invert"], f["enabled"], f["stats"]["items"]')" = \
  "('mark', 7, 4294967295, True, False, 3)" ] &&
	ok "set changed what it was asked to and kept the entries" ||
	not_ok "set changed what it was asked to and kept the entries" "$("$CFCTL" show dflt 2>&1)"
"$CFCTL" set dflt action drop invert off enable
[ "$(jfield dflt 'f["action"], f["invert"], f["enabled"]')" = "('drop', False, True)" ] &&
	ok "set back: action drop, invert off, enable" ||
	not_ok "set back: action drop, invert off, enable" "$("$CFCTL" show dflt 2>&1)"

check "flush NAME" "$CFCTL" flush dflt
[ "$(jfield dflt 'f["stats"]["items"], f["capacity"]')" = "(0, 65536)" ] &&
	ok "flush emptied the filter and kept its parameters" ||
	not_ok "flush emptied the filter and kept its parameters" "$("$CFCTL" show dflt 2>&1)"

# Semi-sorted buckets (issue 19): fpr at bucket 4 takes them; nosemisort
# keeps plain ones, a bit per item more.
check "create with fpr 0.1%: semi-sorted buckets" "$CFCTL" create semi fpr 0.1% capacity 1M
run "$CFCTL" show semi
[ "$(jfield semi 'f["encoding"], f["fingerprint_bits"], round(f["stats"]["bits_per_item_at_capacity"], 1)')" = "('semisort', 13, 12.6)" ] &&
	grep -q "^Header: capacity 1000000 fingerprint 13 bucket 4 semisort kicks 500 " <<<"$OUT" &&
	ok "show says semisort, 13 bits, 12.6 bits per item" ||
	not_ok "show says semisort, 13 bits, 12.6 bits per item" "$OUT"
check "create with fpr 0.1% nosemisort: plain buckets" "$CFCTL" create plain fpr 0.1% nosemisort capacity 1M
run "$CFCTL" show plain
[ "$(jfield plain 'f["encoding"], f["fingerprint_bits"], round(f["stats"]["bits_per_item_at_capacity"], 1)')" = "('plain', 13, 13.6)" ] &&
	grep -q "^Header: capacity 1000000 fingerprint 13 bucket 4 kicks 500 " <<<"$OUT" &&
	ok "show says plain (no semisort), 13 bits, 13.6 bits per item" ||
	not_ok "show says plain (no semisort), 13 bits, 13.6 bits per item" "$OUT"
"$CFCTL" destroy semi plain

check "destroy NAME" "$CFCTL" destroy every
expect "destroy of every filter (no name)" 0 "" "$CFCTL" destroy
run "$CFCTL" list
[ -z "$OUT" ] && ok "nothing is left" || not_ok "nothing is left" "$OUT"

finish
