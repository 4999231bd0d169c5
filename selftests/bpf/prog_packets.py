#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# The packets of bpf_prog.sh, into the directory DIR:
#
#   prog_packets.py DIR
#
# pkts.RUN ("LABEL HEX"), what each must get (want.RUN: "LABEL GROUP
# DROP|PASS|SHORT|SHORTTC"), the groups (one test point each), the
# filters (create.F, entries.F), the lookups each must count (lookups.F)
# and where the python parser disagrees with the hand-written answers
# (mirror).  The same files every run: `make -C selftests` writes them
# on the host (build/selftests/prog_packets/), where scapy takes seconds,
# not the half-minute it takes in an emulated VM; bpf_prog.sh runs this
# itself where they are missing.
import ipaddress
import os
import struct
import sys

from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_RR
from scapy.layers.inet6 import (ICMPv6EchoRequest, IPv6, IPv6ExtHdrDestOpt,
                                IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                                IPv6ExtHdrRouting)
from scapy.layers.ipsec import AH
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.sctp import SCTP
from scapy.packet import Raw

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "packet"))
import skbkey  # noqa: E402
from skbkey import be16  # noqa: E402

OUT = sys.argv[1]
SA, DA, SP, DP, PR = skbkey.SRC, skbkey.DST, skbkey.SPORT, skbkey.DPORT, \
    skbkey.PROTO
ADDRS, L3P, ALL = skbkey.ADDRS, skbkey.L3, skbkey.ALL
PORTS = skbkey.PORT_PROTOS
BOUND = None    # the program walks as far as the hook
NAMES = {6: "tcp", 17: "udp", 33: "dccp", 132: "sctp", 136: "udplite",
         1: "icmp", 58: "icmpv6"}


# ---- kmod/skbkey.c in python (packet/skbkey.py), behind Ethernet and up
# to two VLAN tags ----
def nhoff(b):
    """Offset and ethertype of the network header, or (None, None)."""
    if len(b) < 14:
        return None, None
    t, off = be16(b, 12), 14
    for _ in range(2):
        if t not in (0x8100, 0x88a8):
            break
        if len(b) - off < 4:
            return None, None
        t, off = be16(b, off + 2), off + 4
    return off, t


def mirror(b, bound=BOUND):
    off, t = nhoff(b)
    have, k = skbkey.key({0x0800: 4, 0x86dd: 6}.get(t), b, off, bound)
    return k, have


# ---- the filters ----
def a(s):
    return ipaddress.ip_address(s).packed


def flow(proto, src, dst, sport=0, dport=0):
    return dict(fam=6 if ":" in src else 4, src=a(src), dst=a(dst),
                proto=proto, sport=sport, dport=dport)


FL = {
    "u4": flow(17, "10.0.0.1", "10.0.0.2", 1000, 53),
    "t4": flow(6, "10.0.0.1", "10.0.0.2", 1000, 80),
    "u6": flow(17, "fd00::1", "fd00::2", 1000, 53),
    "t6": flow(6, "fd00::1", "fd00::2", 1000, 80),
    "s4": flow(132, "10.0.0.1", "10.0.0.2", 2000, 3000),
    "s6": flow(132, "fd00::1", "fd00::2", 2000, 3000),
    "l4": flow(136, "10.0.0.1", "10.0.0.2", 1000, 53),
    "d6": flow(33, "fd00::1", "fd00::2", 1000, 53),
    "i4": flow(1, "10.0.0.1", "10.0.0.2"),
    "i6": flow(58, "fd00::1", "fd00::2"),
    "f4": flow(17, "10.0.0.5", "10.0.0.6"),
    "f6": flow(17, "fd00::5", "fd00::6"),
    "n6": flow(59, "fd00::7", "fd00::8"),
}


def ent_text(e, fields):
    ip = ipaddress.ip_address
    s, d = str(ip(e["src"])), str(ip(e["dst"]))
    if fields == SA:
        return "src " + s
    p = NAMES.get(e["proto"], str(e["proto"]))
    if fields == ALL and e["proto"] in PORTS:
        if e["fam"] == 6:
            s, d = "[%s]" % s, "[%s]" % d
        return "%s %s:%d %s:%d" % (p, s, e["sport"], d, e["dport"])
    return "%s %s %s" % (p, s, d)


# name: (key fields, invert, entries, cfctl key word); None: not created
FILTERS = {
    "full": (ALL, False, list(FL), "all"),
    "pa": (L3P, False, ["u4", "u6"], "src,dst,proto"),
    "src": (SA, False, ["u4", "u6"], "src"),
    "inv": (ALL, True, ["u4", "u6"], "all"),
    "zero": None,        # nfcf_filter_id 0: the program asks nothing
    "noent": None,       # an id no filter has: -ENOENT
}


