#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Raw requests to the nf_cuckoo generic-netlink family, for the selftests
that need what cfctl does not do: a SAVE dump left unread, and TEST, ADD
and FLUSH requests sent back to back from one process.  Only the standard
library (socket, struct); the numbers are read from uapi/linux/nf_cuckoo.h.

  nfc_nl.py pin
      Reads commands on stdin, one a line, and answers each on stdout:
        pin NAME   open a new netlink socket, start a SAVE dump of NAME
                   on it and read nothing (MSG_PEEK of the first message
                   only): the dump holds the filter until the socket is
                   read to the end or closed.  Answers "pinned NAME" (the
                   first message is the dump's) or "refused NAME ERRNO
                   MESSAGE".
        release    close every socket pinned so far: "released N".
      At the end of stdin (or on SIGTERM) every socket is closed.

  nfc_nl.py testloop NAME SECONDS [COUNT [PLEN]]
      TEST_ENTRIES of COUNT (default 4096) IPv4 records of source
      prefixes 10.A.B.0/PLEN (default 24), on one socket, again and
      again for SECONDS: "requests N hits H", status 0; any error or
      malformed reply: a line saying so, status 1.

  nfc_nl.py growloop NAME SECONDS COUNT MINSTAGES
      {ADD_ENTRIES of COUNT source addresses 10.64.0.0 and up, packed; GET:
      the filter has MINSTAGES stages or more; FLUSH} again and again
      for SECONDS, on one socket: "rounds N stages LO to HI", status 0;
      an error, or fewer stages: a line saying so, status 1.

  nfc_nl.py addloop NAME SECONDS COUNT
      ADD_ENTRIES of the same COUNT sources (10.64.0.0 and up) again and
      again for SECONDS: "adds N full F" (F refused as full: ENOSPC or
      EDQUOT), status 0; any other error: a line saying so, status 1.

  nfc_nl.py flushloop NAME SECONDS INTERVAL
      FLUSH again and again, INTERVAL seconds apart, for SECONDS:
      "flushes N", status 0; an error: a line saying so, status 1.

Exit status 2 on a usage error or when the family cannot be resolved.
"""
import errno
import os
import re
import signal
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
UAPI = os.path.join(HERE, "..", "uapi", "linux", "nf_cuckoo.h")

NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_ACK_TLVS = 0x200
NETLINK_GENERIC = 16
NETLINK_EXT_ACK = 11
NETLINK_CAP_ACK = 10
SOL_NETLINK = 270
NLMSGERR_ATTR_MSG = 1
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2


def uapi():
    """The family's name, version, commands and attributes from the header."""
    s = open(UAPI).read()

    def enum(name, prefix):
        body = re.search(r"enum %s \{(.*?)\};" % name, s, re.S).group(1)
        names = re.findall(r"^\s*(%s\w+)" % prefix, body, re.M)
        return {n[len(prefix):]: i for i, n in enumerate(names)}

    return {
        "name": re.search(r'#define NF_CUCKOO_GENL_NAME\s+"([^"]+)"', s).group(1),
        "version": int(re.search(r"#define NF_CUCKOO_GENL_VERSION\s+(\d+)", s).group(1)),
        "cmd": enum("nf_cuckoo_cmd", "NF_CUCKOO_CMD_"),
        "attr": enum("nf_cuckoo_attr", "NF_CUCKOO_A_"),
    }


U = uapi()
CMD = U["cmd"]
A = U["attr"]


def nlattr(atype, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, atype) + payload + b"\0" * ((4 - n % 4) % 4)


def attrs(buf, off, end):
    """{type: payload} of the attributes in buf[off:end] (the last one wins)."""
    out = {}
    while off + 4 <= end:
        n, t = struct.unpack_from("=HH", buf, off)
        if n < 4:
            break
        out[t & 0x3FFF] = buf[off + 4:off + n]
        off += (n + 3) & ~3
    return out


class Genl:
    def __init__(self, rcvbuf=None):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.s.bind((0, 0))
        self.seq = 0
        self.family = None

    def send(self, mtype, flags, cmd, version, payload):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, 0) + payload
        self.s.send(struct.pack("=IHHII", 16 + len(body), mtype,
                                flags | NLM_F_REQUEST, self.seq, 0) + body)
        return self.seq

    def recv(self, peek=False):
        """The messages of one datagram: [(type, flags, seq, payload)]."""
        buf = self.s.recv(1 << 20, socket.MSG_PEEK if peek else 0)
        out, off = [], 0
        while off + 16 <= len(buf):
            n, t, f, seq, _ = struct.unpack_from("=IHHII", buf, off)
            if n < 16:
                break
            out.append((t, f, seq, buf[off + 16:off + n]))
            off += (n + 3) & ~3
        return out

    def resolve(self):
        """The family's id (CTRL_CMD_GETFAMILY), after the request's ack."""
        self.send(GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1,
                  nlattr(CTRL_ATTR_FAMILY_NAME, U["name"].encode() + b"\0"))
        acked = False
        while not acked:
            for t, f, seq, p in self.recv():
                if t == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", p)[0]
                    if err:
                        raise OSError(err, "resolving family %s: %s" %
                                      (U["name"], os.strerror(err)))
                    acked = True
                elif t == GENL_ID_CTRL:
                    a = attrs(p, 4, len(p))
                    self.family = struct.unpack("=H", a[CTRL_ATTR_FAMILY_ID][:2])[0]
        if self.family is None:
            raise OSError(errno.ENOENT, "no family %s in the reply" % U["name"])
        return self.family

    def request(self, cmd, payload, flags=0):
        return self.send(self.family, flags, CMD[cmd], U["version"], payload)

    def transact(self, cmd, payload):
        """Send with NLM_F_ACK; the replies before the ack, its errno and
        extended ack message."""
        seq = self.request(cmd, payload, NLM_F_ACK)
        replies = []
        while True:
            for t, f, rseq, p in self.recv():
                if rseq != seq:
                    raise Anomaly("a message of seq %d, want %d" % (rseq, seq))
                if t == NLMSG_ERROR:
                    err, msg = error_of(t, f, p)
                    return replies, err, msg
                replies.append(p)


