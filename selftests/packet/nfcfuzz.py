#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fuzz nf_cuckoo's packet parser through a filter at every hook and family.

Run by pkt_fuzz.sh, which builds the namespaces c -- r -- s (r routes
between them) and an nftables table in r that logs every packet at each of
the five hooks to NFLOG group 1 just before nf_cuckoo (priority -301) and
to group 2 just after it (-299).  This program, run outside the namespaces,
enters them itself (setns):

  - in r it creates the filters (FILTERS below: every hook x family, keys,
    actions, invert, bidirectional) with one `cfctl restore`, and reads
    both NFLOG groups;
  - it crafts packets with scapy and puts them on the wire from c or s
    (AF_PACKET, straight into r) or sends them from r itself through raw
    sockets (r's output and postrouting hooks, where IPv6 headers with
    lengths of any kind reach the hook);
  - a model of the packet path, written from the documented rules
    (doc/design.md "The packet path", uapi/linux/nf_cuckoo.h), decides
    for every packet logged before nf_cuckoo at a hook what the filters
    there must do: drop it (it must not be logged after), or pass it with
    which mark.
    A packet the stack discards before a hook is not logged there and is
    not counted: only what reaches the hook is judged.

Phases: structured cases with explicit expectations (the listed flow behind
IPv4 options, IPv6 extension header chains, fragments, truncated headers,
unknown protocols, ICMP errors...), then random packets from a seed
(truncations, bad lengths, options, chains, fragments in random order, ICMP
errors quoting listed flows) for a bounded time.  Every phase is judged
hook by hook: the packets logged after nf_cuckoo must be exactly (as a
multiset, with their marks) those the model lets through of the packets
logged before it; and at the end each filter's counters (lookups, matches,
drops, marks) must equal the model's.

Last, every packet sent goes through the XDP and the tc program cfctl
ships (--prog-test: selftests/bpf/prog_test.c, BPF_PROG_TEST_RUN), asking
each filter in turn: the program must drop exactly the packets the model
says that filter's hook matches (after the counters are compared: the
program's lookups count in them too).

Output: "ok DESC" / "not ok DESC" lines (a fixed number, POINTS), and
"# ..." diagnostics; pkt_fuzz.sh turns them into TAP.
"""

import argparse
import collections
import ctypes
import errno
import json
import logging
import os
import random
import select
import socket
import struct
import subprocess
import sys
import time

logging.getLogger("scapy").setLevel(logging.ERROR)
from scapy.layers.inet import IP, ICMP  # noqa: E402
from scapy.layers.inet6 import (IPv6, IPv6ExtHdrHopByHop,  # noqa: E402
                                IPv6ExtHdrDestOpt, IPv6ExtHdrRouting,
                                IPv6ExtHdrFragment, PadN, ICMPv6DestUnreach,
                                ICMPv6PacketTooBig, ICMPv6TimeExceeded,
                                ICMPv6ParamProblem)
from scapy.packet import Raw  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nfcpkt import csum  # noqa: E402
import skbkey  # noqa: E402

# How many result lines this program prints: pkt_fuzz.sh plans on it.
POINTS = 13

# Addresses: c -- r -- s.  s has a second address of each family.
C4, R4C, R4S, S4, S4B = "10.1.0.2", "10.1.0.1", "10.2.0.1", "10.2.0.2", \
    "10.2.0.3"
C6, R6C, R6S, S6, S6B = "fd01::2", "fd01::1", "fd02::1", "fd02::2", \
    "fd02::3"
NOWHERE4, NOWHERE6 = "10.9.0.9", "fd09::9"    # r has no route: unreachable

HOOKS = ["prerouting", "input", "forward", "output", "postrouting"]
PF = {2: 4, 10: 6}                  # NFPROTO_IPV4/6 -> IP version
TCP, UDP, DCCP, SCTP, UDPLITE, ICMP4, ICMP6 = 6, 17, 33, 132, 136, 1, 58
PORT_PROTOS = skbkey.PORT_PROTOS
PROTO_NAMES = {TCP: "tcp", UDP: "udp", DCCP: "dccp", SCTP: "sctp",
               UDPLITE: "udplite", ICMP4: "icmp", ICMP6: "icmpv6"}

# Key fields (enum nf_cuckoo_key_field)
K_SRC, K_DST, K_SPORT, K_DPORT, K_PROTO = (skbkey.SRC, skbkey.DST,
                                           skbkey.SPORT, skbkey.DPORT,
                                           skbkey.PROTO)
K_ALL, K_ADDRS = skbkey.ALL, skbkey.ADDRS
K_NAMES = {"src": K_SRC, "dst": K_DST, "sport": K_SPORT, "dport": K_DPORT,
           "proto": K_PROTO}


def flow(proto, src, sport, dst, dport):
    return (proto, src, sport, dst, dport)


# The filters, in creation order (the order the hook consults them within
# one hook and priority).  Every hook has one of each family; keys, actions,
# invert and bidirectional vary.  32-bit fingerprints: false positives
# (2b / 2^32) cannot spoil an exact comparison.
#   (name, hook, family, key, action, flags, entries)
FILTERS = [
    ("pre4", "prerouting", "ip", "all", "drop", [], [
        flow(UDP, C4, 1001, S4, 2001), flow(TCP, C4, 1002, S4, 2002),
        flow(UDPLITE, C4, 1005, S4, 2005), flow(UDP, C4, 1004, R4C, 2004)]),
    ("pre6", "prerouting", "ip6", "all", "drop", [], [
        flow(UDP, C6, 1001, S6, 2001), flow(TCP, C6, 1002, S6, 2002),
        flow(SCTP, C6, 1003, S6, 2003), flow(DCCP, C6, 1006, S6, 2006),
        flow(UDP, C6, 1004, R6C, 2004)]),
    ("preI", "prerouting", "inet", "src,dst,proto", "drop", [], [
        flow(253, C4, 0, S4B, 0), flow(253, C6, 0, S6B, 0),
        flow(59, C6, 0, S6B, 0)]),
    ("pcnt", "prerouting", "inet", "all", "count", [], [
        flow(UDP, C4, 0, S4, 0), flow(UDP, C6, 0, S6, 0),
        flow(ICMP4, C4, 0, S4, 0)]),
    ("in4", "input", "ip", "all", "drop", ["bidirectional"], [
        flow(UDP, R4C, 2101, C4, 1101)]),
    ("in6", "input", "ip6", "dst,dport,proto", "mark 0x10/0xff", [], [
        flow(UDP, None, 0, R6C, 2102)]),
    ("inI", "input", "inet", "all", "mark 0x100/0xf00", ["invert"], [
        flow(UDP, C4, 1103, R4C, 2103), flow(UDP, C6, 1103, R6C, 2103)]),
    ("fwd4", "forward", "ip", "all", "drop", [], [
        flow(UDP, C4, 1201, S4, 2201), flow(TCP, C4, 1202, S4, 2202),
        flow(SCTP, C4, 1203, S4, 2203), flow(DCCP, C4, 1206, S4, 2206)]),
    ("fwd6", "forward", "ip6", "all", "drop", ["bidirectional"], [
        flow(UDP, C6, 1201, S6, 2201), flow(TCP, S6, 2202, C6, 1202)]),
    ("fwdI", "forward", "inet", "src,dst", "count", [], [
        flow(None, C4, 0, S4B, 0), flow(None, C6, 0, S6B, 0)]),
    ("out4", "output", "ip", "all", "drop", [], [
        flow(UDP, R4S, 1301, S4, 2301)]),
    ("out6", "output", "ip6", "all", "mark 0x20/0xff", [], [
        flow(UDP, R6S, 1302, S6, 2302)]),
    ("outI", "output", "inet", "proto,dport", "drop", [], [
        flow(UDP, None, 0, None, 2303), flow(253, None, 0, None, 0)]),
    ("post4", "postrouting", "ip", "src,dst,proto,dport", "mark 0x30/0xff",
     [], [flow(TCP, C4, 0, S4, 2403)]),
    ("post6", "postrouting", "ip6", "all", "drop", [], [
        flow(UDP, C6, 1401, S6, 2401), flow(UDP, R6S, 1402, S6, 2402)]),
    ("postI", "postrouting", "inet", "all", "count", ["invert"], [
        flow(UDP, C4, 1403, S4, 2404)]),
]


# --- the model: the documented packet path -------------------------------

def addr16(a):
    if ":" in a:
        return socket.inet_pton(socket.AF_INET6, a)
    return socket.inet_pton(socket.AF_INET, a) + bytes(12)


def parse(ver, b):
    """The key of packet @b as the hook builds it: (valid fields, key),
    skbkey.key()'s with the addresses in 16 bytes, as the key holds
    them."""
    have, k = skbkey.key(ver, b)
    k["src"], k["dst"] = k["src"].ljust(16, b"\0"), k["dst"].ljust(16, b"\0")
    return have, k


def finish(k, fields, bidir):
    """nfcf_flowkey_finish(): mask to the filter's fields, canonical order."""
    src = k["src"] if fields & K_SRC else bytes(16)
    dst = k["dst"] if fields & K_DST else bytes(16)
    fam = k["fam"] if fields & K_ADDRS else 0
    sp = k["sport"] if fields & K_SPORT else 0
    dp = k["dport"] if fields & K_DPORT else 0
    pr = k["proto"] if fields & K_PROTO else 0
    if bidir and (src > dst or (src == dst and sp > dp)):
        src, dst, sp, dp = dst, src, dp, sp
    return (fam, src, dst, sp, dp, pr)