def masked(k, fields):
    return (k["fam"],
            k["src"] if fields & SA else b"",
            k["dst"] if fields & DA else b"",
            k["sport"] if fields & SP else 0,
            k["dport"] if fields & DP else 0,
            k["proto"] if fields & PR else 0)


def expect(fname, b, bound=BOUND):
    """What the program must answer for frame b: DROP, PASS, SHORT or
    SHORTTC (see the comparison below)."""
    if len(b) < 14:
        return "SHORT"
    t = be16(b, 12)
    if (t == 0x0800 and len(b) < 14 + 20) or (t == 0x86dd and len(b) < 14 + 40):
        return "SHORTTC"
    f = FILTERS[fname]
    if f is None:
        return "PASS"
    kf, inv, ents, _ = f
    k, have = mirror(b, bound)
    if not have or kf & ~have:
        return "PASS"
    hit = masked(k, kf) in {masked(FL[e], kf) for e in ents}
    return "DROP" if hit != inv else "PASS"


# ---- packets ----
MAC = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
PAY = Raw(b"payload!")


def eth(tags=()):
    p = Ether(**MAC)
    for t in tags:
        p = p / (Dot1Q(vlan=10) if t == 0x8100 else Dot1AD(vlan=20))
    return p


def ip4(f, **kw):
    e = FL[f] if isinstance(f, str) else f
    return IP(src=str(ipaddress.ip_address(e["src"])),
              dst=str(ipaddress.ip_address(e["dst"])), **kw)


def ip6(f, **kw):
    e = FL[f] if isinstance(f, str) else f
    return IPv6(src=str(ipaddress.ip_address(e["src"])),
                dst=str(ipaddress.ip_address(e["dst"])), **kw)


def l4(f, sport=None, dport=None):
    e = FL[f]
    sp = e["sport"] if sport is None else sport
    dp = e["dport"] if dport is None else dport
    p = e["proto"]
    if p == 6:
        return TCP(sport=sp, dport=dp, flags="S")
    if p == 132:
        return SCTP(sport=sp, dport=dp)
    if p == 1:
        return ICMP(type=8, id=1, seq=1)
    if p == 58:
        return ICMPv6EchoRequest(id=1, seq=1)
    u = UDP(sport=sp, dport=dp)
    if p != 17:         # UDP-Lite and DCCP: their ports where UDP's are
        return Raw(bytes(u)[:4] + b"\0\0\0\0")
    return u


def frame(f, tags=(), ext=(), sport=None, dport=None, v4=None):
    """Flow f's packet: Ethernet, tags, IP (v4: IP() keywords), extension
    headers (IPv6; list of scapy layers), L4, payload."""
    e = FL[f]
    if e["fam"] == 4:
        ipl = ip4(f, proto=e["proto"], **(v4 or {}))
    else:
        ipl = ip6(f)
    p = eth(tags) / ipl
    for x in ext:
        p = p / x
    p = p / l4(f, sport, dport) / PAY
    b = bytearray(bytes(p))
    if e["fam"] == 6:
        # scapy cannot name every next header (UDP-Lite, DCCP, behind AH):
        # set the chain's last one by hand.
        fix_last_nh(b, 14 + 4 * len(tags), e["proto"])
    return bytes(b)


def fix_last_nh(b, off, proto):
    pos, nxt, off = off + 6, b[off + 6], off + 40
    while nxt in skbkey.IPV6_EXT:
        pos = off
        off += skbkey.ext_len(nxt, b, off)
        nxt = b[pos]
    b[pos] = proto


def set16(b, off, v):
    b = bytearray(b)
    struct.pack_into("!H", b, off, v)
    return bytes(b)


def ah(nh):
    return AH(nh=nh, payloadlen=4, spi=1, seq=1, icv=b"\0" * 12)


HBH, DST = IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt


def RT():
    return IPv6ExtHdrRouting(addresses=["fd00::9"])


def FRAG(off=0, m=1):
    return IPv6ExtHdrFragment(offset=off, m=m, id=7)


GROUPS = []     # (group, description)
PKTS = {n: [] for n in FILTERS}       # filter: [(label, group, frame, want)]
MIRROR_BAD = []


def group(g, desc, cases):
    """cases: (frame, {filter: want}), the wants written by hand, and
    checked against the mirror."""
    GROUPS.append((g, desc))
    for i, (b, wants) in enumerate(cases):
        b = bytes(b)
        for fn, w in wants.items():
            lab = "%s.%d" % (g, i)
            PKTS[fn].append((lab, g, b, w))
            if expect(fn, b) != w:
                MIRROR_BAD.append("%s on %s: by hand %s, mirror %s"
                                  % (lab, fn, w, expect(fn, b)))


