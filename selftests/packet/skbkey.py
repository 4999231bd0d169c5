# SPDX-License-Identifier: GPL-2.0
#
# kmod/skbkey.c in python: the key the hook (and the XDP and tc program,
# which walk the same way) builds from an IP packet.  The one model the
# packet fuzzer (nfcfuzz.py) and bpf_prog.sh's packets (bpf/prog_packets.py)
# judge the module by.
import struct

# enum nf_cuckoo_key_field
SRC, DST, SPORT, DPORT, PROTO = 1, 2, 4, 8, 16
ALL = 31
ADDRS = SRC | DST
L3 = ADDRS | PROTO
PORT_PROTOS = {6, 17, 33, 132, 136}     # tcp, udp, dccp, sctp, udplite
# What the kernel skips: hop-by-hop, routing, fragment, AH, destination
# options.
IPV6_EXT = {0, 43, 44, 51, 60}


def be16(b, o):
    return struct.unpack_from("!H", b, o)[0]


def ext_len(nxt, b, off):
    """The length of IPv6 extension header @nxt (one of IPV6_EXT) at
    offset @off of @b: AH's counts 4-byte units, the fragment header
    is 8 bytes, the others count 8-byte units."""
    if nxt == 44:
        return 8
    return (b[off + 1] + 2) * 4 if nxt == 51 else (b[off + 1] + 1) * 8


def key(ver, b, nh=0, bound=None):
    """The key of the IP packet at offset @nh of @b: (valid fields, key).

    Headers are read within the packet and the length its IP header
    claims.  Unusable IP header (or not of version @ver): nothing.  IPv6
    chain past the end, or longer than @bound headers (a walk that
    stops; None: the hook's, which does not): the addresses.  L4 header
    too short for the ports of a protocol that has them: all but the
    ports.  Otherwise all, ports 0 for protocols without ports and
    non-first fragments; a non-first fragment's protocol is the one its
    fragment header names.  An IPv6 payload length of 0 is the packet's
    length for a jumbogram (hop-by-hop options first), else an empty
    payload.  The addresses are the packet's bytes (4 for IPv4)."""
    k = dict(fam=ver, src=b"", dst=b"", sport=0, dport=0, proto=0)
    if ver == 4:
        return _key4(k, b, nh)
    if ver == 6:
        return _key6(k, b, nh, bound)
    return 0, k


def _key4(k, b, nh):
    if len(b) - nh < 20 or b[nh] >> 4 != 4 or b[nh] & 15 < 5:
        return 0, k
    hlen, tot = (b[nh] & 15) * 4, be16(b, nh + 2)
    if tot < hlen or tot > len(b) - nh:
        return 0, k
    k.update(src=bytes(b[nh + 12:nh + 16]), dst=bytes(b[nh + 16:nh + 20]),
             proto=b[nh + 9])
    if be16(b, nh + 6) & 0x1fff:
        return ALL, k
    return _ports(k, b, nh + hlen, nh + tot)


def _key6(k, b, nh, bound):
    if len(b) - nh < 40 or b[nh] >> 4 != 6:
        return 0, k
    plen, nxt = be16(b, nh + 4), b[nh + 6]
    if plen == 0 and nxt == 0:
        plen = len(b) - nh - 40
    if plen > len(b) - nh - 40:
        return 0, k
    k.update(src=bytes(b[nh + 8:nh + 24]), dst=bytes(b[nh + 24:nh + 40]))
    off = nh + 40
    end = off + plen
    n = 0
    while nxt in IPV6_EXT:
        if bound is not None and n == bound:
            return ADDRS, k
        n += 1
        if end - off < 8:
            return ADDRS, k
        if nxt == 44:
            nxt, fo = b[off], be16(b, off + 2)
            off += 8
            if fo & 0xfff8:
                k["proto"] = nxt
                return ALL, k
        else:
            hl = ext_len(nxt, b, off)
            if hl > end - off:
                return ADDRS, k
            nxt = b[off]
            off += hl
    k["proto"] = nxt
    return _ports(k, b, off, end)


def _ports(k, b, off, end):
    if k["proto"] not in PORT_PROTOS:
        return ALL, k
    if end - off < 4:
        return L3, k
    k["sport"], k["dport"] = be16(b, off), be16(b, off + 2)
    return ALL, k
