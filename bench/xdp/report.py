#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tables of bench/xdp/run.sh's results.

    report.py FILE.jsonl [--tap]

Per-packet cost: for each family, mix and contender, the median over the
rounds of BPF_PROG_TEST_RUN's average time per run (ns, R repeats of one
packet, a different flow each round), its min-max and spread (max/min),
the median over the rounds of the time over the parser alone (same
round), and the ratio to the hash map's time, round by round (median,
min-max).  The hook: nfcf_hookbench's fastest chunk per packet less no
hook's in the same round (bench/hook's method), median and min-max.
Then memory per flow, load times (median, min-max over the loads), the
verdicts on the sampled packets, the end-to-end drop rates (e2e.sh),
and issue 33's goals as ratios with their spread.  --tap: one TAP line per contender, "ok - bench-xdp: C
..." when it ran and gave the right verdicts (listed packets dropped,
unlisted ones passed; nf_cuckoo's and the Bloom filter's false positives
allowed up to 1%), and one for the end-to-end run (every path dropped
packets).  Exit status 1 if a contender failed or none ran.
"""
import argparse
import json
import statistics
import sys

ORDER = ["parse", "cuckoo", "cuckoo-peer", "hash", "bloom", "xdpfilter"]
NAMES = {"parse": "parser alone", "cuckoo": "nf_cuckoo_xdp",
         "cuckoo-peer": "peers' program + kfunc", "hash": "BPF hash",
         "bloom": "BPF Bloom filter", "xdpfilter": "xdp-filter (src)",
         "hook": "nf_cuckoo hook"}
PROBABILISTIC = {"cuckoo", "cuckoo-peer", "bloom"}


def spread(xs):
    lo, hi = min(xs), max(xs)
    return hi / lo if lo > 0 else float("inf")


def mm(xs, f="%.0f"):
    return (f + "-" + f) % (min(xs), max(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    ap.add_argument("--tap", action="store_true")
    args = ap.parse_args()
    rows = [json.loads(x) for x in open(args.jsonl) if x.strip()]
    env = next((r for r in rows if r.get("type") == "env"), {})
    n = env.get("flows", 0)
    bad = set()
    ran = {}
    print("# %s, %s flows, %s rounds of %s repeats, %s CPUs" % (
        env.get("kernel"), n, env.get("rounds"), env.get("repeat"),
        env.get("cpus")))
    src = next((r for r in rows if r.get("type") == "prog_src"), None)
    if src:
        print("# nf_cuckoo.bpf.c: %s" % src.get("state"))

    # ---- per-packet cost ----
    runs = [r for r in rows if r.get("type") == "run"]
    per = {}    # (fam, match, c) -> {rep: ns}
    for r in runs:
        per.setdefault((r["family"], r["match"], r["contender"]), {})[r["rep"]] = r["ns"]
        ran[r["contender"]] = ran.get(r["contender"], 0) + 1
        want = 2 if r["match"] == 0 or r["contender"] == "parse" else 1
        if r["retval"] != want and not (
                r["contender"] in PROBABILISTIC and r["match"] == 0 and r["retval"] == 1):
            print("run off:", r)
            bad.add(r["contender"])
    hook = {}   # (fam, match) -> {rep: (hook ps, none ps)}
    hookruns = [r for r in rows if r.get("type") == "hook"]
    for r in hookruns:
        d = hook.setdefault((r["family"], r["match"]), {}).setdefault(r["rep"], {})
        d[r["contender"]] = r["chunk_ps_min"] / 1000.0
        if r["contender"] == "hook":
            ran["hook"] = ran.get("hook", 0) + 1
            ok = (r["drop"] == r["packets"]) if r["match"] == 100 else \
                r["drop"] < 0.01 * r["packets"]
            if not ok or r.get("other") or r.get("err"):
                print("hook run off:", r)
                bad.add("hook")
    fmt = "%-5s %4s %-24s %7s %11s %6s %8s %14s"
    print()
    print("Per-packet cost in the kernel, ns (XDP: BPF_PROG_TEST_RUN's "
          "average per run; hook: nfcf_hookbench)")
    print(fmt % ("fam", "mix", "contender", "median", "min-max", "spread",
                 "-parser", "x hash (range)"))
    goals = []
    for fam in sorted({k[0] for k in per}):
        for m in (0, 100):
            base = per.get((fam, m, "parse"), {})
            hsh = per.get((fam, m, "hash"), {})
            for c in ORDER:
                v = per.get((fam, m, c))
                if not v:
                    continue
                over = [v[i] - base[i] for i in v if i in base]
                xr = [v[i] / hsh[i] for i in v if i in hsh and hsh[i] > 0]
                print(fmt % ("IPv%d" % fam, "%d%%" % m, NAMES[c],
                             "%.0f" % statistics.median(v.values()),
                             mm(list(v.values())), "%.2f" % spread(list(v.values())),
                             "%.0f" % statistics.median(over) if over and c != "parse" else "-",
                             "%.2f (%s)" % (statistics.median(xr), mm(xr, "%.2f"))
                             if xr and c != "hash" else "-"))
                if c in ("cuckoo", "cuckoo-peer") and xr:
                    goals.append((c, fam, m, xr))
            h = hook.get((fam, m), {})
            hv = [d["hook"] - d["none"] for d in h.values() if "hook" in d and "none" in d]
            if hv:
                own = [d["hook"] for d in h.values() if "hook" in d]
                print(fmt % ("IPv%d" % fam, "%d%%" % m, NAMES["hook"] + " (-no hook)",
                             "%.0f" % statistics.median(own), mm(own),
                             "%.2f" % spread(own), "%.0f" % statistics.median(hv),
                             "-"))

    # ---- memory ----
    loads = [r for r in rows if r.get("type") == "load"]
    mems = [r for r in rows if r.get("type") == "mem"]
    print()
    print("Kernel memory, bytes per flow (cuckoo: cfctl show's size; maps: "
          "memory cgroup growth at creation and fill, first load; "
          "Bloom: also its bit array)")
    memper = {}
    for r in mems:
        memper[(r["family"], "cuckoo")] = r["bytes"] / r["flows"]
        print("  IPv%d nf_cuckoo f=12          %8.2f  (%d bytes)" % (
            r["family"], r["bytes"] / r["flows"], r["bytes"]))
    for c in ("hash", "bloom", "xdpfilter"):
        for r in loads:
            if r["contender"] != c or r.get("rep") != 1:
                continue
            held = r.get("held", r["flows"])
            cg = r.get("cg_bytes", -1)
            extra = ""
            if c == "bloom":
                extra = "  bit array %.2f (%d hashes, %d bits)" % (
                    r["bits"] / 8 / held, r["hashes"], r["bits"])
                memper[(r["family"], c + "-bits")] = r["bits"] / 8 / held
            if c == "xdpfilter":
                extra = "  (%d addresses held, max_entries %d, map type %d; "\
                        "its maps were made by xdp-filter load, not here)" % (
                            held, r["max_entries"], r["map_type"])
            if cg > 0:
                memper[(r["family"], c)] = cg / held
            print("  IPv%d %-22s %8s  fdinfo memlock %.2f%s" % (
                r["family"], NAMES[c], "%.2f" % (cg / held) if cg > 0 and c != "xdpfilter" else "-",
                r["memlock"] / held, extra))

    # ---- load times ----
    print()
    print("Load time of the flows, s (median, min-max over the loads)")
    lt = {}
    for r in loads:
        if "family" in r:
            lt.setdefault((r["family"], r["contender"]), []).append(r["s"])
    lname = {"cuckoo": "cfctl restore (built image)", "cuckoo-add": "cfctl add -f",
             "hash": "hash: bpf_map_update_batch", "bloom": "Bloom: update per flow",
             "xdpfilter": "xdp-filter maps: update per addr"}
    for (fam, c), v in sorted(lt.items()):
        print("  IPv%d %-34s %8.3f  %s" % (fam, lname.get(c, c), statistics.median(v),
                                          mm(v, "%.3f")))
    for r in loads:
        if r["contender"] == "xdpfilter-tool" and r["calls"]:
            per_call = r["s"] / r["calls"]
            print("  xdp-filter ip (the tool), per address: %.3f s (%d calls); "
                  "%s flows at that rate: %.0f s" % (per_call, r["calls"], n, per_call * n))

    # ---- verdicts ----
    print()
    print("Verdicts on sampled packets: listed dropped / unlisted dropped "
          "(false positives), of the samples")
    verd = {}
    for r in rows:
        if r.get("type") != "verdict":
            continue
        c, s = r["contender"], r["samples"]
        if c == "parse":
            ok = r["listed_dropped"] == 0 and r["unlisted_dropped"] == 0
        else:
            ok = r["listed_dropped"] == s and (
                r["unlisted_dropped"] <= 0.01 * s + 1 if c in PROBABILISTIC
                else r["unlisted_dropped"] == 0)
        ok = ok and not r["errors"]
        if not ok:
            bad.add(c)
        verd.setdefault(c, []).append(r)
        print("  IPv%d %-24s %6d / %-6d of %d (held %d)  fp %.3f%%%s" % (
            r["family"], NAMES[c], r["listed_dropped"], r["unlisted_dropped"], s,
            r["held"], 100.0 * r["unlisted_dropped"] / s, "" if ok else "  <- off"))

    # ---- goals ----
    print()
    print("Goals (ratios in this run, round by round: median (min-max))")
    for c, fam, m, xr in goals:
        print("  per-packet %s / hash, IPv%d %d%%: %.2fx (%s), goal <= 1.0x" % (
            NAMES[c], fam, m, statistics.median(xr), mm(xr, "%.2f")))
    for fam in sorted({k[0] for k in memper}):
        cu = memper.get((fam, "cuckoo"))
        for c in ("hash", "bloom", "bloom-bits"):
            o = memper.get((fam, c))
            if cu and o:
                print("  memory %s / nf_cuckoo, IPv%d: %.1fx%s" % (
                    c, fam, o / cu, ", goal >= 30x" if c == "hash" else ""))
    e2e = [r for r in rows if r.get("type") == "e2e"]
    if not e2e:
        print("  end to end (XDP drops/s vs the hook's): not measured")
    e2e_ok = e2e_report(e2e)
    for r in rows:
        if r.get("type") == "end" and r.get("kernel_warnings"):
            print("kernel warnings:", r["kernel_warnings"])
            bad.add("kernel")

    if args.tap:
        print("%s - bench-xdp: end to end, every path dropped the traffic "
              "(%d round(s))" % ("ok" if e2e_ok else "not ok", len(e2e)))
        if not e2e_ok:
            bad.add("e2e")
        for c in ORDER + ["hook"]:
            if c not in ran and c not in verd:
                if c != "cuckoo-peer":
                    print("not ok - bench-xdp: %s did not run" % NAMES[c])
                    bad.add(c)
                continue
            vs = verd.get(c, [])
            what = ", ".join("IPv%d listed %d/%d dropped, unlisted %d/%d dropped" % (
                v["family"], v["listed_dropped"], v["samples"], v["unlisted_dropped"],
                v["samples"]) for v in vs)
            print("%s - bench-xdp: %s ran %d timed run(s), verdicts right%s" % (
                "not ok" if c in bad else "ok", NAMES[c], ran.get(c, 0),
                " (" + what + ")" if what else ""))
    return 1 if bad or not runs else 0


E2E = [("xdp", "nf_cuckoo XDP (native)"), ("hook", "nf_cuckoo hook (prerouting)"),
       ("floor", "drop-all XDP (the floor)")]


def e2e_report(e2e):
    """The end-to-end table and goal (e2e.sh); False if a path is missing
    or dropped nothing."""
    if not e2e:
        return False
    print()
    print("End to end: packets dropped a second on one CPU, XDP frames into "
          "a veth (median, min-max over the rounds; e2e.sh)")
    by = {}     # (fam, c) -> {rep: row}
    for r in e2e:
        by.setdefault((r["family"], r["contender"]), {})[r["rep"]] = r
    ok = True
    for fam in sorted({k[0] for k in by}):
        for c, name in E2E:
            v = by.get((fam, c), {})
            d = [r["drops_per_s"] for r in v.values()]
            if not d or min(d) <= 0:
                ok = False
                print("  IPv%d %-30s not measured" % (fam, name))
                continue
            sent = [r["sent_per_s"] for r in v.values() if r.get("sent_per_s")]
            print("  IPv%d %-30s %9.0f  %s%s" % (
                fam, name, statistics.median(d), mm(d, "%.0f"),
                "  (sender: %.0f/s)" % statistics.median(sent) if sent else ""))
        x, h = by.get((fam, "xdp"), {}), by.get((fam, "hook"), {})
        xr = [x[i]["drops_per_s"] / h[i]["drops_per_s"] for i in x
              if i in h and h[i]["drops_per_s"] > 0]
        if xr:
            print("  end to end XDP / hook, IPv%d: %.2fx (%s), goal >= 3x" % (
                fam, statistics.median(xr), mm(xr, "%.2f")))
    return ok


if __name__ == "__main__":
    sys.exit(main())
