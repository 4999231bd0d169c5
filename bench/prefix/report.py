#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tables of bench/prefix/run.sh's results.

    report.py FILE.jsonl [--tap]

For each list: every contender's load time (from the tool's start: not
the wrapper's, timeout and nsenter), kernel memory per prefix
(MemAvailable's fall over the load, as bench/nf reads it, shown from a
megabyte on: below, it is noise; and what the tool says it holds: nf_cuckoo
its table, ipset its "Size in memory", nftables nothing), the prefix-length combinations nf_cuckoo keeps, and
the time a packet spends in its prerouting hook over the no-hook
baseline of the same round (nfcf_hookbench's fastest chunk, as
bench/hook/report.py takes it): the median over the rounds, its min-max,
and the spread max/min of those.  Then issue 21's ratios: bytes per
prefix of ipset's hash:net over nf_cuckoo's (goal at least 20x), the
nftables interval set's load time over nf_cuckoo's (goal at least 10x),
nf_cuckoo's time per packet over hash:net's (goal at most 2x).  Then the
lensP lists: the time per packet against the number of lengths in use.
Then the verdicts: at 100% every packet dropped; at 0% none, but
nf_cuckoo's false positives (at most twice the bound 8/2^f a lookup,
1 + combinations lookups).  --tap: one TAP line per contender.  Exit
status 1 if a load or a run failed or a verdict is off.
"""
import argparse
import json
import statistics
import sys

def load_us(ld):
    """A load's time from the tool's start (older records: the wrapper's)."""
    return ld.get("tool_us") or ld["us"]


ORDER = ["cuckoo-f12", "cuckoo-f16", "cuckoo-ss12", "ipset", "nft"]
NAMES = {"none": "no hook", "cuckoo-f12": "nf_cuckoo f=12",
         "cuckoo-f16": "nf_cuckoo f=16",
         "cuckoo-ss12": "nf_cuckoo f=12 ss", "ipset": "ipset hash:net",
         "nft": "nftables interval"}


def fingerprint_bits(c):
    """cuckoo-f12 (plain) or cuckoo-ss12 (semi-sorted): 12."""
    return int(c.rsplit("-", 1)[1].lstrip("fs"))


def spread(xs):
    lo, hi = min(xs), max(xs)
    return hi / lo if lo > 0 else float("inf")


def over_base(runs, case, m, c):
    """Per round: the contender's ns/packet over the baseline's."""
    mine = {r["rep"]: r["chunk_ps_min"] / 1000 for r in runs
            if (r["case"], r["match"], r["contender"]) == (case, m, c)}
    base = {r["rep"]: r["chunk_ps_min"] / 1000 for r in runs
            if (r["case"], r["match"], r["contender"]) == (case, m, "none")}
    return [mine[k] - base[k] for k in sorted(mine) if k in base]


def fmt_over(xs):
    if not xs:
        return "-"
    return "%.0f (%.0f-%.0f)" % (statistics.median(xs), min(xs), max(xs))


def bytes_ratio(name, ld, hn):
    """hash:net's bytes per prefix over nf_cuckoo's, as the kernel's free
    memory fell (where both fell by a megabyte or more: less is lost in
    the noise of a few hundred kB) and as the tools say."""
    both = []
    if ld["avail_kb"] >= 1024 and hn["avail_kb"] >= 1024:
        both.append("%.1fx by the kernel's memory" %
                    (hn["avail_kb"] / ld["avail_kb"]))
    if ld["tool_bytes"] and hn["tool_bytes"]:
        both.append("%.1fx by the tools' figures" %
                    (hn["tool_bytes"] / ld["tool_bytes"]))
    print("  %s: hash:net's bytes per prefix / this: %s (goal at least "
          "20x)" % (name, ", ".join(both) or "-"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    ap.add_argument("--tap", action="store_true")
    args = ap.parse_args()
    rows = [json.loads(line) for line in open(args.jsonl) if line.strip()]
    cases = [r for r in rows if r.get("type") == "case"]
    loads = {(r["case"], r["contender"]): r for r in rows
             if r.get("type") == "load"}
    runs = [r for r in rows if r.get("type") == "run"]
    bad = set()
    for r in rows:
        if r.get("type") == "error":
            print("error:", r)
            bad.add(r.get("contender"))
        if r.get("type") == "end" and r.get("kernel_warnings"):
            print("kernel warnings:", r["kernel_warnings"])
            bad.add("kernel")
    for (k, c), r in loads.items():
        if r["rc"] != 0:
            bad.add(c)
    hdr = ("list", "contender", "load s", "B/prefix", "tool B/p", "combos",
           "0%: ns over base", "sp.", "100%: ns over base", "sp.")
    fmt = "%-8s %-17s %8s %8s %8s %6s %18s %5s %18s %5s"
    print(fmt % hdr)
    perf = {}
    for case in cases:
        k = case["case"]
        for c in ORDER:
            ld = loads.get((k, c))
            if not ld:
                continue
            n = ld["entries"] or ld["prefixes"]
            o0, o1 = (over_base(runs, k, m, c) for m in (0, 100))
            perf[(k, c)] = (ld, o0, o1)
            print(fmt % (
                k, NAMES[c],
                ("> %d" % ld["limit_s"]) if ld["timed_out"]
                else "%.2f" % (load_us(ld) / 1e6),
                "%.1f" % (ld["avail_kb"] * 1024 / n)
                if ld["avail_kb"] >= 1024 else "-",
                "%.1f" % (ld["tool_bytes"] / n) if ld["tool_bytes"] else "-",
                ld["combos"] if ld["combos"] is not None else "-",
                fmt_over(o0), "%.2f" % spread(o0) if o0 and min(o0) > 0
                else "-",
                fmt_over(o1), "%.2f" % spread(o1) if o1 and min(o1) > 0
                else "-"))
    print()
    for case in cases:
        k = case["case"]
        if k.startswith("lens"):
            continue
        print("%s: %d prefixes of %d lengths" % (k, case["prefixes"],
                                                  case["lengths"]))
        hn = perf.get((k, "ipset"))
        nft = perf.get((k, "nft"))
        for c in (c for c in ORDER if c.startswith("cuckoo-")):
            me = perf.get((k, c))
            if not me:
                continue
            ld = me[0]
            if hn:
                bytes_ratio(NAMES[c], ld, hn[0])
            if nft:
                t = load_us(nft[0]) / load_us(ld)
                print("  %s: nftables' load time / this: %s%.1fx (goal at "
                      "least 10x)" % (NAMES[c], "more than "
                                      if nft[0]["timed_out"] else "", t))
            for i, m in ((1, 0), (2, 100)):
                if hn and me[i] and hn[i]:
                    ratio = [a / b for a, b in zip(me[i], hn[i]) if b > 0]
                    print("  %s at %d%%: time per packet / hash:net's: %.2fx "
                          "median, %.2f-%.2f by round (goal at most 2x)" % (
                              NAMES[c], m, statistics.median(ratio),
                              min(ratio), max(ratio)))
    sweep = sorted((c["lengths"], c["case"]) for c in cases
                   if c["case"].startswith("lens"))
    if sweep:
        print()
        print("time per packet (ns over the baseline, median of the rounds) "
              "against the number of prefix lengths, 10,000 prefixes:")
        print("%8s %-17s %10s %10s" % ("lengths", "contender", "0%", "100%"))
        for p, k in sweep:
            for c in ORDER:
                if (k, c) in perf:
                    _, o0, o1 = perf[(k, c)]
                    print("%8d %-17s %10s %10s" % (
                        p, NAMES[c], fmt_over(o0).split()[0],
                        fmt_over(o1).split()[0]))
    print()
    print("verdicts: drops/packets over all rounds")
    for (k, m, c) in sorted({(r["case"], r["match"], r["contender"])
                             for r in runs}):
        rs = [r for r in runs if (r["case"], r["match"], r["contender"]) ==
              (k, m, c)]
        d = sum(r["drop"] for r in rs)
        p = sum(r["drop"] + r["accept"] + r["other"] for r in rs)
        other = sum(r["other"] for r in rs) + sum(1 for r in rs if r["err"])
        rate = d / p if p else 0
        ld = loads.get((k, c), {})
        allow = 0
        if c.startswith("cuckoo-"):
            lookups = 1 + (ld.get("combos") or 0)
            allow = 2 * lookups * 8 / 2 ** fingerprint_bits(c)
        ok = not other and (d == p if m == 100 and c != "none"
                            else rate <= allow)
        if not ok:
            bad.add(c)
        print("  %-8s %3d%% %-17s %.4f%%%s" % (
            k, m, NAMES[c], 100 * rate,
            "" if ok else "  <- off (allowed %.4f%%)" % (100 * allow)))
    if args.tap:
        for c in ["none"] + ORDER:
            n = sum(1 for r in runs if r["contender"] == c)
            if n or c in bad:
                print("%s - bench-prefix: %s loaded the lists and ran %d "
                      "run(s), verdicts right" % (
                          "not ok" if c in bad else "ok", NAMES[c], n))
        if not runs:
            print("not ok - bench-prefix: no run came back")
    return 1 if bad or not runs else 0


if __name__ == "__main__":
    sys.exit(main())