class Anomaly(Exception):
    pass


def count_attrs(buf, off, end, atype):
    n = 0
    while off + 4 <= end:
        ln, t = struct.unpack_from("=HH", buf, off)
        if ln < 4:
            break
        n += (t & 0x3FFF) == atype
        off += (ln + 3) & ~3
    return n


def u32(a, key):
    return struct.unpack("=I", a[A[key]])[0] if A[key] in a else None


def packed_ipv4(addrs, plen=0):
    """NF_CUCKOO_A_ENTRIES_IPV4 attributes of source addresses (bytes of 4)."""
    recs = [struct.pack("=4s4sHHBBBB", a, b"\0" * 4, 0, 0, 0, plen, 0, 0)
            for a in addrs]
    per = 65520 // 16
    return b"".join(nlattr(A["ENTRIES_IPV4"], b"".join(recs[i:i + per]))
                    for i in range(0, len(recs), per))


def name_attr(name):
    return nlattr(A["NAME"], name.encode() + b"\0")


def error_of(t, f, p):
    """(errno, extack message) of an NLMSG_ERROR or a NLMSG_DONE of a dump."""
    err = -struct.unpack_from("=i", p)[0]
    msg = b""
    if t == NLMSG_ERROR and f & NLM_F_ACK_TLVS:
        # NETLINK_CAP_ACK is set: the ack echoes the request's header only
        olen = 4 + 16
        msg = attrs(p, olen, len(p)).get(NLMSGERR_ATTR_MSG, b"")
    elif t == NLMSG_DONE and f & NLM_F_ACK_TLVS:
        msg = attrs(p, 4, len(p)).get(NLMSGERR_ATTR_MSG, b"")
    return err, msg.rstrip(b"\0").decode(errors="replace")


def cmd_pin():
    pinned = []

    def release():
        n = len(pinned)
        for g in pinned:
            g.s.close()
        pinned.clear()
        return n

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        for line in sys.stdin:
            w = line.split()
            if w == ["release"]:
                print("released %d" % release(), flush=True)
                continue
            if len(w) != 2 or w[0] != "pin":
                print("usage: pin NAME | release", flush=True)
                continue
            g = Genl()
            g.resolve()
            g.request("SAVE", name_attr(w[1]), NLM_F_DUMP)
            t, f, seq, p = g.recv(peek=True)[0]
            if t == g.family and p[0] == CMD["SAVE"]:
                pinned.append(g)
                print("pinned %s" % w[1], flush=True)
            elif t in (NLMSG_ERROR, NLMSG_DONE):
                err, msg = error_of(t, f, p)
                g.s.close()
                print("refused %s %s %s" % (w[1], errno.errorcode.get(err, err), msg),
                      flush=True)
            else:
                g.s.close()
                print("refused %s unexpected message type %d cmd %d" % (w[1], t, p[0]),
                      flush=True)
    finally:
        release()
    return 0


