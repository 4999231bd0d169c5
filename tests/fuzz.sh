#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh FUZZER SECONDS SEED_CORPUS WORKDIR [NAME]
#
# Runs a libFuzzer target (the core's, or one of cfctl's) for SECONDS, starting from the committed seed
# corpus (read only) plus WORKDIR/corpus (which grows from run to run), and
# prints one TAP result.  libFuzzer's own chatter goes to WORKDIR/fuzz.log;
# on a failure its report is copied here as "# " lines, with the input
# that failed (WORKDIR/artifacts/crash-*) and how to replay it.
#
# NAME is the TAP test's (default: the core's).  FUZZ_SEED fixes
# libFuzzer's random seed (default 1).
set -u

fuzzer=$1
secs=$2
seeds=$3
work=$4
seed=${FUZZ_SEED:-1}
name=${5:-"fuzz: cuckoo ops against an exact model"}

echo "TAP version 13"
echo "1..1"
if [ ! -x "$fuzzer" ]; then
	echo "not ok 1 - $name"
	echo "# $fuzzer was not built"
	exit 1
fi
mkdir -p "$work/corpus" "$work/artifacts"
rm -f "$work"/artifacts/*

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
"$fuzzer" -seed="$seed" -max_total_time="$secs" -timeout=20 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" \
	"$work/corpus" "$seeds" >"$work/fuzz.log" 2>&1
status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
cov=$(grep -E '^#[0-9]+' "$work/fuzz.log" | tail -n 1 |
	grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+')
echo "# libFuzzer seed $seed, ${secs} s: ${runs:-?} runs, ${cov:-?}," \
	"$(ls "$work/corpus" | wc -l) inputs in $work/corpus"
if [ "$status" -eq 0 ]; then
	echo "ok 1 - $name (${secs} s)"
	exit 0
fi
# Everything but the progress lines, commented out.
grep -vE '^#[0-9]+ ' "$work/fuzz.log" | sed 's/^/# /' | tail -n 80
echo "not ok 1 - $name (${secs} s)"
reason=$(grep -m 1 -E '^fuzz_[a-z_]+: |ERROR: |runtime error: ' "$work/fuzz.log")
echo "# ${reason:-libFuzzer exited with status $status}"
for f in "$work"/artifacts/*; do
	[ -e "$f" ] && echo "# failing input: $f (replay: $fuzzer $f)"
done
exit 1