class Filter:
    def __init__(self, name, hook, family, key, action, flags, entries):
        self.name, self.hook, self.family = name, hook, family
        self.hooknum = HOOKS.index(hook)
        self.vers = {"ip": {4}, "ip6": {6}, "inet": {4, 6}}[family]
        self.keyspec = key
        self.fields = K_ALL if key == "all" else \
            sum(K_NAMES[f] for f in key.split(","))
        self.action, self.mark, self.mask = action, 0, 0
        if action.startswith("mark"):
            v, m = action.split()[1].split("/")
            self.action, self.mark, self.mask = "mark", int(v, 0), int(m, 0)
        self.flags = flags
        self.invert = "invert" in flags
        self.bidir = "bidirectional" in flags
        self.entries = entries
        self.keys = set()
        for e in entries:
            proto, src, sport, dst, dport = e
            ver = 6 if ":" in (src or dst or "0") else 4
            k = {"fam": ver, "src": addr16(src) if src else bytes(16),
                 "dst": addr16(dst) if dst else bytes(16), "sport": sport,
                 "dport": dport, "proto": proto or 0}
            self.keys.add(finish(k, self.fields, self.bidir))
        self.stats = collections.Counter()

    def cfctl(self):
        """The filter as `cfctl restore` lines."""
        act = self.action if self.action != "mark" else \
            "mark 0x%x/0x%x" % (self.mark, self.mask)
        lines = ["create %s family %s key %s hook %s action %s "
                 "fingerprint 32 capacity 64 %s" %
                 (self.name, self.family, self.keyspec, self.hook, act,
                  " ".join(self.flags))]
        for proto, src, sport, dst, dport in self.entries:
            w = []
            if self.fields & K_SRC:
                w.append("src " + src)
            if self.fields & K_DST:
                w.append("dst " + dst)
            # ports: 0 spelt out, but none for a protocol without them
            if proto in PORT_PROTOS or not self.fields & K_PROTO:
                if self.fields & K_SPORT:
                    w.append("sport %d" % sport)
                if self.fields & K_DPORT:
                    w.append("dport %d" % dport)
            if self.fields & K_PROTO:
                w.append("proto " + PROTO_NAMES.get(proto, str(proto)))
            lines.append("add %s %s" % (self.name, " ".join(w)))
        return lines


def verdict(filters, hooknum, ver, b, mark, count=True):
    """What the filters at a hook do to a packet: (dropped, mark after)."""
    have, k = parse(ver, b)
    for f in filters:
        if f.hooknum != hooknum or ver not in f.vers:
            continue
        if f.fields & ~have:
            continue        # not looked up: passes untouched
        hit = (finish(k, f.fields, f.bidir) in f.keys) != f.invert
        if count:
            f.stats["lookups"] += 1
            f.stats["matches"] += hit
        if hit and f.action == "drop":
            if count:
                f.stats["dropped"] += 1
            return True, mark
        if hit and f.action == "mark":
            mark = (mark & ~f.mask) | (f.mark & f.mask)
            if count:
                f.stats["marked"] += 1
    return False, mark


# --- NFLOG ----------------------------------------------------------------

NETLINK_NETFILTER = 12
NFULNL_MSG_TYPE = 4 << 8             # NFNL_SUBSYS_ULOG
NLM_F_REQUEST, NLM_F_ACK = 1, 4


def nla(t, data):
    n = 4 + len(data)
    return struct.pack("=HH", n, t) + data + bytes((4 - n % 4) % 4)