def sweep(g, desc, frames):
    """Every frame cut at every length 0..all, raw and with its IP
    length field cut to fit; the wants from the mirror, every filter."""
    GROUPS.append((g, desc))
    n = 0
    for b in frames:
        b = bytes(b)
        off, t = nhoff(b)
        for L in range(len(b) + 1):
            cuts = [b[:L]]
            if off is not None and t == 0x0800 and L - off >= 20:
                cuts.append(set16(b[:L], off + 2,
                                  min(be16(b, off + 2), L - off)))
            elif off is not None and t == 0x86dd and L - off >= 40:
                cuts.append(set16(b[:L], off + 4,
                                  min(be16(b, off + 4), L - off - 40)))
            for x in cuts:
                for fn in FILTERS:
                    PKTS[fn].append(("%s.%d" % (g, n), g, x, expect(fn, x)))
                n += 1


D, P = "DROP", "PASS"


def w(full, **more):
    d = {"full": full}
    d.update(more)
    return d


group("plain", "untagged UDP and TCP, IPv4 and IPv6: the listed flows "
      "dropped, the others passed", [
          (frame("u4"), w(D, pa=D, src=D)),
          (frame("u4", sport=1001), w(P, pa=D)),
          (frame("t4"), w(D, pa=P)),
          (frame("t4", dport=81), w(P)),
          (frame("u6"), w(D, pa=D, src=D)),
          (frame("t6"), w(D, pa=P)),
          (frame("t6", sport=1), w(P)),
          (eth() / ip6(flow(17, "fd00::1", "fd00::3")) / UDP(sport=1000, dport=53) / PAY,
           w(P, pa=P, src=D)),
          (eth() / ip4(flow(17, "10.0.0.9", "10.0.0.2")) / UDP(sport=1000, dport=53) / PAY,
           w(P, pa=P, src=P)),
      ])
group("vlan1", "one VLAN tag (802.1Q, 802.1ad): listed dropped, others passed", [
    (frame("u4", tags=[0x8100]), w(D)),
    (frame("u4", tags=[0x88a8], sport=7), w(P, pa=D)),
    (frame("t6", tags=[0x8100]), w(D)),
    (frame("u6", tags=[0x88a8]), w(D)),
    (frame("u6", tags=[0x8100], dport=54), w(P)),
])
group("vlan2", "two VLAN tags (802.1ad + 802.1Q, 802.1Q + 802.1Q): listed "
      "dropped, others passed; three tags: not IP, passed", [
          (frame("u4", tags=[0x88a8, 0x8100]), w(D)),
          (frame("t4", tags=[0x8100, 0x8100]), w(D)),
          (frame("t6", tags=[0x88a8, 0x8100]), w(D)),
          (frame("u6", tags=[0x88a8, 0x8100], sport=9), w(P)),
          (frame("u4", tags=[0x88a8, 0x8100, 0x8100]), w(P, pa=P, src=P)),
          (frame("u6", tags=[0x8100, 0x8100, 0x8100]), w(P, pa=P, src=P)),
      ])
RR = [IPOption_RR(routers=["192.0.2.%d" % i for i in range(1, 10)])]
group("ipopt", "IPv4 with options (IHL 6 to 15): ports found after them", [
    (frame("u4", v4=dict(options=RR[:1])), w(D)),
    (frame("u4", v4=dict(options=[IPOption_RR(routers=["192.0.2.1"] * 9)])), w(D)),
    (frame("t4", v4=dict(options=[IPOption_RR(routers=["192.0.2.1"])])), w(D)),
    (frame("t4", v4=dict(options=[IPOption_RR(routers=["192.0.2.1"])]), dport=1), w(P)),
    (frame("u4", tags=[0x8100], v4=dict(options=[IPOption_RR(routers=["192.0.2.1"] * 4)]),
           sport=2), w(P, pa=D)),
])
group("frag4", "IPv4 fragments: the first keyed on its ports, a non-first "
      "with ports 0 (dropped by a filter of proto and addresses, or "
      "of ports 0)", [
          (frame("u4", v4=dict(flags="MF")), w(D, pa=D, src=D)),
          (frame("u4", v4=dict(frag=185)), w(P, pa=D, src=D)),
          (frame("u4", v4=dict(frag=185, flags="MF")), w(P, pa=D, src=D)),
          (frame("f4", v4=dict(frag=1)), w(D, pa=P)),
          (frame("f4", v4=dict(flags="MF"), sport=5, dport=6), w(P)),
          (frame("t4", v4=dict(frag=3)), w(P, pa=P, src=D)),
      ])
