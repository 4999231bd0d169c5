#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Filters that grow (issue 20), through cfctl and the module:
#  - capacity 1000 with 16 stages fed a million entries (add -f): every
#    entry tests present (test -f: no false negative); the stages and the
#    false-positive rate over a million keys never added are printed, and
#    the rate is under twice the first stage's bound;
#  - saved and restored, it has the same stages and gives the same
#    answers, and saves again byte for byte;
#  - deletes after growth: those refused as ambiguous are counted and
#    reported, the others go, and no entry kept is lost;
#  - flush goes back to one stage, which grows again;
#  - set nogrow: adds then fail with "the filter is full", set grow: they
#    work again;
#  - a stage over netns_mem_max_mb (lowered for the test): the add fails
#    with the ceiling named, and every entry held before is kept.
# (rmmod with a filter of several stages: cfctl_rmmod.sh.)  TAP output.
#
#   CFT_GROW_N   entries of the big filter (default 1000000)

. "$(dirname "$0")/lib.sh"
require_env
PARAM=/sys/module/nf_cuckoo/parameters/netns_mem_max_mb
[ -w "$PARAM" ] || skip_all "$PARAM is not writable"
isolate "$@"

N=${CFT_GROW_N:-1000000}
TMP=$(mktemp -d)
OLD_MAX=$(cat "$PARAM")
trap 'echo "$OLD_MAX" >"$PARAM"; rm -rf "$TMP"' EXIT

plan 30
kmsg_mark

require_genflows

# present FILE NAME: how many entries of FILE test present in NAME.
present() {
	"$CFCTL" test -f "$1" "$2" 2>&1 |
		sed -n "s/^$2: \([0-9]*\) of [0-9]* entries present.*/\1/p"
}

# stages NAME: "stages items fpr_total first_fpr" of show -j.
stages() {
	jfield "$1" '"%d %d %d %d" % (len(f["stages"]), f["stats"]["items"], f["fpr_total_ppb"], f["stages"][0]["fpr_ppb"])'
}

t0=$(now)
# udp entries i = 0..N-1, distinct, towards 192.0.2.1 (held) and
# 198.51.100.7 (never added).
"$GENFLOWS" 0 "$N" 192.0.2.1 >"$TMP/in"
"$GENFLOWS" 0 "$N" 198.51.100.7 >"$TMP/out"
diag "generated $N entries and $N keys never added in $(elapsed "$t0") s"

# ---- a million entries into a filter made for a thousand ----
check "create capacity 1000 stages 16" \
	"$CFCTL" create g family ip capacity 1000 stages 16 seed 0x5eed
t0=$(now)
check "add -f of $N entries" "$CFCTL" add -f "$TMP/in" g
diag "added in $(elapsed "$t0") s"
read -r ns items total first <<<"$(stages g)"
diag "$("$CFCTL" show g | grep -E '^(Items|Size|Growth|Stages|Stage)')"
[ "$items" = "$N" ] && [ "${ns:-0}" -gt 1 ] &&
	ok "it grew to $ns stages holding $items items" ||
	not_ok "it grew, holding every entry" "stages $ns, items $items"
got=$(jfield g 'all(b["capacity"] == 2 * a["capacity"] and b["fingerprint_bits"] == min(a["fingerprint_bits"] + 1, 32) for a, b in zip(f["stages"], f["stages"][1:])) and sum(s["items"] for s in f["stages"]) == f["stats"]["items"] and f["grow"] and f["grow_factor"] == 2 and f["stages_max"] == 16')
[ "$got" = True ] &&
	ok "each stage twice the capacity of the one before, a fingerprint bit more; items summed" ||
	not_ok "each stage twice the capacity of the one before, a fingerprint bit more" \
		"$("$CFCTL" show g 2>&1)"
[ "${total:-0}" -lt $((2 * first)) ] &&
	ok "the filter's bound $total ppb is under twice the first stage's ($first ppb)" ||
	not_ok "the filter's bound is under twice the first stage's" "$total, $first"

t0=$(now)
p=$(present "$TMP/in" g)
[ "$p" = "$N" ] && ok "every entry tests present: no false negative ($N of $N)" ||
	not_ok "every entry tests present" "$p of $N present"