class NFLog:
    """Both NFLOG groups of the namespace we are in, one socket."""

    def __init__(self, groups):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_NETFILTER)
        try:        # SO_RCVBUFFORCE: past net.core.rmem_max
            self.s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)
        except OSError:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
        self.s.bind((0, 0))
        self.seq = {}
        self.lost = 0
        self.records = []
        for g in groups:
            # BIND; copy whole packets; send each at once; sequence numbers
            self.config(g, nla(1, b"\x01") +
                        nla(2, struct.pack("!IBB", 0xffff, 2, 0)) +
                        nla(5, struct.pack("!I", 1)) +
                        nla(4, struct.pack("!I", 1)) +
                        nla(6, struct.pack("!H", 1)))
        self.s.setblocking(False)

    def config(self, group, attrs):
        body = struct.pack("=BBH", 0, 0, socket.htons(group)) + attrs
        self.s.send(struct.pack("=IHHII", 16 + len(body), NFULNL_MSG_TYPE | 1,
                                NLM_F_REQUEST | NLM_F_ACK, group, 0) + body)
        data = self.s.recv(65536)
        err = struct.unpack_from("=i", data, 16)[0]
        if err:
            raise OSError(-err, "NFLOG config of group %d" % group)

    def drain(self, wait=0.0):
        """Read what is queued; wait up to @wait seconds for the first."""
        n = 0
        while True:
            r, _, _ = select.select([self.s], [], [], wait if not n else 0)
            if not r:
                return n
            try:
                data = self.s.recv(1 << 20)
            except BlockingIOError:
                return n
            except OSError as e:
                if e.errno == errno.ENOBUFS:
                    self.lost += 1
                    continue
                raise
            n += self.parse(data)

    def quiet(self, secs):
        """Drain until nothing came for @secs seconds."""
        while self.drain(secs):
            pass

    def parse(self, data):
        off, n = 0, 0
        while off + 16 <= len(data):
            ln, typ = struct.unpack_from("=IH", data, off)
            if ln < 16:
                break
            if typ == NFULNL_MSG_TYPE:
                self.record(data[off + 16:off + ln])
                n += 1
            off += (ln + 3) & ~3
        return n

    def record(self, m):
        pf, _, group = struct.unpack_from("!BBH", m, 0)
        off, hook, mark, payload, seq = 4, None, 0, b"", None
        while off + 4 <= len(m):
            ln, t = struct.unpack_from("=HH", m, off)
            if ln < 4:
                break
            v = m[off + 4:off + ln]
            t &= 0x3fff
            if t == 1:
                hook = v[2]
            elif t == 2:
                mark = struct.unpack("!I", v)[0]
            elif t == 9:
                payload = bytes(v)
            elif t == 12:
                seq = struct.unpack("!I", v)[0]
            off += (ln + 3) & ~3
        if seq is not None:
            if group in self.seq and seq != self.seq[group] + 1:
                self.lost += 1
            self.seq[group] = seq
        if pf in PF:
            self.records.append((group, PF[pf], hook, mark, payload))

    def take(self):
        r, self.records = self.records, []
        return r


# --- namespaces, senders ----------------------------------------------------

libc = ctypes.CDLL(None, use_errno=True)


def setns(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, 0x40000000) != 0:     # CLONE_NEWNET
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (path, os.strerror(e)))
    finally:
        os.close(fd)


class Senders:
    def __init__(self, args):
        self.wire = {}
        for side, path, dev, mac in (("c", args.ns_c, "vc", args.mac_rc),
                                     ("s", args.ns_s, "vs", args.mac_rs)):
            setns(path)
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            s.bind((dev, 0))
            self.wire[side] = (s, bytes.fromhex(mac.replace(":", "")) +
                               s.getsockname()[4])
        setns(args.ns_r)
        self.raw = {4: socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                     socket.IPPROTO_RAW),
                    6: socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                                     socket.IPPROTO_RAW)}
        self.sent = collections.Counter()

    def send(self, where, pkt):
        """Put IP packet @pkt on c's or s's wire into r, or send it from r.
        Return True if it left (the stack may refuse it: MTU, EINVAL)."""
        ver = pkt[0] >> 4 if pkt else 4
        try:
            if where == "r":
                if ver == 4:
                    dst = socket.inet_ntop(socket.AF_INET, pkt[16:20])
                else:
                    dst = socket.inet_ntop(socket.AF_INET6, pkt[24:40])
                self.raw[6 if ver == 6 else 4].sendto(pkt, (dst, 0))
            else:
                s, hdr = self.wire[where]
                s.send(hdr + struct.pack("!H", 0x86dd if ver == 6 else 0x800) +
                       pkt)
        except OSError as e:
            if e.errno != errno.EPERM:
                self.sent["refused"] += 1
                return False
            self.sent["eperm"] += 1     # dropped at r's output path
        except (IndexError, ValueError):
            self.sent["refused"] += 1
            return False
        self.sent[where] += 1
        return True


# --- packets ----------------------------------------------------------------

def l4(proto, sport, dport, payload=b"nfcfuzz!"):
    """An L4 header of the kind @proto has (ports first where it has them)."""
    if proto in (UDP, UDPLITE):
        return struct.pack("!HHHH", sport, dport,
                           8 + len(payload) if proto == UDP else 8,
                           0) + payload
    if proto == TCP:
        return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 0x50, 0x02,
                           8192, 0, 0) + payload
    if proto == SCTP:
        return struct.pack("!HHII", sport, dport, 0, 0) + payload
    if proto == DCCP:
        return struct.pack("!HHBBHHHI", sport, dport, 4, 0, 0, 0, 0,
                           0) + payload
    if proto == ICMP4:
        return struct.pack("!BBHHH", 8, 0, 0, 0x4e46, 1) + payload
    if proto == ICMP6:
        return struct.pack("!BBHHH", 128, 0, 0, 0x4e46, 1) + payload
    return payload


