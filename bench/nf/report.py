#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of the nftables/ipset comparison (bench/nf/run.sh calls it).

    report.py JSONL [--charts DIR] [--tap]

Reads the raw records in_vm.sh printed (and run.sh's "host" record) from
JSONL, prints the table on stdout, writes "summary" and "target" records
after them into JSONL (replacing any from an earlier report), draws the charts into DIR with gnuplot (nf-load.png,
nf-memory.png, nf-packet.png) and, with --tap, prints TAP lines
"ok - bench-nf: ..." saying whether each contender loaded and its traffic
was counted.  Exit status 1 if a TAP check failed.

Every figure is the median of the repetitions, with the spread (min-max),
and a ratio to nftables measured in the same run.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

CONTENDERS = ["none", "cuckoo-f12", "cuckoo-f16", "cuckoo-ss13", "nft", "ipset"]
LABEL = {
    "none": "no filter",
    "cuckoo-f12": "nf_cuckoo f=12",
    "cuckoo-f16": "nf_cuckoo f=16",
    "cuckoo-ss13": "nf_cuckoo f=13 semi-sorted",
    "nft": "nftables set",
    "ipset": "ipset+iptables",
}


def med(xs):
    return statistics.median(xs) if xs else None


def spread(xs, fmt):
    """'median (min-max)', or just the value for one repetition."""
    if not xs:
        return "-"
    if len(xs) == 1:
        return fmt(xs[0])
    return "%s (%s-%s)" % (fmt(med(xs)), fmt(min(xs)), fmt(max(xs)))


def si(x):
    if x is None:
        return "-"
    for div, suf in ((1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return "%.3g%s" % (x / div, suf)
    return "%.3g" % x


def num(x):
    return "-" if x is None else ("%.0f" % x if abs(x) >= 100 else "%.3g" % x)


def ratio(x, ref):
    if x is None or not ref:
        return "-"
    return "%.3gx" % (x / ref)


class Report:
    def __init__(self, path):
        self.path = path
        self.recs = []
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    self.recs.append(json.loads(line))
        self.recs = [r for r in self.recs if r.get("type") not in ("summary", "target")]
        # The contenders of this run (run.sh --contenders may leave some out).
        self.cs = [c for c in CONTENDERS if c == "none" or
                   any(r.get("contender") == c for r in self.recs)]
        self.out = []       # summary records to append
        self.tap = []       # (ok, description)

    def of(self, t, **kw):
        return [r for r in self.recs if r.get("type") == t
                and all(r.get(k) == v for k, v in kw.items())]

    def one(self, t):
        r = self.of(t)
        return r[0] if r else {}

    # --- figures -------------------------------------------------------
    def loads(self, c, n):
        return self.of("load", contender=c, flows=n)

    def load_fig(self, c, n):
        rs = [r for r in self.loads(c, n) if r["rc"] == 0]
        return {
            "secs": [r["us"] / 1e6 for r in rs],
            "rate": [n / (r["us"] / 1e6) for r in rs],
            "kernel": [(r["slab_kb"] + r["vmalloc_kb"] + r["percpu_kb"]) * 1024 / n for r in rs],
            "avail": [r["avail_kb"] * 1024 / n for r in rs],
            "tool": [r["tool_bytes"] / n for r in rs if r.get("tool_bytes") is not None],
            "timed_out": [r for r in self.loads(c, n) if r.get("timed_out")],
        }

    def pkt_fig(self, c, match):
        """Per round (the warm-up, round 0, left out): packets/s; VM CPU
        ns per packet; the median time of b's ip_rcv(); and both over the
        no-filter slice of the same round."""
        rs = [r for r in self.of("pkt", contender=c, match=match) if r["rep"] > 0]
        base = {r["rep"]: r for r in self.of("pkt", contender="none", match=match)}

        def cpu(r):
            return r["busy_ticks"] / r["hz"] * 1e9 / r["received"] if r["received"] else None

        fig = {k: [] for k in ("pps", "cpu", "cpu_over", "rcv", "rcv_over", "loss")}
        for r in rs:
            if not r["received"] or not r["secs"]:
                continue
            b = base.get(r["rep"])
            fig["pps"].append(r["received"] / r["secs"])
            fig["cpu"].append(cpu(r))
            fig["loss"].append(1 - r["received"] / r["sent"])
            if b and b["received"]:
                fig["cpu_over"].append(cpu(r) - cpu(b))
            if r.get("rcv_samples"):
                fig["rcv"].append(r["rcv_ns"])
                if b and b.get("rcv_samples"):
                    fig["rcv_over"].append(r["rcv_ns"] - b["rcv_ns"])
        return fig

    # --- output --------------------------------------------------------
    def header(self):
        h, e, he = self.one("host"), self.one("env"), self.one("host_end")
        print("nf_cuckoo compared with an nftables set and an ipset (bench/nf)")
        print("  %s to %s, tree %s; host %s, %s CPUs, load average %s at start, %s at the end" %
              (h.get("date", "?"), he.get("date", "?"), h.get("commit", "?"), h.get("host_cpu", "?"),
               h.get("host_cpus", "?"), h.get("loadavg", "?"), he.get("loadavg", "?")))
        # (records from before the host record named the CPU: "max")
        print("  VM: %s, %s vCPUs, %s MB, QEMU %s, -cpu %s (%s); guest kernel %s" %
              (h.get("accel", "?"), h.get("smp", "?"), h.get("mem_mb", "?"), h.get("qemu", "?"),
               h.get("cpu", "max"), e.get("guest_cpu", "?"), e.get("kernel", "?")))
        print("  %s; %s; %s; %s" % (e.get("nft", "?"), e.get("ipset", "?"), e.get("iptables", "?"), e.get("cfctl", "?")))
        print("  flows loaded: %s, %s times each, at most %s s a load; packets: %s rounds of %s ms slices"
              % (e.get("sizes", "?"), e.get("reps", "?"), e.get("load_max_s", "?"),
                 e.get("rounds", "?"), e.get("slice_ms", "?")))
        print()
        print("  NOTE: the VM is emulated (QEMU TCG, no KVM) on a shared machine: absolute")
        print("  figures mean little; the ratios to nftables, measured in the same run, a lot.")
        print("  Figures: median of the repetitions (min-max).")
        if h.get("quick"):
            print("  QUICK MODE (one load, two short rounds): this shows the benchmark works;")
            print("  its figures are not a measurement.")

    def load_table(self, sizes):
        print()
        print("Load: the tool's bulk path (cfctl restore, nft -f, ipset restore), wall time")
        print("  %-15s %8s  %-26s %-24s %s" % ("", "flows", "seconds", "entries/s", "vs nftables"))
        for n in sizes:
            ref = med(self.load_fig("nft", n)["rate"])
            for c in self.cs[1:]:
                f = self.load_fig(c, n)
                if f["timed_out"]:
                    r = f["timed_out"][0]
                    print("  %-15s %8d  did not finish in %d s (%s of %d loaded)" %
                          (LABEL[c], n, r["limit_s"], r.get("entries"), n))
                    self.out.append({"type": "summary", "what": "load", "contender": c, "flows": n,
                                     "did_not_finish_s": r["limit_s"], "entries": r.get("entries")})
                    continue
                rate = med(f["rate"])
                print("  %-15s %8d  %-26s %-24s %s" % (LABEL[c], n, spread(f["secs"], num),
                                                        spread(f["rate"], si), ratio(rate, ref)))
                self.out.append({"type": "summary", "what": "load", "contender": c, "flows": n,
                                 "reps": len(f["rate"]), "secs": med(f["secs"]), "rate": rate,
                                 "rate_min": min(f["rate"], default=None),
                                 "rate_max": max(f["rate"], default=None),
                                 "rate_vs_nft": rate / ref if rate and ref else None})

    def mem_table(self, sizes):
        print()
        print("Kernel memory per flow, bytes: slab + vmalloc + percpu deltas of the load;")
        print("MemAvailable delta (+ per-CPU free lists; +-0.5 MB of noise); the tool's own figure")
        print("  %-15s %8s  %-22s %-22s %-10s %s" % ("", "flows", "kernel", "MemAvailable", "tool", "nftables / this"))
        for n in sizes:
            ref = med(self.load_fig("nft", n)["kernel"])
            for c in self.cs[1:]:
                f = self.load_fig(c, n)
                if not f["kernel"]:
                    print("  %-15s %8d  -" % (LABEL[c], n))
                    continue
                k = med(f["kernel"])
                print("  %-15s %8d  %-22s %-22s %-10s %s" % (
                    LABEL[c], n, spread(f["kernel"], num), spread(f["avail"], num),
                    num(med(f["tool"])), ratio(ref, k) if k > 0 else "-"))
                self.out.append({"type": "summary", "what": "memory", "contender": c, "flows": n,
                                 "kernel_bytes_per_flow": k, "memavailable_bytes_per_flow": med(f["avail"]),
                                 "tool_bytes_per_flow": med(f["tool"]),
                                 "nft_over_this": ref / k if ref and k > 0 else None})

    def pkt_table(self):
        pk = self.of("pkt")
        if not pk:
            return
        e = self.one("env")
        print()
        print("Packets: UDP across a veth into namespace b, the filter at b's prerouting (raw);")
        print("%s flows loaded; the traffic uses %d of them (100%%) or %d others (0%%); %s rounds" %
              (max((r.get("flows_loaded") or 0) for r in self.of("counters")),
               pk[0]["traffic_flows"], pk[0]["traffic_flows"], e.get("rounds", "?")))
        print("of %s ms a contender in turn.  VM CPU: all the VM's CPU time (sender, b's stack," %
              e.get("slice_ms", "?"))
        print("receiver) per packet received; it moves with the host's load.  ip_rcv: the median")
        print("time of b's IPv4 receive path (prerouting hook and filter, routing, input hook,")
        print("socket) per packet, from the function_graph tracer; over none: minus the no-filter")
        print("slice of the same round, i.e. the filter's own cost.  [x nft]: ratio to nftables.")
        cols = (("pps", "packets/s", si), ("cpu", "VM CPU ns/packet", num),
                ("rcv", "ip_rcv ns/packet", num), ("rcv_over", "ip_rcv over none", num))
        for match in (0, 100):
            ref = self.pkt_fig("nft", match)
            print("  %d%% matching (%s)" % (match, "a drop rule, all pass" if match == 0 else
                                          "a mark rule, all marked"))
            print("    %-15s" % "" + "".join(" %-30s" % h for _, h, _ in cols) + " lost")
            for c in self.cs:
                f = self.pkt_fig(c, match)
                if not f["pps"]:
                    print("    %-15s -" % LABEL[c])
                    continue
                cells = []
                for k, _, fmt in cols:
                    if c == "none" and k.endswith("over"):
                        cells.append("")
                        continue
                    cells.append("%s [%s]" % (spread(f[k], fmt), ratio(med(f[k]), med(ref[k]))))
                print("    %-15s" % LABEL[c] + "".join(" %-30s" % x for x in cells) +
                      " %.2g%%" % (100 * med(f["loss"])))
                sm = {"type": "summary", "what": "packets", "contender": c, "match": match,
                      "rounds": len(f["pps"]), "lost": med(f["loss"])}
                for k in ("pps", "cpu", "cpu_over", "rcv", "rcv_over"):
                    if f[k]:
                        sm.update({k: med(f[k]), k + "_min": min(f[k]), k + "_max": max(f[k]),
                                   k + "_vs_nft": med(f[k]) / med(ref[k]) if ref[k] and med(ref[k]) else None})
                self.out.append(sm)

    def targets(self, n):
        print()
        print("Targets (nf_cuckoo f=12 against nftables, %d flows%s):" %
              (n, "; quick mode, not a measurement" if self.one("host").get("quick") else ""))
        cf, nf = self.load_fig("cuckoo-f12", n), self.load_fig("nft", n)
        rows = []
        r = med(cf["rate"]) / med(nf["rate"]) if cf["rate"] and nf["rate"] else None
        rows.append(("load at least 20x faster", r is not None and r >= 20, "%.3gx" % r if r else "-"))
        k, kn = med(cf["kernel"]), med(nf["kernel"])
        if k is not None and k <= 0:
            k = None    # below the noise: say so rather than divide by it
        rows.append(("at most 3 bytes of kernel memory per flow", k is not None and k <= 3,
                     "%s bytes (MemAvailable: %s; cfctl: %s)" % (num(k), num(med(cf["avail"])),
                                                               num(med(cf["tool"])))))
        r = kn / k if k and kn else None
        rows.append(("at least 50x less memory than nftables", r is not None and r >= 50, "%.3gx" % r if r else "-"))
        for match in (0, 100):
            a = self.pkt_fig("cuckoo-f12", match)["rcv_over"]
            b = self.pkt_fig("nft", match)["rcv_over"]
            a, b = med(a), med(b)
            rows.append(("per-packet cost <= nftables at %d%% matching" % match,
                         a is not None and b is not None and a <= b,
                         "%s vs %s ns/packet (ip_rcv over none)" % (num(a), num(b))))
        for what, met, fig in rows:
            print("  %-46s %-8s %s" % (what, "met" if met else "NOT met", fig))
            self.out.append({"type": "target", "flows": n, "target": what, "met": bool(met), "figure": fig})

    # --- checks for make check -------------------------------------------
    def checks(self, n):
        for e in self.of("error"):
            self.tap.append((False, "%s: %s failed" % (e.get("contender"), e.get("what"))))
        for c in self.cs[1:]:
            rs = self.loads(c, n)
            good = [r for r in rs if r["rc"] == 0 and r["entries"] == n]
            self.tap.append((bool(rs) and len(good) == len(rs),
                             "%s loaded %d flows (%s)" % (c, n, ", ".join(
                                 "%.1f s, status %d, %s entries" % (r["us"] / 1e6, r["rc"], r["entries"])
                                 for r in rs) or "no load")))
        for match in (0, 100):
            for c in self.cs:
                self.tap.append(self.check_pkt(c, match))
        end = self.one("end")
        self.tap.append((bool(end) and end.get("kernel_warnings") == 0,
                         "the VM run finished, %s kernel BUG/WARNING lines" % end.get("kernel_warnings", "?")))
        for ok, desc in self.tap:
            print("%s - bench-nf: %s" % ("ok" if ok else "not ok", desc))
        return all(ok for ok, _ in self.tap)

    def check_pkt(self, c, match):
        """Every packet sent was counted by the receiver and by b's input
        counter (at 0% a drop filter may drop its false positives), and
        at 100% every one was marked."""
        rs = self.of("pkt", contender=c, match=match)
        ks = self.of("counters", contender=c, match=match)
        desc = "%s, %d%% matching: traffic counted" % (c, match)
        if not rs or not ks:
            return False, desc + ": no %s" % ("packets" if not rs else "counters")
        k = ks[0]
        sent, rx = sum(r["sent"] for r in rs), sum(r["received"] for r in rs)
        bad = []
        if not rx or rx != k["input"]:
            bad.append("the receiver counted %d, b's input %d" % (rx, k["input"]))
        if (c == "none" or match == 100) and k["input"] != sent:
            bad.append("sent %d, input %d" % (sent, k["input"]))
        want = k["input"] if match == 100 and c != "none" else 0
        if k["marked"] != want:
            bad.append("marked %d, want %d" % (k["marked"], want))
        if c.startswith("cuckoo") and match == 100 and k["cf_marked"] != k["input"]:
            bad.append("the filter marked %d" % k["cf_marked"])
        desc += " (sent %d, received %d, marked %d%s)" % (
            sent, rx, k["marked"],
            ", filter matches %d" % k["cf_matches"] if c.startswith("cuckoo") else "")
        return not bad, desc + "".join(": " + b for b in bad[:1]) + "".join("; " + b for b in bad[1:])

    # --- charts --------------------------------------------------------
    def charts(self, outdir, sizes):
        if not shutil.which("gnuplot"):
            print("# report.py: gnuplot not installed, no charts", file=sys.stderr)
            return
        os.makedirs(outdir, exist_ok=True)
        e = self.one("env")
        vm = "emulated VM (no KVM): compare the ratios"
        sub_load = "median of %s loads, min-max bars; %s" % (e.get("reps", "?"), vm)
        sub_pkt = ("median of %s rounds, min-max bars; %s flows loaded; %s" %
                   (e.get("rounds", "?"), sizes[-1], vm))
        cs = self.cs[1:]

        def mmm(xs):
            xs = [x for x in xs if x > 0]   # a log scale; noise can go below 0
            return [med(xs), min(xs), max(xs)] if xs else [None] * 3

        def cols(path, titles):
            return ", ".join("'%s' using %d:%d:%d:xtic(1) title '%s'" %
                             (path, 3 * i + 2, 3 * i + 3, 3 * i + 4, t) for i, t in enumerate(titles))

        with tempfile.TemporaryDirectory() as tmp:
            def dat(name, rows):
                p = os.path.join(tmp, name)
                with open(p, "w") as f:
                    for row in rows:
                        f.write(" ".join('"%s"' % x if isinstance(x, str) else
                                         ("%g" % x if x is not None else "NaN") for x in row) + "\n")
                return p

            load = dat("load", [[LABEL[c]] + [v for n in sizes for v in mmm(self.load_fig(c, n)["rate"])]
                                for c in cs])
            mem = dat("mem", [[LABEL[c]] + [v for k in ("kernel", "avail", "tool")
                                             for v in mmm(self.load_fig(c, sizes[-1])[k])] for c in cs])
            pkt = dat("pkt", [[LABEL[c]] + [v for m in (0, 100) for v in mmm(self.pkt_fig(c, m)["rcv"])]
                              for c in self.cs])
            script = """set terminal pngcairo size 900,520 font 'sans,10' noenhanced
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
set key top left
set xtics nomirror
set output '{out}/nf-load.png'
set logscale y
set title "Bulk load rate, entries/s (log scale; higher is better)\\n{sub_load}"
plot {load}
set output '{out}/nf-memory.png'
set title "Kernel memory per flow, bytes, {n} flows (log scale; lower is better)\\n{sub_load}"
plot {mem}
unset logscale y
set yrange [0:*]
set output '{out}/nf-packet.png'
set title "Time of the receive path (ip_rcv) per packet, ns (lower is better)\\n{sub_pkt}"
plot {pkt}
""".format(out=outdir, n=sizes[-1], sub_load=sub_load, sub_pkt=sub_pkt,
               load=cols(load, ["%d flows" % n for n in sizes]),
               mem=cols(mem, ["kernel: slab + vmalloc + percpu", "MemAvailable", "own figure (cfctl show, ipset list -t)"]),
               pkt=cols(pkt, ["0% matching (drop rule)", "100% matching (mark rule)"]))
            res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
            if res.returncode:
                print("# report.py: gnuplot failed:\n" + res.stderr, file=sys.stderr)
            else:
                print()
                print("Charts: %s/nf-load.png, nf-memory.png, nf-packet.png" % outdir)


def main():
    args = sys.argv[1:]
    tap = "--tap" in args
    charts = None
    if "--charts" in args:
        charts = args[args.index("--charts") + 1]
        del args[args.index("--charts"):args.index("--charts") + 2]
    args = [a for a in args if a != "--tap"]
    if len(args) != 1:
        sys.exit(__doc__)
    rep = Report(args[0])
    sizes = sorted({r["flows"] for r in rep.of("load")})
    if not sizes:
        print("not ok - bench-nf: no load was measured")
        return 1
    rep.header()
    rep.load_table(sizes)
    rep.mem_table(sizes)
    rep.pkt_table()
    if "nft" in rep.cs and "cuckoo-f12" in rep.cs:
        rep.targets(sizes[-1])
    if charts:
        rep.charts(charts, sizes)
    with open(args[0], "w") as f:   # the raw records, then the summaries
        for r in rep.recs + rep.out:
            f.write(json.dumps(r) + "\n")
    if tap:
        print()
        return 0 if rep.checks(sizes[-1]) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