diag "tested in $(elapsed "$t0") s"
fp=$(present "$TMP/out" g)
rate=$(awk -v f="$fp" -v n="$N" 'BEGIN { printf "%.6f", f / n }')
diag "stages: $ns; false positives: $fp of $N keys never added, a rate of $rate;" \
	"bound of the filter $(awk -v t="$total" 'BEGIN { printf "%.6f", t / 1e9 }'), of its first stage $(awk -v t="$first" 'BEGIN { printf "%.6f", t / 1e9 }')"
[ -n "$fp" ] && [ $((fp * 1000000000)) -lt $((2 * first * N)) ] &&
	ok "the false-positive rate $rate is under twice the first stage's bound" ||
	not_ok "the false-positive rate is under twice the first stage's bound" \
		"$fp of $N, first stage $first ppb"

# ---- save and restore: the same stages, the same answers ----
S0=$("$CFCTL" -j show g | python3 -c 'import json, sys; f = json.load(sys.stdin); print(json.dumps(f["stages"]), f["fpr_total_ppb"])')
t0=$(now)
check "save the filter of $ns stages" "$CFCTL" save -f "$TMP/saved" g
diag "saved in $(elapsed "$t0") s: $(wc -c <"$TMP/saved") bytes"
[ "$(grep -c '^create g ' "$TMP/saved")" = 1 ] &&
	[ "$(grep '^create g ' "$TMP/saved" | grep -o ' image ' | wc -l)" = "$ns" ] &&
	grep -q '^create g .* grow factor 2 stages 16 image ' "$TMP/saved" &&
	ok "its create line has the growth words and an image header per stage" ||
	not_ok "its create line has the growth words and an image header per stage" \
		"$(grep '^create g ' "$TMP/saved" | cut -c1-300)"
"$CFCTL" destroy g
t0=$(now)
check "restore it" "$CFCTL" restore -f "$TMP/saved"
diag "restored in $(elapsed "$t0") s"
S1=$("$CFCTL" -j show g | python3 -c 'import json, sys; f = json.load(sys.stdin); print(json.dumps(f["stages"]), f["fpr_total_ppb"])')
[ "$S0" = "$S1" ] && ok "restored: the same stages" ||
	not_ok "restored: the same stages" "before: $S0" "after:  $S1"
p=$(present "$TMP/in" g)
fp2=$(present "$TMP/out" g)
[ "$p" = "$N" ] && [ "$fp2" = "$fp" ] &&
	ok "restored: the same answers ($N present, the same $fp false positives)" ||
	not_ok "restored: the same answers" "present $p of $N, false positives $fp2 (were $fp)"
"$CFCTL" save -f "$TMP/again" g
tail -n +2 "$TMP/saved" >"$TMP/a" && tail -n +2 "$TMP/again" >"$TMP/b" &&
	cmp -s "$TMP/a" "$TMP/b" && ok "saved again, byte for byte the first save" ||
	not_ok "saved again, byte for byte the first save"

# ---- deletes after growth ----
# Every 250th entry, one batch: a delete refused as ambiguous fails it
# whole, with its line; that entry is set aside and the rest sent again.
awk 'NR % 250 == 0' "$TMP/in" >"$TMP/del"
ndel=$(wc -l <"$TMP/del")
: >"$TMP/amb"
tries=0
while :; do
	run "$CFCTL" del -f "$TMP/del" g
	[ "$RC" = 0 ] && break
	l=$(sed -n 's/^cfctl: del: line \([0-9]*\): entry is in more than one stage.*/\1/p' <<<"$OUT")
	tries=$((tries + 1))
	[ -n "$l" ] && [ "$tries" -le 200 ] || break
	sed -n "${l}p" "$TMP/del" >>"$TMP/amb"
	sed -i "${l}d" "$TMP/del"
done
namb=$(wc -l <"$TMP/amb")
deleted=$(wc -l <"$TMP/del")
[ "$RC" = 0 ] && [ "$(jfield g 'f["stats"]["items"]')" = $((N - deleted)) ] &&
	ok "deletes after growth: $deleted of $ndel deleted, $namb refused as ambiguous" ||
	not_ok "deletes after growth" "status $RC, items $(jfield g 'f["stats"]["items"]'), deleted $deleted" "$OUT"