def ip4(src, dst, proto, body, tag, ttl=64, opts=b"", frag=0, mf=False,
        tot=None):
    """IPv4; @opts (a multiple of 4 bytes) spliced in as they are."""
    h = bytes(IP(src=src, dst=dst, proto=proto, id=tag, ttl=ttl, frag=frag,
                 flags="MF" if mf else 0))[:20]
    if tot is None:
        tot = 20 + len(opts) + len(body)
    h = bytes([0x45 + len(opts) // 4]) + h[1:2] + struct.pack("!H", tot) + \
        h[4:10] + b"\0\0" + h[12:20] + opts
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + body


def frags4(src, dst, proto, body, tag, ttl, opts, step):
    """@body in IPv4 fragments of @step bytes (options in the first)."""
    return [ip4(src, dst, proto, body[o:o + step], tag, ttl,
                opts if not o else b"", frag=o // 8, mf=o + step < len(body))
            for o in range(0, len(body), step)]


def ext6(kind, nh, rng=None):
    """One IPv6 extension header (bytes) of @kind, next header @nh."""
    if kind in ("hop", "dst"):
        pad = 4 if rng is None else rng.choice((4, 12, 20))
        cls = IPv6ExtHdrHopByHop if kind == "hop" else IPv6ExtHdrDestOpt
        return bytes(cls(nh=nh, options=[PadN(optdata=bytes(pad))]))
    if kind == "rt":
        typ = 0 if rng is None else rng.choice((0, 2, 4))
        return bytes(IPv6ExtHdrRouting(nh=nh, type=typ, segleft=0,
                                       addresses=[]))
    if kind == "ah":        # RFC 4302: length in 4-byte units minus 2
        return struct.pack("!BBHII", nh, 4, 0, 0x100, 1) + bytes(12)
    raise ValueError(kind)


def ip6(src, dst, proto, body, tag, exts=(), hlim=64, plen=None, rng=None,
        frag=None):
    """IPv6 with extension headers @exts (kinds, in order) before @body;
    @frag: (offset, more) for a fragment header after them."""
    chain = list(exts) + (["frag"] if frag else [])
    nh = proto
    for kind in reversed(chain):
        if kind == "frag":
            body = bytes(IPv6ExtHdrFragment(nh=nh, offset=frag[0],
                                            m=int(frag[1]), id=tag)) + body
            nh = 44
        else:
            body = ext6(kind, nh, rng) + body
            nh = {"hop": 0, "dst": 60, "rt": 43, "ah": 51}[kind]
    p = IPv6(src=src, dst=dst, nh=nh, hlim=hlim, fl=tag & 0xfffff)
    if plen is not None:
        p.plen = plen
    return bytes(p / Raw(body))


def icmp_err(ver, src, dst, quoted, tag, kind=0):
    """An ICMP(v6) error from @src to @dst quoting packet @quoted."""
    if ver == 4:
        t, c = ((3, 3), (11, 0), (12, 0), (3, 4))[kind % 4]
        return bytes(IP(src=src, dst=dst, id=tag) / ICMP(type=t, code=c) /
                     Raw(quoted))
    cls = (ICMPv6DestUnreach, ICMPv6TimeExceeded, ICMPv6ParamProblem,
           ICMPv6PacketTooBig)[kind % 4]
    return bytes(IPv6(src=src, dst=dst, fl=tag & 0xfffff) / cls() /
                 Raw(quoted))


def ident(ver, b):
    """A packet's identity across hooks: TTL / hop limit and the IPv4
    header checksum (forwarding changes them) zeroed."""
    if ver == 4 and len(b) >= 12:
        return b[:8] + b"\0" + b[9:10] + b"\0\0" + b[12:]
    if ver == 6 and len(b) >= 8:
        return b[:7] + b"\0" + b[8:]
    return b


# Structured cases: (description, group, where, packet, {hook: expect}).
# expect: "drop", or the mark the packet must leave the hook with (it
# must then be seen there: a packet the stack failed to deliver fails the
# case rather than pass it unseen).
def structured():
    cases = []
    tag = [0x7000]

    def case(desc, group, where, pkts, logged=None, **expect):
        """@pkts: one packet or a list; @logged: what the hooks in @expect
        see of them if not those (a reassembled datagram)."""
        pkts = pkts if isinstance(pkts, list) else [pkts]
        cases.append((desc, group, where, pkts, expect, logged or pkts))

    def t():
        tag[0] += 1
        return tag[0]

    u = l4(UDP, 1001, 2001)
    opts40 = b"\x01" * 39 + b"\x00"
    g = "pre-listed"
    case("IPv4 listed UDP", g, "c", ip4(C4, S4, UDP, u, t()), prerouting="drop")
    case("IPv4 listed UDP behind 40 bytes of options", g, "c",
         ip4(C4, S4, UDP, u, t(), opts=opts40), prerouting="drop")
    case("IPv4 listed UDP, first fragment", g, "c",
         ip4(C4, S4, UDP, u, t(), mf=True), prerouting="drop")
    case("IPv4 listed TCP behind a router alert option", g, "c",
         ip4(C4, S4, TCP, l4(TCP, 1002, 2002), t(),
             opts=b"\x94\x04\x00\x00"), prerouting="drop")
    case("IPv4 listed UDP-Lite", g, "c",
         ip4(C4, S4, UDPLITE, l4(UDPLITE, 1005, 2005), t()),
         prerouting="drop")
    u6 = l4(UDP, 1001, 2001)
    case("IPv6 listed UDP behind hop-by-hop, dest opts, routing", g, "c",
         ip6(C6, S6, UDP, u6, t(), exts=("hop", "dst", "rt")),
         prerouting="drop")
    case("IPv6 listed UDP behind 30 destination options headers", g, "c",
         ip6(C6, S6, UDP, u6, t(), exts=("dst",) * 30), prerouting="drop")
    case("IPv6 listed UDP behind hbh, AH, routing, dst", g, "c",
         ip6(C6, S6, UDP, u6, t(), exts=("hop", "ah", "rt", "dst")),
         prerouting="drop")
    case("IPv6 listed UDP, first fragment behind dst opts", g, "c",
         ip6(C6, S6, UDP, u6, t(), exts=("dst",), frag=(0, True)),
         prerouting="drop")
    case("IPv6 listed UDP, atomic fragment", g, "c",
         ip6(C6, S6, UDP, u6, t(), frag=(0, False)), prerouting="drop")
    case("IPv6 listed SCTP", g, "c",
         ip6(C6, S6, SCTP, l4(SCTP, 1003, 2003), t()), prerouting="drop")
    case("IPv6 listed DCCP behind routing", g, "c",
         ip6(C6, S6, DCCP, l4(DCCP, 1006, 2006), t(), exts=("rt",)),
         prerouting="drop")

    g = "pre-unparsable"
    case("IPv4 non-first fragment, listed ports in its payload", g, "c",
         ip4(C4, S4, UDP, u, t(), frag=3), prerouting=0, forward=0)
    case("IPv4 UDP header cut to 2 bytes", g, "c",
         ip4(C4, S4, UDP, u[:2], t()), prerouting=0)
    case("IPv4 TCP header cut to 3 bytes", g, "c",
         ip4(C4, S4, TCP, l4(TCP, 1002, 2002)[:3], t()), prerouting=0)
    case("IPv6 non-first fragment, listed ports in its payload", g, "c",
         ip6(C6, S6, UDP, u6, t(), frag=(2, False)), prerouting=0, forward=0)
    case("IPv6 UDP header cut to 3 bytes behind hbh", g, "c",
         ip6(C6, S6, UDP, u6[:3], t(), exts=("hop",)), prerouting=0)
    case("IPv6 chain running past the end (dst opts claiming 48 bytes)", g,
         "c", ip6(C6, S6, 60, struct.pack("!BB", UDP, 5) + bytes(6) + u6,
                  t()), prerouting=0)

    g = "proto"
    case("IPv4 unknown protocol 253 to a listed pair (src,dst,proto key)", g,
         "c", ip4(C4, S4B, 253, b"\x03\xe9\x07\xd1xxxx", t()),
         prerouting="drop")
    case("IPv6 unknown protocol 253 behind dst opts to a listed pair", g, "c",
         ip6(C6, S6B, 253, b"abcdefgh", t(), exts=("dst",)),
         prerouting="drop")
    case("IPv6 no next header (59) to a listed pair", g, "c",
         ip6(C6, S6B, 59, b"", t(), exts=("hop",)), prerouting="drop")
    case("IPv4 protocol 253 to another address passes", g, "c",
         ip4(C4, S4, 253, b"xxxxxxxx", t()), prerouting=0, forward=0)
    case("IPv6 protocol 254 to the listed pair passes", g, "c",
         ip6(C6, S6B, 254, b"xxxxxxxx", t()), prerouting=0, forward=0)

    g = "icmp"
    inner4 = ip4(S4, C4, UDP, l4(UDP, 2001, 1001), 0x1111)
    case("ICMP port unreachable c -> s quoting the listed flow's reply", g,
         "c", icmp_err(4, C4, S4, inner4, t()), prerouting=0)
    case("ICMPv6 errors c -> s quoting the listed flow", g, "c",
         icmp_err(6, C6, S6, ip6(C6, S6, UDP, u6, 0x2222), t()),
         prerouting=0)
    case("ICMP time exceeded s -> c quoting a listed forward flow", g, "s",
         icmp_err(4, S4, C4, ip4(C4, S4, UDP, l4(UDP, 1201, 2201), 3), t(), 1),
         prerouting=0, forward=0)
    case("ICMPv6 packet too big s -> c quoting a listed forward flow", g,
         "s", icmp_err(6, S6, C6, ip6(C6, S6, UDP, l4(UDP, 1201, 2201), 3),
                       t(), 3), prerouting=0, forward=0)

    g = "input"
    case("IPv4 reverse of a bidirectional entry: dropped at input", g, "c",
         ip4(C4, R4C, UDP, l4(UDP, 1101, 2101), t()), prerouting=0,
         input="drop")
    case("IPv4 unlisted: the invert filter marks 0x100", g, "c",
         ip4(C4, R4C, UDP, l4(UDP, 1102, 2101), t()), input=0x100)
    case("IPv4 listed in the invert filter: no mark", g, "c",
         ip4(C4, R4C, UDP, l4(UDP, 1103, 2103), t()), input=0)
    case("IPv6 to a listed dst,dport,proto: 0x10, and invert 0x100", g, "c",
         ip6(C6, R6C, UDP, l4(UDP, 5555, 2102), t(), exts=("dst",)),
         input=0x110)
    case("IPv6 UDP header cut short: neither filter looks it up", g, "c",
         ip6(C6, R6C, UDP, l4(UDP, 5555, 2102)[:3], t()), input=0)
    case("IPv6 non-first fragment: ports 0, marked by invert only", g, "c",
         ip6(C6, R6C, UDP, l4(UDP, 5555, 2102), t(), frag=(4, True)),
         input=0x100)
    dgram = l4(UDP, 1101, 2101, bytes(16))
    case("IPv4 fragments, reassembled before input: listed, dropped", g, "c",
         frags4(C4, R4C, UDP, dgram, t(), 64, b"", 16),
         logged=[ip4(C4, R4C, UDP, dgram, tag[0])], input="drop")

    g = "forward"
    case("IPv4 listed UDP c -> s: passes prerouting, dropped at forward", g,
         "c", ip4(C4, S4, UDP, l4(UDP, 1201, 2201), t()), prerouting=0,
         forward="drop")
    case("IPv4 listed TCP behind options", g, "c",
         ip4(C4, S4, TCP, l4(TCP, 1202, 2202), t(), opts=b"\x01" * 8),
         forward="drop")
    case("IPv4 listed SCTP and DCCP", g, "c",
         [ip4(C4, S4, SCTP, l4(SCTP, 1203, 2203), t()),
          ip4(C4, S4, DCCP, l4(DCCP, 1206, 2206), t())], forward="drop")
    case("IPv6 bidirectional entry, both directions", g, "c",
         ip6(C6, S6, UDP, l4(UDP, 1201, 2201), t()), forward="drop")
    case("IPv6 bidirectional entry, from s", g, "s",
         ip6(S6, C6, UDP, l4(UDP, 2201, 1201), t(), exts=("hop", "dst")),
         forward="drop")
    case("IPv6 bidirectional TCP entry written s -> c, packet c -> s", g, "c",
         ip6(C6, S6, TCP, l4(TCP, 1202, 2202), t()), forward="drop")
    case("IPv4 another port of a listed flow passes", g, "c",
         ip4(C4, S4, UDP, l4(UDP, 1201, 2202), t()), forward=0, postrouting=0)
    case("IPv4 to a pair a count filter holds: passes", g, "c",
         ip4(C4, S4B, UDP, l4(UDP, 7, 7), t()), forward=0, postrouting=0)

    g = "output"
    case("IPv4 local listed UDP: dropped at output", g, "r",
         ip4(R4S, S4, UDP, l4(UDP, 1301, 2301), t()), output="drop")
    case("IPv6 local listed UDP: marked 0x20 at output", g, "r",
         ip6(R6S, S6, UDP, l4(UDP, 1302, 2302), t()), output=0x20,
         postrouting=0x20)
    case("IPv4 and IPv6 local UDP to dport 2303 (proto,dport key)", g, "r",
         [ip4(R4S, S4, UDP, l4(UDP, 9, 2303), t()),
          ip6(R6S, S6, UDP, l4(UDP, 9, 2303), t(), exts=("dst",))],
         output="drop")
    case("IPv6 local unknown protocol 253 (entry proto 253, port 0)", g, "r",
         ip6(R6S, S6, 253, b"\x00\x09\x08\xffxxxx", t()), output="drop")
    case("IPv6 local, payload length past the end: untouched", g, "r",
         ip6(R6S, S6, UDP, l4(UDP, 9, 2303), t(), plen=500), output=0)
    case("IPv6 local, payload length too short for the ports: untouched", g,
         "r", ip6(R6S, S6, UDP, l4(UDP, 9, 2303), t(), plen=2), output=0)
    case("IPv6 local, payload length 0 (no jumbogram): ports past it", g,
         "r", ip6(R6S, S6, UDP, l4(UDP, 1302, 2302), t(), plen=0), output=0)
    case("IPv6 local, chain past the payload length: untouched", g, "r",
         ip6(R6S, S6, UDP, l4(UDP, 9, 2303), t(), exts=("dst", "dst"),
             plen=12), output=0)

    g = "postrouting"
    case("IPv6 forwarded listed UDP: dropped at postrouting", g, "c",
         ip6(C6, S6, UDP, l4(UDP, 1401, 2401), t()), forward=0,
         postrouting="drop")
    case("IPv6 local listed UDP: passes output, dropped at postrouting", g,
         "r", ip6(R6S, S6, UDP, l4(UDP, 1402, 2402), t()), output=0,
         postrouting="drop")
    case("IPv4 forwarded TCP to a listed src,dst,proto,dport: 0x30", g, "c",
         ip4(C4, S4, TCP, l4(TCP, 4444, 2403), t()), forward=0,
         postrouting=0x30)
    return cases


GROUPS = ["pre-listed", "pre-unparsable", "proto", "icmp", "input",
          "forward", "output", "postrouting"]
GROUP_DESC = {
    "pre-listed": "prerouting: listed flows behind IPv4 options, IPv6 "
                  "extension header chains (hbh, dst, rt, AH, 30 dst), "
                  "first and atomic fragments; UDP-Lite, SCTP, DCCP: dropped",
    "pre-unparsable": "non-first fragments (IPv4, IPv6) and L4 headers cut "
                      "short pass a 5-tuple filter untouched; so does an "
                      "IPv6 chain running past the end",
    "proto": "unknown protocol 253 and IPv6 no-next-header dropped by a "
             "src,dst,proto key; another protocol or address passes",
    "icmp": "ICMP and ICMPv6 errors quoting listed flows pass (ports 0)",
    "input": "input: bidirectional drop, dst,dport mark + invert mark "
             "(combined), no lookup of a cut-short header, fragments",
    "forward": "forward: listed UDP/TCP/SCTP/DCCP dropped, IPv6 "
               "bidirectional both ways; other flows pass",
    "output": "output (raw sockets in r): drop, mark, a proto,dport key; "
              "IPv6 lengths past the end or too short: untouched",
    "postrouting": "postrouting: forwarded and local flows dropped, "
                   "forwarded TCP marked",
}


# --- random packets ---------------------------------------------------------

def rand_flow(rng):
    """A flow, mostly one a filter lists, perturbed now and then."""
    while True:
        f = rng.choice(FILTERS)
        proto, src, sport, dst, dport = rng.choice(f[6])
        ver = 6 if ":" in (src or dst or "") else 4
        if f[2] == "inet" and not (src or dst):
            ver = rng.choice((4, 6))
        break
    pools = {4: (C4, S4, S4B, R4C, R4S), 6: (C6, S6, S6B, R6C, R6S)}
    src = src or rng.choice(pools[ver])
    dst = dst or rng.choice(pools[ver])
    if proto is None:
        proto = rng.choice((UDP, TCP, ICMP4 if ver == 4 else ICMP6, 253))
    sport = sport or rng.choice((0, 1, 53, rng.randrange(65536)))
    dport = dport or rng.choice((0, 53, rng.randrange(65536)))
    x = rng.random()
    if x < 0.15:
        src, dst, sport, dport = dst, src, dport, sport
    elif x < 0.25:
        dport = (dport + 1) & 0xffff
    elif x < 0.35:
        proto = rng.choice((UDP, TCP, SCTP, DCCP, UDPLITE, 50, 135, 139,
                            253, 254, rng.randrange(256)))
    elif x < 0.40:
        src = rng.choice(pools[ver] + ((NOWHERE4,) if ver == 4 else
                                       (NOWHERE6,)))
        dst = rng.choice(pools[ver] + ((NOWHERE4,) if ver == 4 else
                                       (NOWHERE6,)))
    return ver, proto, src, sport, dst, dport


def where_from(ver, src, dst, rng):
    """Inject where the source lives: c's wire, s's wire, or r itself."""
    if src in (C4, C6):
        return "c"
    if src in (S4, S4B, S6, S6B):
        return "s"
    if src in (R4C, R4S, R6C, R6S):
        return "r"
    return rng.choice("csr")


def rand_opts4(rng):
    kinds = [b"\x01", b"\x01\x01\x01\x01", b"\x94\x04\x00\x00",
             b"\x07\x07\x04" + bytes(4), b"\x44\x0c\x05\x00" + bytes(8),
             bytes([rng.randrange(256), 4, 0, 0])]
    o = b"".join(rng.choice(kinds) for _ in range(rng.randint(1, 6)))[:40]
    return o + b"\x00" * ((4 - len(o) % 4) % 4)


def rand_packets(rng, tag):
    """One random case: a list of (where, packet bytes), and its kind."""
    ver, proto, src, sport, dst, dport = rand_flow(rng)
    payload = bytes(rng.randrange(256)
                    for _ in range(rng.choice((0, 4, 8, 24, 64))))
    body = l4(proto, sport, dport, payload)
    where = where_from(ver, src, dst, rng)
    ttl = 1 if rng.random() < 0.05 else 64
    kind = "plain"
    opts, exts = b"", ()
    if ver == 4 and rng.random() < 0.3:
        opts = rand_opts4(rng)
        kind = "options"
    if ver == 6 and rng.random() < 0.45:
        n = rng.choice((1, 2, 3, 5, 8, 20))
        exts = tuple(rng.choice(("hop", "dst", "rt", "ah", "dst"))
                     for _ in range(n))
        if rng.random() < 0.5:
            exts = ("hop",) + exts
        kind = "ext-chain"
    x = rng.random()
    if x < 0.15:                        # L4 cut at a random length
        body = body[:rng.randrange(len(body) + 1)]
        kind = "truncated-l4"
    elif x < 0.30:                      # fragments, in random order
        kind = "fragments"
        step = rng.choice((8, 16, 24))
        data = body + bytes(24)
        if ver == 4:
            frags = frags4(src, dst, proto, data, tag, ttl, opts, step)
        else:
            # the unfragmentable part (exts) in each, then a fragment header
            whole = ip6(src, dst, proto, data, tag, exts=exts, hlim=ttl,
                        rng=rng, frag=(0, False))
            unf = whole[40:len(whole) - len(data) - 8]
            frags = []
            for o in range(0, len(data), step):
                pl = unf + struct.pack("!BBHI", proto, 0,
                                       o | int(o + step < len(data)),
                                       tag) + data[o:o + step]
                frags.append(whole[:4] + struct.pack("!H", len(pl)) +
                             whole[6:40] + pl)
        rng.shuffle(frags)
        if rng.random() < 0.3:
            frags.append(rng.choice(frags))         # a duplicate
        if rng.random() < 0.3 and len(frags) > 1:
            frags.pop(rng.randrange(len(frags)))    # one lost
        return [(where, f) for f in frags], kind
    elif x < 0.36:                      # a non-first fragment alone
        kind = "nonfirst-fragment"
    elif x < 0.44:
        kind = "bad-length"
    elif x < 0.50 and ver == 6:
        # a destination options header claiming more than there is
        kind = "broken-chain"
        body = struct.pack("!BB", proto, rng.randint(1, 30)) + bytes(6) + body
        proto = 60
    if ver == 4:
        pkt = ip4(src, dst, proto, body, tag, ttl, opts,
                  frag=rng.randint(1, 300) if kind == "nonfirst-fragment"
                  else 0, mf=kind == "nonfirst-fragment" and
                  rng.random() < 0.5)
        if kind == "bad-length":
            # too short: the stack trims; too long: it discards (from r's
            # raw socket, the kernel sets the right one)
            real = len(pkt)
            tot = max(0, min(65535, rng.choice((
                real - rng.randint(1, 12), real + 4, 0, 19,
                rng.randrange(65536)))))
            pkt = ip4(src, dst, proto, body, tag, ttl, opts, tot=tot)
    else:
        pkt = ip6(src, dst, proto, body, tag, exts=exts, hlim=ttl, rng=rng,
                  frag=(rng.randint(1, 300), rng.random() < 0.5)
                  if kind == "nonfirst-fragment" else None)
        if kind == "bad-length":
            real = len(pkt) - 40
            plen = max(0, min(65535, rng.choice((
                real - rng.randint(1, 12), real + 8, 0, 2,
                rng.randrange(65536)))))
            pkt = pkt[:4] + struct.pack("!H", plen) + pkt[6:]
            # only r's raw sockets bring a wrong payload length to a hook
            if rng.random() < 0.7:
                where = "r"
    y = rng.random()
    if y < 0.15:                        # an ICMP error quoting it
        kind = "icmp-error"
        quoted = pkt[:rng.choice((8, 20, 28, 48, 64, len(pkt)))]
        esrc = dst if dst not in (NOWHERE4, NOWHERE6) else src
        pkt = icmp_err(ver, esrc, src, quoted, tag ^ 0x5555,
                       rng.randrange(4))
        where = where_from(ver, esrc, src, rng)
    elif y < 0.20:                      # the whole packet cut anywhere
        kind = "truncated"
        pkt = pkt[:rng.randrange(len(pkt) + 1)]
    return [(where, pkt)], kind


# --- judging ------------------------------------------------------------------

class Judge:
    def __init__(self, filters):
        self.filters = filters
        self.totals = collections.Counter()
        self.seen = collections.Counter()

    def check(self, records):
        """Multisets per (version, hook): logged after == model(before)."""
        want = collections.defaultdict(collections.Counter)
        got = collections.defaultdict(collections.Counter)
        seen = collections.Counter()
        for group, ver, hook, mark, payload in records:
            self.seen[(group, ver, HOOKS[hook])] += 1
            if group == 1:
                seen[HOOKS[hook]] += 1
                dropped, m = verdict(self.filters, hook, ver, payload, mark)
                self.totals["dropped" if dropped else
                            ("marked" if m != mark else "passed")] += 1
                if not dropped:
                    want[(ver, hook)][(payload, m)] += 1
            else:
                got[(ver, hook)][(payload, mark)] += 1
        bad = []
        for k in set(want) | set(got):
            extra = got[k] - want[k]
            missing = want[k] - got[k]
            for (p, m), n in list(extra.items())[:3]:
                bad.append("IPv%d %s: passed but the model drops it (or "
                           "marks it otherwise), mark 0x%x, x%d: %s" %
                           (k[0], HOOKS[k[1]], m, n, p[:80].hex()))
            for (p, m), n in list(missing.items())[:3]:
                bad.append("IPv%d %s: the model passes it with mark 0x%x, "
                           "not seen after nf_cuckoo, x%d: %s" %
                           (k[0], HOOKS[k[1]], m, n, p[:80].hex()))
        return seen, bad


def kstats(args, log, judge=None):
    """Every filter's packet counters, read while no packet moves: the
    records that came meanwhile are judged (or, without @judge, left
    out) and the counters read again.  Returns them ({name: {counter:
    n}}), what judging found wrong, and an error or None."""
    bad = []
    for _ in range(5):
        log.quiet(args.quiet)
        rc, js = cfctl(args, "-j", "list")
        moved = log.drain(args.quiet / 2)
        recs = log.take()
        if judge:
            bad += judge.check(recs)[1]
        if not moved:
            break
    try:
        return ({f["name"]: f["stats"]["packets"] for f in json.loads(js)},
                bad, None)
    except (ValueError, KeyError) as e:
        return {}, bad, "cfctl -j list: %s: %s" % (e, js[:300])


def xdp_judge(args, filters, pkts, out):
    """The packets through cfctl's XDP and tc program, each filter asked
    in turn (prog_test, BPF_PROG_TEST_RUN): a verdict for each, against
    the model's lookup of that filter at its hook."""
    rc, txt = cfctl(args, "-j", "list")
    try:
        ids = {o["name"]: o["id"] for o in json.loads(txt)}
    except (ValueError, KeyError, TypeError):
        ids = {}
    frames = []
    for p in pkts:
        if not p:
            continue
        ver = 6 if p[0] >> 4 == 6 else 4
        frames.append((ver, p, bytes.fromhex("020000000001020000000002") +
                       struct.pack("!H", 0x86dd if ver == 6 else 0x800) + p))
    path = "/tmp/nfcfuzz-xdp.%d" % os.getpid()
    with open(path, "w") as fh:
        for i, (_, _, fr) in enumerate(frames):
            fh.write("%d %s\n" % (i, fr.hex()))
    bad, runs, drops = [], 0, 0
    for f in filters:
        if f.name not in ids:
            bad.append("no id for filter %s: %s" % (f.name, txt[:200]))
            continue
        r = subprocess.run([args.prog_test, "-o", args.bpf_obj,
                            str(ids[f.name]), path], capture_output=True,
                           text=True)
        lines = r.stdout.splitlines()
        if r.returncode or len(lines) != len(frames):
            bad.append("prog_test for %s: status %d, %d lines of %d: %s" %
                       (f.name, r.returncode, len(lines), len(frames),
                        r.stderr[-400:]))
            continue
        for line, (ver, p, _) in zip(lines, frames):
            _, x, t = line.split()
            have, k = parse(ver, p)
            hit = ver in f.vers and not f.fields & ~have and \
                (finish(k, f.fields, f.bidir) in f.keys) != f.invert
            runs += 1
            drops += hit
            # tc's test run refuses a frame shorter than its IP header.
            short = len(p) < (40 if ver == 6 else 20)
            if x != ("XDP_DROP" if hit else "XDP_PASS") or (
                    t != ("TC_ACT_SHOT" if hit else "TC_ACT_UNSPEC") and
                    not (t == "EINVAL" and short)):
                bad.append("%s: xdp %s, tc %s; the model's hook %s it: %s" %
                           (f.name, x, t, "matches" if hit else
                            "does not match", p[:64].hex()))
    os.unlink(path)
    out.point(not bad and runs > 0 and drops > 0,
              "the same %d packets through cfctl's XDP and tc program, each "
              "of the %d filters asked: %d verdicts, %d drops, each what the "
              "model gives the filter's hook" %
              (len(frames), len(filters), runs, drops), bad[:12])


def cfctl(args, *argv, stdin=None):
    r = subprocess.run([args.cfctl] + list(argv), input=stdin,
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


class Out:
    def __init__(self):
        self.n = 0

    def point(self, good, desc, diags=()):
        self.n += 1
        print(("ok " if good else "not ok ") + desc)
        for d in diags:
            print("# " + str(d))
        sys.stdout.flush()

    def diag(self, *lines):
        for d in lines:
            print("# " + str(d))
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ns-c", required=True)
    ap.add_argument("--ns-r", required=True)
    ap.add_argument("--ns-s", required=True)
    ap.add_argument("--mac-rc", required=True, help="r's MAC on c's link")
    ap.add_argument("--mac-rs", required=True, help="r's MAC on s's link")
    ap.add_argument("--cfctl", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time", type=float, default=40,
                    help="seconds of random packets at most")
    ap.add_argument("--max", type=int, default=4000,
                    help="random cases at most")
    ap.add_argument("--quiet", type=float, default=1.0,
                    help="seconds without a log record that end a phase")
    ap.add_argument("--prog-test", required=True,
                    help="selftests/bpf/prog_test, built")
    ap.add_argument("--bpf-obj", required=True,
                    help="cfctl's program, nf_cuckoo.bpf.o")
    ap.add_argument("--xdp-max", type=int, default=3000,
                    help="packets through the XDP and tc program at most")
    args = ap.parse_args()
    out = Out()
    t0 = time.time()

    snd = Senders(args)             # ends in r's namespace
    log = NFLog((1, 2))
    filters = [Filter(*f) for f in FILTERS]
    # Stray packets of the set-up (IPv6 MLD reports) come and go first:
    # the counters must cover exactly what the log saw.
    log.quiet(args.quiet)
    log.take()
    rc, txt = cfctl(args, "restore", "-f", "-",
                    stdin="\n".join(l for f in filters for l in f.cfctl()) +
                    "\n")
    rc2, listing = cfctl(args, "list", "-n")
    names = sorted(listing.split())
    fams = collections.Counter((f.hook, f.family) for f in filters)
    out.point(rc == 0 and names == sorted(f.name for f in filters) and
              len(fams) == 15,
              "%d filters in r: every hook x family (ip, ip6, inet), keys, "
              "drop/mark/count, invert, bidirectional" % len(filters),
              [txt, listing] if rc or rc2 else [])
    judge = Judge(filters)
    # The counters from here on are set against the model's.
    base, _, err = kstats(args, log)
    if err:
        out.diag(err)

    # Structured cases.
    cases = structured()
    nstruct = 0
    sent = []
    for desc, group, where, pkts, expect, logged in cases:
        for p in pkts:
            nstruct += snd.send(where, p)
            sent.append(p)
        log.drain()
    log.quiet(args.quiet)
    recs = log.take()
    seen, bad = judge.check(recs)
    by = collections.defaultdict(list)
    for rec in recs:
        by[(rec[0], rec[1], rec[2], ident(rec[1], rec[4]))].append(rec[3])
    fails = collections.defaultdict(list)
    for desc, group, where, pkts, expect, logged in cases:
        for hook, exp in expect.items():
            h = HOOKS.index(hook)
            for p in logged:
                ver = p[0] >> 4
                before = by.get((1, ver, h, ident(ver, p)), [])
                after = by.get((2, ver, h, ident(ver, p)), [])
                if len(before) == 1 and (
                        (exp == "drop" and not after) or
                        (exp != "drop" and after == [exp])):
                    continue
                fails[group].append(
                    "%s at %s: logged before nf_cuckoo %d time(s), after "
                    "%d time(s) with marks %s; want %s: %s" %
                    (desc, hook, len(before), len(after),
                     [hex(m) for m in after],
                     exp if exp == "drop" else "passed, mark 0x%x" % exp,
                     p[:64].hex()))
    for g in GROUPS:
        n = sum(1 for c in cases if c[1] == g)
        out.point(not fails[g], "%s (%d cases)" % (GROUP_DESC[g], n),
                  fails[g])
    out.point(not bad and not log.lost,
              "structured phase: every hook's packets after nf_cuckoo are "
              "those the model lets through (%d records)" % len(recs),
              bad + (["NFLOG lost %d messages" % log.lost] if log.lost
                     else []))

    # Random phase.
    rng = random.Random(args.seed)
    kinds = collections.Counter()
    nrand = npk = 0
    end = time.time() + args.time
    tag = 1
    while nrand < args.max and time.time() < end:
        tag = tag % 0xfff0 + 1
        pkts, kind = rand_packets(rng, tag)
        kinds[kind] += 1
        nrand += 1
        for where, p in pkts:
            npk += snd.send(where, p)
            sent.append(p)
        log.drain()
    log.quiet(args.quiet)
    recs = log.take()
    seen, bad = judge.check(recs)
    out.diag("random phase: seed %d, %d cases, %d packets sent (%s); "
             "refused by the sending stack: %d, dropped at r's output: %d" %
             (args.seed, nrand, npk,
              ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
              snd.sent["refused"], snd.sent["eperm"]),
             "random phase: logged before nf_cuckoo: %s" %
             ", ".join("%s %d" % (h, seen[h]) for h in HOOKS))
    out.point(not bad and not log.lost and all(seen[h] for h in HOOKS),
              "random phase (seed %d, %d packets): at every hook the packets "
              "after nf_cuckoo are exactly those the model lets through"
              % (args.seed, npk),
              bad[:12] + (["NFLOG lost %d messages" % log.lost] if log.lost
                          else []) +
              (["no packet reached %s" % h for h in HOOKS if not seen[h]]))

    # Counters: what they gained since the start, against the model.
    got, bad2, err = kstats(args, log, judge)
    diffs = ([err] if err else []) + bad2
    for f in filters:
        for c in ("lookups", "matches", "dropped", "marked"):
            g = got.get(f.name, {}).get(c, -1) - base.get(f.name, {}).get(c, 0)
            if g != f.stats[c]:
                diffs.append("%s %s: kernel %d, model %d" %
                             (f.name, c, g, f.stats[c]))
    tot = collections.Counter()
    for f in filters:
        tot.update(f.stats)
        if not f.stats["matches"]:
            diffs.append("%s (%s, %s) never matched a packet" %
                         (f.name, f.hook, f.family))
    if log.lost:
        diffs.append("NFLOG lost %d messages" % log.lost)
    if diffs:
        diffs.append(subprocess.run(["nft", "list", "table", "inet",
                                     "nfcfuzz"], capture_output=True,
                                    text=True).stdout)
        diffs.append("records judged per (group, version, hook): %s" %
                     sorted(judge.seen.items()))
    out.point(not diffs,
              "every filter matched packets, and its counters equal the "
              "model's (lookups %d, matches %d, dropped %d, marked %d)" %
              (tot["lookups"], tot["matches"], tot["dropped"],
               tot["marked"]), diffs)
    out.diag("packets fuzzed: %d structured + %d random = %d sent; at the "
             "hooks: %d dropped, %d marked, %d passed; %.0fs" %
             (nstruct, npk, nstruct + npk, judge.totals["dropped"],
              judge.totals["marked"], judge.totals["passed"],
              time.time() - t0))
    xdp_judge(args, filters, sent[:args.xdp_max], out)
    print("FUZZED %d %d" % (nstruct, npk))
    assert out.n == POINTS, (out.n, POINTS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
