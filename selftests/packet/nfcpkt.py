#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic for nf_cuckoo's packet-path selftests.

Standard library only (no scapy), so that it starts fast in an emulated VM.
Run it in a network namespace with `ip netns exec NS nfcpkt.py COMMAND ...`.

Commands:
  udp      send UDP (or UDP-Lite) datagrams from a chosen source port
  recv     count the UDP datagrams arriving on a port
  serve    a TCP echo server (until killed)
  tcp      connect from a chosen source port, exchange a line; exit 0 if
           it worked, 1 on a timeout, 2 if refused
  ping     ICMP / ICMPv6 echo; prints the replies received
  stream   send UDP at a steady rate for a while (the churn test)
  seq      run several of the commands above, each given as one quoted
           argument, in this one process (python starts slowly in an
           emulated VM); each prints its own result line
  agent    run the commands read from a FIFO, one a line, their output
           and then a line AGENT_END to another FIFO: one python for a
           whole test (see pktr in pktlib.sh)
  craft    build packets by hand (odd ones too) and send them through a
           raw socket (the sender's output path) or an AF_PACKET socket
           on a device (straight onto the wire); with --ring, through a
           packet socket's TX ring, which hands the device skbs whose
           linear part is the Ethernet header alone, the rest in a page
           fragment

`craft` takes one or more --pkt SPEC; SPEC is comma-separated key=value:
  v=4|6  src=  dst=  proto=udp|tcp|icmp|icmpv6|sctp|dccp|udplite|N
  id=N (IPv4 identification) or fl=N (IPv6 flow label): a tag for an
         nftables counter to tell packets apart when their L4 header is
         cut short
  sport=  dport=  n=COUNT (copies, default 1)  len=PAYLOAD_BYTES
  IPv4:  ihl=N (header length field; options are NOPs)  opts=BYTES
         frag=OFFSET (in 8-byte units)  mf=1  totlen=N (force the field)
  IPv6:  ext=LIST of hop, dst, rt, ah, frag (separated by '+') in order;
         chain=N (N more destination options headers); frag_off=OFFSET
         mf=1 (for the fragment header)  plen=N (force payload length)
  both:  trunc=N (cut the whole packet to N bytes)  l4len=N (cut the
         L4 header and payload to N bytes)
"""

import argparse
import errno
import mmap
import os
import random
import shlex
import select
import socket
import struct
import sys
import time

PROTOS = {"icmp": 1, "tcp": 6, "udp": 17, "dccp": 33, "icmpv6": 58,
          "sctp": 132, "udplite": 136}


def fam(v6):
    return socket.AF_INET6 if v6 else socket.AF_INET


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ready(path):
    if path:
        with open(path, "w") as f:
            f.write("ready\n")


def bind_src(s, v6, src, sport):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((src or ("::" if v6 else "0.0.0.0"), sport or 0))


def ext_opts(s, args):
    """Sticky IPv6 extension headers: hop-by-hop and destination options."""
    pad = b"\0\0\x01\x04\0\0\0\0"   # 8 bytes: PadN of 4
    if getattr(args, "hopopts", False):
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_HOPOPTS, pad)
    if getattr(args, "dstopts", False):
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_DSTOPTS, pad)


def cmd_udp(args):
    proto = socket.IPPROTO_UDPLITE if args.lite else socket.IPPROTO_UDP
    s = socket.socket(fam(args.v6), socket.SOCK_DGRAM, proto)
    bind_src(s, args.v6, args.src, args.sport)
    ext_opts(s, args)
    sent = 0
    for _ in range(args.n):
        try:
            s.sendto(b"nfc-test", (args.dst, args.dport))
            sent += 1
        except OSError:
            pass    # EPERM: dropped on the output path
        if args.interval:
            time.sleep(args.interval)
    print(sent)
    return 0


def cmd_recv(args):
    s = socket.socket(fam(args.v6), socket.SOCK_DGRAM)
    bind_src(s, args.v6, None, args.port)
    ready(args.ready)
    n = 0
    end = time.time() + args.time
    while True:
        left = end - time.time()
        if left <= 0:
            break
        r, _, _ = select.select([s], [], [], left)
        if r:
            s.recv(65535)
            n += 1
            if args.last:
                with open(args.last + ".tmp", "w") as f:
                    f.write("%.6f\n" % time.time())
                os.rename(args.last + ".tmp", args.last)
            if args.count and n >= args.count:
                break
    print(n)
    return 0


def cmd_serve(args):
    s = socket.socket(fam(args.v6), socket.SOCK_STREAM)
    bind_src(s, args.v6, None, args.port)
    s.listen(64)
    ready(args.ready)
    while True:
        c, _ = s.accept()
        c.settimeout(5)
        try:
            data = c.recv(4096)
            if data:
                c.sendall(data)
        except OSError:
            pass
        c.close()


def cmd_tcp(args):
    s = socket.socket(fam(args.v6), socket.SOCK_STREAM)
    bind_src(s, args.v6, args.src, args.sport)
    ext_opts(s, args)
    s.settimeout(args.timeout)
    try:
        s.connect((args.dst, args.dport))
        s.sendall(b"hello\n")
        if s.recv(100) != b"hello\n":
            print("bad-echo")
            return 1
    except socket.timeout:
        print("timeout")
        return 1
    except ConnectionRefusedError:
        print("refused")
        return 2
    except OSError as e:
        print("error", e.errno)
        return 1
    print("ok")
    return 0


def cmd_ping(args):
    if args.v6:
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                          socket.IPPROTO_ICMPV6)
        req, rep = 128, 129
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        req, rep = 8, 0
    # Random: an agent pings many times, a late reply must not count.
    ident = random.getrandbits(16)
    got = 0
    for seq in range(args.n):
        hdr = struct.pack("!BBHHH", req, 0, 0, ident, seq)
        body = b"nfc-ping"
        c = 0 if args.v6 else csum(hdr + body)   # the kernel does ICMPv6's
        s.sendto(struct.pack("!BBHHH", req, 0, c, ident, seq) + body,
                 (args.dst, 0))
        end = time.time() + args.timeout
        while True:
            left = end - time.time()
            if left <= 0:
                break
            r, _, _ = select.select([s], [], [], left)
            if not r:
                break
            data = s.recv(2048)
            if not args.v6:
                data = data[(data[0] & 15) * 4:]
            if len(data) >= 8:
                t, _, _, i, q = struct.unpack("!BBHHH", data[:8])
                if t == rep and i == ident and q == seq:
                    got += 1
                    break
    print(got)
    return 0


def cmd_stream(args):
    s = socket.socket(fam(args.v6), socket.SOCK_DGRAM)
    bind_src(s, args.v6, args.src, args.sport)
    sent = 0
    start = time.time()
    end = start + args.time
    nxt = start
    while True:
        now = time.time()
        if now >= end:
            break
        if args.stop and os.path.exists(args.stop):
            break
        if now < nxt:
            time.sleep(nxt - now)
        nxt += 1.0 / args.rate
        try:
            s.sendto(b"nfc-stream", (args.dst, args.dport))
            sent += 1
        except OSError:
            pass
    print(sent)
    return 0


# craft

def parse_spec(spec):
    d = {}
    for item in spec.split(","):
        if not item:
            continue
        k, _, v = item.partition("=")
        d[k.strip()] = v.strip()
    return d


def l4_header(p, src, dst, v6, proto, payload):
    sport = int(p.get("sport", 0))
    dport = int(p.get("dport", 0))
    if v6:
        pseudo = lambda ln: (socket.inet_pton(socket.AF_INET6, src) +
                             socket.inet_pton(socket.AF_INET6, dst) +
                             struct.pack("!I3xB", ln, proto))
    else:
        pseudo = lambda ln: (socket.inet_pton(socket.AF_INET, src) +
                             socket.inet_pton(socket.AF_INET, dst) +
                             struct.pack("!xBH", proto, ln))
    if proto in (17, 136):
        ln = 8 + len(payload)
        h = struct.pack("!HHHH", sport, dport, ln if proto == 17 else 8, 0)
        c = csum(pseudo(ln) + h + payload) or 0xffff
        return h[:6] + struct.pack("!H", c) + payload
    if proto == 6:
        h = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x02,
                        65535, 0, 0)
        c = csum(pseudo(len(h) + len(payload)) + h + payload)
        return h[:16] + struct.pack("!H", c) + h[18:] + payload
    if proto in (132, 33):
        # SCTP common header / DCCP generic header: ports first
        return struct.pack("!HHII", sport, dport, 0, 0) + payload
    if proto in (1, 58):
        t = 128 if proto == 58 else 8
        h = struct.pack("!BBHHH", t, 0, 0, 0x4e46, 1)
        c = csum((pseudo(len(h) + len(payload)) if v6 else b"") + h + payload)
        return h[:2] + struct.pack("!H", c) + h[4:] + payload
    return payload


def opt_hdr(nh):
    return struct.pack("!BB", nh, 0) + b"\x01\x04\0\0\0\0"


def build(p):
    v6 = p.get("v", "4") == "6"
    src, dst = p["src"], p["dst"]
    proto = p.get("proto", "udp")
    proto = PROTOS[proto] if proto in PROTOS else int(proto)
    payload = b"N" * int(p.get("len", 8))
    l4 = l4_header(p, src, dst, v6, proto, payload)
    if "l4len" in p:
        l4 = l4[:int(p["l4len"])]
    if not v6:
        opts = bytes.fromhex(p.get("opts", ""))
        ihl_real = 5 + (len(opts) + 3) // 4
        opts = opts + b"\x01" * (ihl_real * 4 - 20 - len(opts))
        ihl = int(p.get("ihl", ihl_real))
        tot = int(p.get("totlen", ihl_real * 4 + len(l4)))
        fo = int(p.get("frag", 0)) | (0x2000 if p.get("mf") == "1" else 0)
        h = struct.pack("!BBHHHBBH4s4s", 0x40 | (ihl & 15), 0, tot & 0xffff,
                        int(p.get("id", 0x1234)), fo, 64, proto, 0,
                        socket.inet_pton(socket.AF_INET, src),
                        socket.inet_pton(socket.AF_INET, dst)) + opts
        h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
        pkt = h + l4
    else:
        exts = [e for e in p.get("ext", "").split("+") if e]
        exts += ["dst"] * int(p.get("chain", 0))
        # Build from the inside out.
        body, nh = l4, proto
        for e in reversed(exts):
            if e in ("hop", "dst"):
                body, nh = opt_hdr(nh) + body, (0 if e == "hop" else 60)
            elif e == "rt":
                # type 0, no segments left: a receiver skips it
                body, nh = struct.pack("!BBBBI", nh, 0, 0, 0, 0) + body, 43
            elif e == "ah":
                # AH: length in 4-byte units minus 2; 12 bytes + 12 ICV
                body, nh = (struct.pack("!BBHII", nh, 4, 0, 0x100, 1) +
                            b"\0" * 12 + body), 51
            elif e == "frag":
                fo = (int(p.get("frag_off", 0)) << 3) | \
                     (1 if p.get("mf") == "1" else 0)
                body, nh = struct.pack("!BBHI", nh, 0, fo, 0x4e46) + body, 44
            else:
                raise SystemExit("unknown extension header " + e)
        plen = int(p.get("plen", len(body)))
        fl = int(p.get("fl", 0)) & 0xfffff
        pkt = struct.pack("!IHBB16s16s", 0x60000000 | fl, plen & 0xffff, nh, 64,
                          socket.inet_pton(socket.AF_INET6, src),
                          socket.inet_pton(socket.AF_INET6, dst)) + body
    if "trunc" in p:
        pkt = pkt[:int(p["trunc"])]
    return v6, dst, pkt


def ring_send(dev, frames):
    """Send frames on dev through a packet socket's TX ring (TPACKET_V2).

    tpacket_snd() copies the device's hard header into the skb and
    attaches the rest of the frame as a page fragment: what a program at
    tc egress sees is a non-linear skb whose IP header is not in its
    linear data.  A socket and a ring of one frame each: a frame dropped
    on the way out (a tc program's TC_ACT_SHOT) fails its send with
    ENOBUFS and stays at the ring's head, to go again with the next send.
    """
    sol_packet, packet_version, packet_tx_ring = 263, 10, 13
    tpacket_v2, send_request = 1, 1
    # struct tpacket2_hdr is 32 bytes; TX data follows it (no TX_HAS_OFF).
    data_off, size = 32, mmap.PAGESIZE
    for f in frames:
        if data_off + len(f) > size:
            raise SystemExit("a frame too long for the ring")
        with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
            s.bind((dev, 0))
            s.setsockopt(sol_packet, packet_version,
                         struct.pack("i", tpacket_v2))
            s.setsockopt(sol_packet, packet_tx_ring,
                         struct.pack("IIII", size, 1, size, 1))
            ring = mmap.mmap(s.fileno(), size)
            ring[data_off:data_off + len(f)] = f
            ring[4:8] = struct.pack("I", len(f))
            ring[0:4] = struct.pack("I", send_request)
            try:
                s.send(b"")
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
            ring.close()
    return len(frames)


def cmd_craft(args):
    pkts = []
    for spec in args.pkt:
        p = parse_spec(spec)
        v6, dst, pkt = build(p)
        pkts += [(v6, dst, pkt)] * int(p.get("n", 1))
    sent = 0
    if args.dev:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((args.dev, 0))
        # Not from /sys: under nsenter it shows another namespace's devices.
        smac = s.getsockname()[4]
        dmac = bytes.fromhex(args.dmac.replace(":", ""))
        frames = [dmac + smac + struct.pack("!H", 0x86dd if v6 else 0x0800) +
                  pkt for v6, dst, pkt in pkts]
        if args.ring:
            sent = ring_send(args.dev, frames)
        else:
            for f in frames:
                s.send(f)
                sent += 1
    else:
        socks = {}
        for v6, dst, pkt in pkts:
            if v6 not in socks:
                socks[v6] = socket.socket(fam(v6), socket.SOCK_RAW,
                                          socket.IPPROTO_RAW)
            try:
                socks[v6].sendto(pkt, (dst, 0))
                sent += 1
            except OSError as e:
                if args.verbose:
                    print("send:", e, file=sys.stderr)
    print(sent)
    return 0


AGENT_END = "--nfcpkt-end--"


def cmd_agent(args):
    """Commands come one a line, their arguments separated by \\x1f."""
    ap = parser()
    inp = open(args.input, "r")
    sys.stdout = open(args.output, "w", buffering=1)
    for line in inp:
        try:
            run(ap, line.rstrip("\n").split("\x1f"))
        except SystemExit:
            print("error")
        except Exception as e:      # the test fails, the agent goes on
            print("error", e)
        print(AGENT_END)
        sys.stdout.flush()
    return 0


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def flow(sp, need_dst=True):
        sp.add_argument("-6", dest="v6", action="store_true")
        sp.add_argument("--src")
        sp.add_argument("--sport", type=int, default=0)
        sp.add_argument("--dst", required=need_dst)
        sp.add_argument("--dport", type=int, default=0)

    sp = sub.add_parser("udp")
    flow(sp)
    sp.add_argument("-n", type=int, default=1)
    sp.add_argument("--interval", type=float, default=0)
    sp.add_argument("--lite", action="store_true")
    sp.add_argument("--dstopts", action="store_true")
    sp.add_argument("--hopopts", action="store_true")

    sp = sub.add_parser("recv")
    sp.add_argument("-6", dest="v6", action="store_true")
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--time", type=float, default=3)
    sp.add_argument("--count", type=int, default=0,
                    help="stop once this many arrived")
    sp.add_argument("--ready")
    sp.add_argument("--last", help="write each datagram's arrival time "
                    "(seconds since the epoch) into this file")

    sp = sub.add_parser("serve")
    sp.add_argument("-6", dest="v6", action="store_true")
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--ready")

    sp = sub.add_parser("tcp")
    flow(sp)
    sp.add_argument("--timeout", type=float, default=2)
    sp.add_argument("--dstopts", action="store_true")
    sp.add_argument("--hopopts", action="store_true")

    sp = sub.add_parser("ping")
    sp.add_argument("-6", dest="v6", action="store_true")
    sp.add_argument("--dst", required=True)
    sp.add_argument("-n", type=int, default=3)
    sp.add_argument("--timeout", type=float, default=1)

    sp = sub.add_parser("stream")
    flow(sp)
    sp.add_argument("--rate", type=float, default=100)
    sp.add_argument("--time", type=float, default=5)
    sp.add_argument("--stop", help="stop early once this file exists")

    sp = sub.add_parser("craft")
    sp.add_argument("--pkt", action="append", required=True)
    sp.add_argument("--dev")
    sp.add_argument("--dmac")
    sp.add_argument("--ring", action="store_true",
                    help="with --dev: through the socket's TX ring")
    sp.add_argument("-v", dest="verbose", action="store_true")

    sp = sub.add_parser("seq")
    sp.add_argument("cmds", nargs="+", metavar="COMMAND")

    sp = sub.add_parser("agent")
    sp.add_argument("input", metavar="IN-FIFO")
    sp.add_argument("output", metavar="OUT-FIFO")

    return ap


def run(ap, argv):
    args = ap.parse_args(argv)
    if getattr(args, "dst", None) and ":" in args.dst:
        args.v6 = True
    if args.cmd == "seq":
        rc = 0
        for c in args.cmds:
            rc = max(rc, run(ap, shlex.split(c)))
            sys.stdout.flush()
        return rc
    return globals()["cmd_" + args.cmd](args)


def main():
    return run(parser(), sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