group("ext6", "IPv6 extension headers (hop-by-hop, routing, destination "
      "options, AH, all of them, 16 of them): ports found after them", [
          (frame("u6", ext=[HBH()]), w(D, pa=D)),
          (frame("u6", ext=[RT()]), w(D, pa=D)),
          (frame("u6", ext=[DST()]), w(D)),
          (frame("u6", ext=[ah(17)]), w(D)),
          (frame("t6", ext=[ah(6)], dport=8080), w(P)),
          (frame("u6", ext=[HBH(), DST(), RT(), ah(60), DST()]), w(D, pa=D)),
          (frame("t6", ext=[HBH(), RT(), ah(44), FRAG(), DST()]), w(D)),
          (frame("u6", ext=[HBH(), DST(), RT(), ah(60), DST()], sport=999), w(P)),
          (frame("u6", ext=[DST() for _ in range(16)]), w(D, pa=D, src=D)),
      ])
group("frag6", "IPv6 fragments: the first keyed on its ports, a non-first "
      "on the protocol its fragment header names, ports 0", [
          (frame("u6", ext=[FRAG()]), w(D, pa=D)),
          (frame("u6", ext=[HBH(), FRAG(off=100, m=0)]), w(P, pa=D, src=D)),
          (frame("f6", ext=[FRAG(off=5)]), w(D, pa=P)),
          (frame("f6", ext=[DST(), ah(44), FRAG(off=5, m=1)]), w(D, pa=P)),
          (frame("t6", ext=[FRAG(off=9)]), w(P, pa=P, src=D)),
          (frame("f6", ext=[FRAG(off=0)], sport=5, dport=6), w(P)),
      ])
group("sctp", "SCTP, UDP-Lite and DCCP ports, IPv4 and IPv6", [
    (frame("s4"), w(D)),
    (frame("s4", dport=3001), w(P)),
    (frame("s6"), w(D)),
    (frame("s6", sport=1), w(P)),
    (frame("l4"), w(D)),
    (frame("d6"), w(D)),
    (frame("d6", dport=1), w(P)),
])
group("icmp", "ICMP and ICMPv6: ports 0, however short the ICMP header", [
    (frame("i4"), w(D, pa=P, src=D)),
    (eth() / ip4(flow(1, "10.0.0.3", "10.0.0.2")) / ICMP() / PAY, w(P)),
    (eth() / ip4("i4", proto=1) / Raw(b"\x08"), w(D)),
    (frame("i6"), w(D)),
    (frame("i6", ext=[DST()]), w(D)),
    (eth() / ip6(flow(58, "fd00::1", "fd00::9")) / ICMPv6EchoRequest() / PAY, w(P)),
    (eth() / ip6("n6", nh=59) / PAY, w(D, pa=P)),
    (eth() / ip6("n6") / DST(nh=59) / PAY, w(D)),
])
u4 = bytes(frame("u4"))
u6 = bytes(frame("u6"))
padded = bytes(eth() / ip4("u4") / UDP(sport=1000, dport=53)) + b"\0" * 20
group("len", "the IP length fields bound the key, not the frame: Ethernet "
      "padding; ports past the IPv4 total or IPv6 payload length; a "
      "jumbogram's payload length 0; lengths past the frame", [
          (padded, w(D)),
          (set16(u4, 16, 22), w(P, pa=D, src=D)),
          (set16(u4, 16, 24), w(D, pa=D)),
          (set16(u4, 16, 19), w(P, pa=P, src=P)),
          (set16(u4, 16, len(u4) - 13), w(P, pa=P, src=P)),
          (set16(u6, 18, 0), w(P, pa=D, src=D)),
          (set16(u6, 18, 3), w(P, pa=D, src=D)),
          (set16(u6, 18, len(u6) - 53), w(P, pa=P, src=P)),
          (set16(bytes(frame("u6", ext=[HBH()])), 18, 0), w(D, pa=D)),
      ])
bad4 = bytearray(u4)
bad4[14] = 0x44
bad6 = bytearray(u6)
bad6[14] = 0x40 | (bad6[14] & 15)
long_hbh = bytearray(frame("u6", ext=[HBH()]))
long_hbh[55] = 200
group("bad", "malformed: IPv4 of IHL 4, of version 5 or 6, IPv6 of version 4: "
      "nothing; an extension header past the payload: the addresses only", [
          (bytes(bad4), w(P, pa=P, src=P, inv=P)),
          (u4[:14] + b"\x55" + u4[15:], w(P, pa=P, src=P, inv=P)),
          (bytes(bad6), w(P, pa=P, src=P, inv=P)),
          (bytes(long_hbh), w(P, pa=P, src=D, inv=P)),
          (eth() / ip4("u4", version=6) / UDP(sport=1000, dport=53), w(P, src=P)),
      ])
