#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the control plane with a client we did not write: fuzz/genl_fuzz.py
# (pyroute2) sends random and mutated messages for every command, from
# several processes at once and from namespaces that die mid-way, for
# FUZZ_SECONDS (default 60), and checks every reply.  Before it starts,
# two filters get a known set of entries (one of them restored from a
# save); the fuzzer never names them, and afterwards cfctl must still find
# every entry and the counts must be exact.  Then the corpus of messages
# that once found a bug (fuzz/corpus/) is replayed, and the kernel log
# since the start must hold no oops, BUG, WARNING, KASAN, UBSAN or
# lockdep report.  TAP output.
#
# Environment:
#   FUZZ_SECONDS  how long to fuzz (default 60; `make check FUZZ_SECONDS=600`)
#   FUZZ_SEED     the seed (default: random, printed) to repeat a run
#   FUZZ_ARGS     more genl_fuzz.py options (e.g. --workers struct,churn)
#   PYTHON        python3 with pyroute2 (default /usr/bin/python3)

. "$(dirname "$0")/lib.sh"
require_env
isolate "$@"

FUZZ=$SELFTESTS/fuzz/genl_fuzz.py
CORPUS=$SELFTESTS/fuzz/corpus
SECS=${FUZZ_SECONDS:-60}
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=python3
PARAM=/sys/module/nf_cuckoo/parameters/netns_mem_max_mb
TMP=$(mktemp -d)
CEILING=$(cat "$PARAM")
trap 'echo "$CEILING" >"$PARAM" 2>/dev/null; rm -rf "$TMP"' EXIT

if ! [[ $SECS =~ ^[1-9][0-9]*$ ]]; then
	bail "FUZZ_SECONDS=$SECS: want a number of seconds"
fi
ncorpus=$(find "$CORPUS" -name '*.json' | wc -l)
plan $((11 + ncorpus))

MARK="fuzz_genl $$ $(date +%s%N)"
echo "$MARK" >/dev/kmsg
REF0=$(cat /sys/module/nf_cuckoo/refcnt)

# A missing pyroute2 is a failure: scripts/deps.sh installs it.  One
# start of the fuzzer says both (python and pyroute2 take seconds to
# start in the VM).
run "$PYTHON" "$FUZZ" --check-uapi
if grep -q 'pyroute2 missing' <<<"$OUT"; then
	not_ok "pyroute2 importable by $PYTHON" "$OUT"
else
	ok "pyroute2 importable by $PYTHON"
fi
if [ "$RC" = 0 ]; then
	ok "the fuzzer describes every command and attribute of the uapi header"
else
	not_ok "the fuzzer describes every command and attribute of the uapi header" \
		"status $RC:" "$OUT"
fi

# The known filters: 2000 flows in a plain one, 500 in a restored one
# that the packet path consults (at output, counting) while the fuzzer
# sends traffic.
make_known() {
	"$PYTHON" "$FUZZ" --write-known "$TMP/k5" --count 2000 --seed 5 &&
	"$PYTHON" "$FUZZ" --write-known "$TMP/kr" --count 500 --seed 6 &&
	"$CFCTL" create KNOWN-5t family inet capacity 4000 &&
	"$CFCTL" add -f "$TMP/k5" KNOWN-5t &&
	"$CFCTL" create KNOWN-rs family inet capacity 1000 hook output action count &&
	"$CFCTL" add -f "$TMP/kr" KNOWN-rs &&
	"$CFCTL" save KNOWN-rs >"$TMP/kr.save" &&
	"$CFCTL" destroy KNOWN-rs &&
	"$CFCTL" restore -f "$TMP/kr.save"
}
if make_known; then
	ok "known filters KNOWN-5t (2000 entries) and KNOWN-rs (500, restored)"
else
	not_ok "known filters KNOWN-5t (2000 entries) and KNOWN-rs (500, restored)"
fi

# A low ceiling, so that the fuzzer's filters (and its namespaces that
# wait for cleanup) cannot take the VM's memory; it may change it itself.
echo 32 >"$PARAM"
args=(--seconds "$SECS" --known "KNOWN-5t=$TMP/k5" --known "KNOWN-rs=$TMP/kr"
      --toggle-ceiling --tmp "$TMP/fz" --json "$TMP/report.json"
      --save-anomalies "$TMP")