diag "ambiguous deletes: $namb of $ndel ($(awk -v a="$namb" -v n="$ndel" 'BEGIN { printf "%.4f", a / n }'))"
if [ "$namb" -gt 0 ]; then
	run "$CFCTL" del g $(head -1 "$TMP/amb")
	[ "$RC" = 3 ] && out_matches "more than one stage" && out_matches "cfctl compact -f LIST g" &&
		ok "an ambiguous delete: status 3, the reason and what to do" ||
		not_ok "an ambiguous delete: status 3, the reason and what to do" "status $RC" "$OUT"
else
	skip "an ambiguous delete: status 3, the reason and what to do" "no delete was ambiguous"
fi
# No entry kept was lost: all but the deleted test present (the ambiguous
# ones too: they were not deleted).
grep -vxFf "$TMP/del" "$TMP/in" >"$TMP/kept"
p=$(present "$TMP/kept" g)
k=$(wc -l <"$TMP/kept")
[ "$p" = "$k" ] && ok "no entry kept was lost: $k of $k present" ||
	not_ok "no entry kept was lost" "$p of $k present"

# ---- flush: back to one stage ----
check "flush" "$CFCTL" flush g
[ "$(stages g | cut -d' ' -f1,2)" = "1 0" ] &&
	[ "$(jfield g 'f["stages"][0]["capacity"]')" = 1000 ] &&
	ok "flushed: one stage, empty, of the first capacity" ||
	not_ok "flushed: one stage, empty" "$("$CFCTL" show g 2>&1)"
head -5000 "$TMP/in" >"$TMP/in5k"
"$CFCTL" add -f "$TMP/in5k" g
[ "$(stages g | cut -d' ' -f1,2)" = "3 5000" ] &&
	[ "$(present "$TMP/in5k" g)" = 5000 ] &&
	ok "it grows again: 5000 entries in 3 stages" ||
	not_ok "it grows again: 5000 entries in 3 stages" "$(stages g)"
"$CFCTL" destroy g

# ---- nogrow ----
check "create s capacity 100" "$CFCTL" create s family ip capacity 100
"$CFCTL" add -f "$TMP/in5k" s
ns=$(stages s | cut -d' ' -f1)
check "set s nogrow" "$CFCTL" set s nogrow
grep -q "^Growth: off factor 2 stages 8$" <<<"$("$CFCTL" show s)" &&
	ok "show says growth is off" || not_ok "show says growth is off" "$("$CFCTL" show s)"
sed -n '5001,20000p' "$TMP/in" >"$TMP/more"
expect "nogrow: adds fail with 'the filter is full', status 3" 3 \
	"^cfctl: add: line [0-9]+: filter is full" "$CFCTL" add -f "$TMP/more" s
[ "$(stages s | cut -d' ' -f1)" = "$ns" ] && [ "$(present "$TMP/in5k" s)" = 5000 ] &&
	ok "... no stage added, the 5000 entries there" ||
	not_ok "... no stage added, the 5000 entries there" "$(stages s), was $ns stages"
"$CFCTL" set s grow
check "set s grow: the adds work again" "$CFCTL" add -f "$TMP/more" s
"$CFCTL" destroy s

# ---- a stage over the namespace's memory ceiling ----
# capacity 10000 factor 8: stages of about 20 KB and 140 KB, then one of
# over 1 MiB, refused under netns_mem_max_mb=1.
echo 1 >"$PARAM"
check "create q capacity 10000 factor 8 (netns_mem_max_mb=1)" \
	"$CFCTL" create q family ip capacity 10000 factor 8
head -85000 "$TMP/in" >"$TMP/q1"
sed -n '85001,120000p' "$TMP/in" >"$TMP/q2"
check "85000 entries: two stages" "$CFCTL" add -f "$TMP/q1" q
expect "the third stage is refused: the ceiling named, status 3" 3 \
	"^cfctl: add: line [0-9]+: filter is full and a new stage would exceed the network namespace's memory ceiling \(netns_mem_max_mb\)" \
	"$CFCTL" add -f "$TMP/q2" q
[ "$(stages q | cut -d' ' -f1)" = 2 ] && [ "$(present "$TMP/q1" q)" = 85000 ] &&
	ok "... nothing held is lost: 2 stages, the 85000 entries present" ||
	not_ok "... nothing held is lost" "$(stages q)"
echo "$OLD_MAX" >"$PARAM"
"$CFCTL" destroy q

check_klog
finish