group("inv", "an invert filter: its listed flows passed, the rest dropped; "
      "a packet without the fields it needs passed", [
          (frame("u4"), {"inv": P}),
          (frame("u4", sport=1001), {"inv": D}),
          (frame("u6"), {"inv": P}),
          (frame("t6"), {"inv": D}),
          (frame("i4"), {"inv": D}),
          (frame("u4", v4=dict(frag=185)), {"inv": D}),
          (set16(u4, 16, 22), {"inv": P}),
          (set16(u6, 18, 2), {"inv": P}),
      ])
group("noask", "nfcf_filter_id 0, and an id no filter has (-ENOENT): "
      "everything passes", [
          (frame("u4"), {"zero": P, "noent": P}),
          (frame("t6", tags=[0x8100]), {"zero": P, "noent": P}),
          (frame("f4", v4=dict(frag=1)), {"zero": P, "noent": P}),
      ])
chain17 = bytes(frame("u6", ext=[DST() for _ in range(17)]))
group("long", "chains of 17, 40 and 200 extension headers are walked to "
      "their end, as the hook walks them (no bound a sender could pass)", [
          (chain17, w(D, pa=D, src=D)),
          (bytes(frame("u6", ext=[DST() for _ in range(40)])), w(D, pa=D, src=D)),
          (bytes(frame("u6", ext=[DST() for _ in range(200)])), w(D, pa=D, src=D)),
          (bytes(frame("u6", ext=[DST() for _ in range(15)] + [FRAG()])), w(D)),
          (bytes(frame("u6", ext=[DST() for _ in range(16)] + [FRAG(off=8)])), w(P, pa=D, src=D)),
      ])
if expect("full", chain17, bound=16) != P:
    MIRROR_BAD.append("a walk bounded at 16 would not miss 17 headers")

sweep("cut4", "IPv4 cut at every length (UDP with options behind a tag; "
      "SCTP; a non-first fragment): no crash, the hook's verdicts", [
          frame("u4", tags=[0x8100], v4=dict(options=RR)),
          frame("s4"),
          frame("f4", v4=dict(frag=2, flags="MF")),
          frame("i4", tags=[0x88a8, 0x8100]),
      ])
sweep("cut6", "IPv6 cut at every length (TCP after hop-by-hop, destination "
      "options, a first fragment, behind two tags; UDP after routing and "
      "AH; a non-first fragment; ICMPv6; no next header)", [
          frame("t6", tags=[0x88a8, 0x8100], ext=[HBH(), DST(), FRAG()]),
          frame("u6", ext=[RT(), ah(17)]),
          frame("f6", ext=[ah(44), FRAG(off=3)]),
          frame("i6"),
          eth() / ip6("n6") / DST(nh=59) / PAY,
      ])

for fn, f in FILTERS.items():
    with open(os.path.join(OUT, "pkts." + fn), "w") as fp, \
         open(os.path.join(OUT, "want." + fn), "w") as fw:
        for lab, g, b, want in PKTS[fn]:
            fp.write("%s %s\n" % (lab, b.hex() or "-"))
            fw.write("%s %s %s\n" % (lab, g, want))
    if f is None:
        continue
    kf, inv, ents, key = f
    with open(os.path.join(OUT, "create." + fn), "w") as fc:
        fc.write("key %s capacity 1000 fingerprint 32 seed 1%s\n"
                 % (key, " invert" if inv else ""))
    # The lookups both programs make the filter count: those of the
    # packets that hold every field it needs.
    n = 0
    for lab, g, b, want in PKTS[fn]:
        have = mirror(b)[1] if len(b) >= 14 else 0
        n += 2 if have and not kf & ~have else 0
    with open(os.path.join(OUT, "lookups." + fn), "w") as fl:
        fl.write("%d\n" % n)
    with open(os.path.join(OUT, "entries." + fn), "w") as fe:
        for e in ents:
            fe.write(ent_text(FL[e], kf) + "\n")
with open(os.path.join(OUT, "groups"), "w") as fg:
    for g, desc in GROUPS:
        fg.write("%s\t%s\n" % (g, desc))
with open(os.path.join(OUT, "mirror"), "w") as fm:
    for m in MIRROR_BAD:
        fm.write(m + "\n")