[ -n "${FUZZ_SEED:-}" ] && args+=(--seed "$FUZZ_SEED")
# shellcheck disable=SC2206  # FUZZ_ARGS is meant to split
[ -n "${FUZZ_ARGS:-}" ] && args+=(${FUZZ_ARGS})
"$PYTHON" "$FUZZ" "${args[@]}" >"$TMP/fuzz.log" 2>&1 &
pid=$!
# Bounded by time even if the kernel wedges (a task stuck in the kernel
# cannot be killed): the fuzzer stops itself after about twice its time.
limit=$((SECONDS + 2 * SECS + 400))
while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$limit" ]; do
	sleep 2
done
hung=0
if kill -0 "$pid" 2>/dev/null; then
	hung=1
	rc=124
else
	wait "$pid"
	rc=$?
fi
log=$(sed 's/^#* \{0,1\}/# /' "$TMP/fuzz.log")
if [ "$rc" = 0 ]; then
	ok "fuzzing ${SECS}s: every reply proper, no anomaly, no entry lost"
	printf '%s\n' "$log" | grep -E '^# genl_fuzz: (seed|\{)' | head -2
else
	not_ok "fuzzing ${SECS}s: every reply proper, no anomaly, no entry lost" \
		"status $rc$([ "$hung" = 1 ] && echo ": still running, the kernel is wedged?")"
	printf '%s\n' "$log" | tail -80
fi
echo "$CEILING" >"$PARAM"

if [ "$hung" = 1 ]; then
	# Anything that takes the namespace's lock would hang as well.
	for t in "KNOWN-5t entries" "KNOWN-5t count" "KNOWN-rs entries" \
		 "KNOWN-rs count" "netns_mem_max_mb restored" "module references"; do
		not_ok "$t: not checked, the fuzzer is stuck in the kernel"
	done
	for f in "$CORPUS"/*.json; do
		not_ok "corpus $(basename "$f"): not replayed, the fuzzer is stuck in the kernel"
	done
else
	for k in "KNOWN-5t:$TMP/k5:2000" "KNOWN-rs:$TMP/kr:500"; do
		IFS=: read -r name file n <<<"$k"
		expect "$name: all $n entries still test positive (cfctl)" 0 "" \
			"$CFCTL" test -q -f "$file" "$name"
		items=$(jfield "$name" 'f["stats"]["items"]')
		if [ "$items" = "$n" ]; then
			ok "$name: $n items, as before"
		else
			not_ok "$name: $n items, as before" "cfctl show says ${items:-nothing}"
		fi
	done
	if [ "$(cat "$PARAM")" = "$CEILING" ]; then
		ok "netns_mem_max_mb restored"
	else
		not_ok "netns_mem_max_mb restored" "it is $(cat "$PARAM"), was $CEILING"
	fi
	# Dumps hold module references until their socket goes, namespaces
	# are cleaned up by a worker: give them time.
	for _ in $(seq 60); do
		[ "$(cat /sys/module/nf_cuckoo/refcnt)" = "$REF0" ] && break
		sleep 1
	done
	ref=$(cat /sys/module/nf_cuckoo/refcnt)
	if [ "$ref" = "$REF0" ]; then
		ok "module references back to $REF0 (no dump left behind)"
	else
		not_ok "module references back to $REF0 (no dump left behind)" "refcnt $ref"
	fi

	# The corpus, each case in a namespace of its own.
	"$PYTHON" "$FUZZ" --replay "$CORPUS" >"$TMP/replay.log" 2>&1
	n=0
	while IFS= read -r line; do
		case $line in
		"ok - corpus "*) ok "${line#ok - }"; n=$((n + 1)) ;;
		"not ok - corpus "*) not_ok "${line#not ok - }"; n=$((n + 1)) ;;
		*) printf '%s\n' "$line" | sed 's/^#* \{0,1\}/# /' ;;
		esac
	done <"$TMP/replay.log"
	for ((; n < ncorpus; n++)); do
		not_ok "corpus: a case gave no result"
	done
fi

bad=$(klog_bad "$MARK")
if [ -z "$bad" ]; then
	ok "no oops, BUG, WARNING, KASAN, UBSAN or lockdep report in the kernel log"
else
	not_ok "no oops, BUG, WARNING, KASAN, UBSAN or lockdep report in the kernel log" \
		"$(printf '%s\n' "$bad" | head -40)"
fi
finish
