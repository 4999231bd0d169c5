#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Synthetic IPv4 blocklists of the shapes people load, for bench/prefix/.

    gen.py CASE DIR [--traffic T] [--seed S]

CASE is one of:
  drop       Spamhaus DROP's size and shape: 1,000 prefixes, /10 to /24,
             most of them /22 to /24, as the list is published
             ("1.10.16.0/20 ; SBL256894")
  firehol    FireHOL level1's: 4,500 prefixes, /8 to /32, a third single
             addresses, written as the netset is (# comments, bare lines)
  abuse1m    an aggregated abuse feed: 1,000,000 prefixes, /24 to /32
  warm       520 prefixes, /20 to /32: the warm-up load (modules loaded,
             caches filled) that comes before the measured ones
  lensP      10,000 prefixes over P lengths, /32 down to /(33-P) (P from
             1 to 24), evenly but at most 2^(len-6) of a length: what a
             packet costs against the number of prefix lengths in use

The prefixes never overlap (nftables interval sets refuse overlaps) and
lie in 1.0.0.0-223.255.255.255 outside 10/8, 11/8 and 127/8.  Written to
DIR: list.txt (the list as published, for `cfctl add -f`), ipset.txt
(`ipset restore` lines for the set "pfx"), nft.txt (`nft -f` lines for the
set "nets" of table ip "hb", 1,000 elements a line), hit.bin and miss.bin
(T source addresses each, 4 bytes in network order: an address in a
prefix of the list drawn uniformly over the prefixes, or an address in
none), and meta.json (the number of prefixes by length).  Deterministic
for a seed.
"""
import argparse
import bisect
import json
import os
import random
import socket
import struct
import sys

LO, HI = 1 << 24, 224 << 24		# 1.0.0.0 .. 223.255.255.255
AVOID = [(10 << 24, 12 << 24), (127 << 24, 128 << 24)]


def shape(case):
    """{length: count} of CASE."""
    if case == "drop":
        w = {10: 1, 11: 2, 12: 3, 13: 6, 14: 10, 15: 15, 16: 40, 17: 25,
             18: 40, 19: 70, 20: 100, 21: 120, 22: 160, 23: 150, 24: 258}
        return w
    if case == "firehol":
        w = {8: 2, 9: 2, 10: 4, 11: 6, 12: 10, 13: 20, 14: 30, 15: 40,
             16: 160, 17: 80, 18: 120, 19: 180, 20: 260, 21: 300, 22: 420,
             23: 380, 24: 850, 25: 20, 26: 25, 27: 30, 28: 35, 29: 40,
             30: 30, 31: 6, 32: 1450}
        return w
    if case == "abuse1m":
        w = {24: 300000, 25: 20000, 26: 30000, 27: 40000, 28: 50000,
             29: 60000, 30: 50000, 31: 10000, 32: 440000}
        return w
    if case == "warm":
        return {ln: 40 for ln in range(20, 33)}
    if case.startswith("lens"):
        p = int(case[4:])
        if not 1 <= p <= 24:
            raise ValueError("lensP: P from 1 to 24")
        # Short prefixes are few in real lists, and there is room for few:
        # at most 2^(len - 6) of a length; /32 takes what they leave.
        lens = list(range(32, 32 - p, -1))
        w = {ln: min(10000 // p, 1 << (ln - 6)) for ln in lens}
        w[32] += 10000 - sum(w.values())
        return w
    raise ValueError("unknown case " + case)


class Space:
    """Disjoint intervals [start, end), sorted by start, and whole /24s
    taken apart (a set: a million of them would make the list slow)."""

    def __init__(self):
        self.starts, self.ends = [], []
        self.blocks = set()
        for a, b in AVOID:
            self.take(a, b)

    def free(self, a, b):
        i = bisect.bisect_right(self.starts, a)
        if i and self.ends[i - 1] > a:
            return False
        if i < len(self.starts) and self.starts[i] < b:
            return False
        return b - a > 256 or a >> 8 not in self.blocks

    def take(self, a, b):
        i = bisect.bisect_right(self.starts, a)
        self.starts.insert(i, a)
        self.ends.insert(i, b)

    def covers(self, x):
        i = bisect.bisect_right(self.starts, x)
        return (i > 0 and self.ends[i - 1] > x) or x >> 8 in self.blocks


def place(rng, counts):
    """Non-overlapping prefixes, the shortest placed first.  A list of
    more than 100,000 has only /24 and longer prefixes, each in a /24 of
    its own drawn without replacement."""
    space = Space()
    out = []
    if sum(counts.values()) > 100000:
        if min(counts) < 24:
            raise ValueError("a long list takes /24 to /32 only")
        slots = [ln for ln in sorted(counts) for _ in range(counts[ln])]
        rng.shuffle(slots)
        blocks = rng.sample(range(LO >> 8, HI >> 8), 2 * len(slots))
        blocks = [b for b in blocks if space.free(b << 8, (b << 8) + 256)]
        for ln, b in zip(slots, blocks):
            size = 1 << (32 - ln)
            space.blocks.add(b)	# the whole /24: miss traffic avoids it
            out.append(((b << 8) + (rng.randrange(256) & ~(size - 1)), ln))
        return out, space
    for ln in sorted(counts):
        size = 1 << (32 - ln)
        for _ in range(counts[ln]):
            for _try in range(10000):
                a = rng.randrange(LO, HI) & ~(size - 1)
                if space.free(a, a + size):
                    break
            else:
                raise RuntimeError("no room for a /%d" % ln)
            space.take(a, a + size)
            out.append((a, ln))
    return out, space


def ntoa(a):
    return socket.inet_ntoa(struct.pack("!I", a))


def write_lists(case, d, prefixes):
    with open(os.path.join(d, "list.txt"), "w") as f:
        if case == "drop":
            f.write("; Spamhaus DROP List 2026/11/26 - (c) 2026 The Spamhaus "
                    "Project SLU\r\n; (synthetic: bench/prefix/gen.py)\r\n")
            for i, (a, ln) in enumerate(prefixes):
                f.write("%s/%d ; SBL%d\r\n" % (ntoa(a), ln, 100000 + i))
        else:
            f.write("#\n# %s (synthetic: bench/prefix/gen.py)\n#\n" % case)
            for a, ln in prefixes:
                f.write("%s\n" % ntoa(a) if ln == 32 and case == "firehol"
                        else "%s/%d\n" % (ntoa(a), ln))
    with open(os.path.join(d, "ipset.txt"), "w") as f:
        for a, ln in prefixes:
            f.write("add pfx %s/%d\n" % (ntoa(a), ln))
    with open(os.path.join(d, "nft.txt"), "w") as f:
        for i in range(0, len(prefixes), 1000):
            f.write("add element ip hb nets { %s }\n" % ", ".join(
                "%s/%d" % (ntoa(a), ln) for a, ln in prefixes[i:i + 1000]))


def write_traffic(rng, d, prefixes, space, t):
    hit = bytearray()
    for _ in range(t):
        a, ln = prefixes[rng.randrange(len(prefixes))]
        hit += struct.pack("!I", a + rng.randrange(1 << (32 - ln)))
    miss = bytearray()
    while len(miss) < 4 * t:
        x = rng.randrange(LO, HI)
        if not space.covers(x):
            miss += struct.pack("!I", x)
    with open(os.path.join(d, "hit.bin"), "wb") as f:
        f.write(hit)
    with open(os.path.join(d, "miss.bin"), "wb") as f:
        f.write(miss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("case")
    ap.add_argument("dir")
    ap.add_argument("--traffic", type=int, default=65536)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    try:
        counts = shape(args.case)
    except ValueError as e:
        print("gen.py: %s" % e, file=sys.stderr)
        return 2
    rng = random.Random("%s/%d" % (args.case, args.seed))
    os.makedirs(args.dir, exist_ok=True)
    prefixes, space = place(rng, counts)
    rng.shuffle(prefixes)
    write_lists(args.case, args.dir, prefixes)
    write_traffic(rng, args.dir, prefixes, space, args.traffic)
    meta = {"case": args.case, "prefixes": len(prefixes),
            "lengths": len(counts),
            "by_length": {str(k): v for k, v in sorted(counts.items())}}
    with open(os.path.join(args.dir, "meta.json"), "w") as f:
        json.dump(meta, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