def cmd_testloop(name, seconds, count=4096, plen=24):
    g = Genl(rcvbuf=1 << 20)
    g.resolve()
    payload = name_attr(name) + packed_ipv4(
        [bytes((10, (i >> 8) & 63, i & 255, 0)) for i in range(count)], plen)
    end = time.monotonic() + seconds
    n = hits = 0
    while time.monotonic() < end:
        replies, err, msg = g.transact("TEST_ENTRIES", payload)
        if err:
            print("TEST_ENTRIES: %s %s" % (os.strerror(err), msg))
            return 1
        a = attrs(replies[0], 4, len(replies[0])) if len(replies) == 1 else {}
        if u32(a, "BATCH_DONE") != count:
            print("TEST_ENTRIES: %d replies, BATCH_DONE %s, want one, %d" %
                  (len(replies), u32(a, "BATCH_DONE"), count))
            return 1
        hits += u32(a, "TEST_HITS") or 0
        n += 1
    print("requests %d hits %d" % (n, hits))
    return 0


def cmd_growloop(name, seconds, count, minstages):
    """{ADD_ENTRIES of count sources, stages counted (GET); FLUSH} again and
    again: a filter that grows to minstages stages and more, and back."""
    g = Genl(rcvbuf=1 << 20)
    g.resolve()
    add = name_attr(name) + packed_ipv4(
        [struct.pack(">I", (10 << 24 | 64 << 16) + i) for i in range(count)])
    end = time.monotonic() + seconds
    n = 0
    lo = hi = None
    while time.monotonic() < end:
        replies, err, msg = g.transact("ADD_ENTRIES", add)
        a = attrs(replies[0], 4, len(replies[0])) if len(replies) == 1 else {}
        if err or u32(a, "BATCH_DONE") != count:
            print("ADD_ENTRIES: %s %s, BATCH_DONE %s, want %d" %
                  (os.strerror(err), msg, u32(a, "BATCH_DONE"), count))
            return 1
        replies, err, msg = g.transact("GET", name_attr(name))
        if err or len(replies) != 1:
            print("GET: %s %s, %d replies" % (os.strerror(err), msg, len(replies)))
            return 1
        st = count_attrs(replies[0], 4, len(replies[0]), A["STAGE"])
        lo = st if lo is None else min(lo, st)
        hi = st if hi is None else max(hi, st)
        if st < minstages:
            print("%d stages after the add, want %d or more" % (st, minstages))
            return 1
        replies, err, msg = g.transact("FLUSH", name_attr(name))
        if err or replies:
            print("FLUSH: %s %s" % (os.strerror(err), msg))
            return 1
        n += 1
    print("rounds %d stages %s to %s" % (n, lo, hi))
    return 0


def cmd_addloop(name, seconds, count):
    """ADD_ENTRIES of the same count sources again and again (a filter
    that is full, ENOSPC or EDQUOT, is counted, not an error)."""
    g = Genl(rcvbuf=1 << 20)
    g.resolve()
    add = name_attr(name) + packed_ipv4(
        [struct.pack(">I", (10 << 24 | 64 << 16) + i) for i in range(count)])
    end = time.monotonic() + seconds
    n = full = 0
    while time.monotonic() < end:
        replies, err, msg = g.transact("ADD_ENTRIES", add)
        if err in (errno.ENOSPC, errno.EDQUOT):
            full += 1
            continue
        a = attrs(replies[0], 4, len(replies[0])) if len(replies) == 1 else {}
        if err or u32(a, "BATCH_DONE") != count:
            print("ADD_ENTRIES: %s %s, BATCH_DONE %s, want %d" %
                  (os.strerror(err), msg, u32(a, "BATCH_DONE"), count))
            return 1
        n += 1
    print("adds %d full %d" % (n, full))
    return 0


def cmd_flushloop(name, seconds, interval):
    """FLUSH again and again, interval seconds apart."""
    g = Genl()
    g.resolve()
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        replies, err, msg = g.transact("FLUSH", name_attr(name))
        if err or replies:
            print("FLUSH: %s %s" % (os.strerror(err), msg))
            return 1
        n += 1
        time.sleep(interval)
    print("flushes %d" % n)
    return 0


def main(argv):
    try:
        if argv[:1] == ["pin"] and len(argv) == 1:
            return cmd_pin()
        if argv[:1] == ["testloop"] and 3 <= len(argv) <= 5:
            return cmd_testloop(argv[1], float(argv[2]), *map(int, argv[3:]))
        if argv[:1] == ["growloop"] and len(argv) == 5:
            return cmd_growloop(argv[1], float(argv[2]), *map(int, argv[3:]))
        if argv[:1] == ["addloop"] and len(argv) == 4:
            return cmd_addloop(argv[1], float(argv[2]), int(argv[3]))
        if argv[:1] == ["flushloop"] and len(argv) == 4:
            return cmd_flushloop(argv[1], float(argv[2]), float(argv[3]))
    except Anomaly as e:
        print("nfc_nl.py: %s" % e)
        return 1
    except OSError as e:
        print("nfc_nl.py: %s" % e, file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
