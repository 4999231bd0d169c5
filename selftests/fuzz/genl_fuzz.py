#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fuzz the nf_cuckoo generic-netlink family from a client we did not write.

pyroute2 resolves the family (GenericNetlinkSocket), encodes the
well-formed messages (an nla_map of its own, checked against the uapi
header) and, end to end, runs the known-entry checks; malformed bytes that
its encoder will not produce are built by hand and by mutating encoded
messages.  Several processes run at once for --seconds:

  struct   random messages from the attribute table, every command (and
           unknown ones): missing, duplicated, out-of-range, wrong-length
           and wrong-typed attributes, names too long or unterminated,
           capacity 0 and 2^64-1, entries by the thousand, nested and
           packed (records of no whole length, with padding set, of a
           family the filter lacks, where no entries belong), deep nests
  mutate   byte-level mutations of valid messages: nla_len too short or
           too long, types changed, flags, attributes duplicated, cut,
           wrapped in nests, strings unterminated, several messages in one
           datagram, nlmsg_len and genl header damaged
  churn    creates, fills, saves, restores, enables and destroys the
           filters the others aim at, all the time
  dump     GET and SAVE dumps read partly, with tiny buffers, abandoned,
           closed mid-way, and a second dump on a busy socket
  race     two processes sharing one netlink socket send at the same
           instant: LOAD_END twice, LOAD_END against LOAD_CHUNK, DEL, SET
  model    private filters with exact expectations: what was added tests
           positive, counts add up, save/restore keeps every entry, with
           entries nested and packed at random; batches that fail at a
           known entry (or as a whole) answer so and change nothing;
           prefix entries among them (keys of the 5-tuple, without an
           address, or bidirectional): PREFIXES counts exact after every
           step, addresses inside a prefix found, the 33rd combination,
           prefixes the key refuses and deletes of a combination holding
           nothing refused at their entry, the counts saved and restored
  netns    children in a fresh network namespace each that fuzz, leave a
           load and a dump open and die, so the namespace goes with them
  traffic  UDP over loopback, so the hooks the filters register run
  known    tests the known filters' entries (pyroute2 end to end),
           nested or packed

Every reply is checked: an ack with 0 or an errno the command may answer,
with an extended ack message; one answer per request; a proper reply
message (attributes well-formed, decodable by pyroute2, counts consistent
with the request, a failed entry that the request's packed records allow,
pointed at by the extended ack); NLMSG_DONE for a dump; netlink's and
genetlink's own answers (flags, short headers, unknown commands) exactly;
a command that succeeded named a filter by an allowed name; nothing for a
sequence number never sent; an answer within --reply-timeout (a sentinel
NOOP follows each request).  Known filters (--known NAME=FILE, made
beforehand with cfctl) are never named in a fuzzed message and are tested
while the fuzzing runs and at the end.  The seed (printed) fixes every
worker's choices; how the processes interleave is the machine's.  The
parent makes no netlink call while the workers run, so a wedged kernel
still gets a report.  Exit status 0 if nothing went wrong, 1 if something
did, 2 on a usage error.

  genl_fuzz.py [--seed N] [--seconds S] [--known NAME=FILE]...
  genl_fuzz.py --replay DIR|FILE...        replay a corpus (corpus/README.md)
  genl_fuzz.py --write-known FILE [--count N] [--seed N]
  genl_fuzz.py --check-uapi
"""

import argparse
import collections
import ctypes
import errno
import json
import mmap
import os
import random
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import time
import traceback


def netlink_alone():
    """pyroute2's netlink layer without the rest of pyroute2.

    Importing pyroute2.netlink runs the package's __init__ first, which
    imports all of pyroute2 (166 modules: 0.7 s natively, 10 s in the
    emulated VM the tests run in, and fuzz_genl.sh starts this script
    several times).  A bare package module in its place, on the same
    path, loads the 7 modules the netlink layer needs.  Should a pyroute2
    need its __init__ there, the whole package is imported after all."""
    import importlib.util
    import types

    spec = importlib.util.find_spec("pyroute2")
    if spec is None or not spec.submodule_search_locations:
        return
    pkg = types.ModuleType("pyroute2")
    pkg.__path__ = list(spec.submodule_search_locations)
    sys.modules["pyroute2"] = pkg
    try:
        import pyroute2.netlink.generic  # noqa: F401
    except Exception:  # pylint: disable=broad-except
        for m in [m for m in sys.modules if m.split(".")[0] == "pyroute2"]:
            del sys.modules[m]


try:
    netlink_alone()
    from pyroute2.netlink import NLA_F_NESTED, genlmsg, nla
    from pyroute2.netlink.generic import GenericNetlinkSocket
except ImportError as e:  # a failure, not a skip: scripts/deps.sh installs it
    print("genl_fuzz: pyroute2 missing (%s): apt-get install python3-pyroute2"
          % e, file=sys.stderr)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
UAPI = os.path.join(HERE, "..", "..", "uapi", "linux", "nf_cuckoo.h")

# ---------------------------------------------------------------------------
# The interface, as this client sees it.  load_uapi() checks it against the
# header, so a command or attribute added there fails the run until it is
# described here too.

CMDS = [  # name, value
    ("UNSPEC", 0), ("NEW", 1), ("DEL", 2), ("GET", 3), ("SET", 4),
    ("FLUSH", 5), ("ADD_ENTRIES", 6), ("DEL_ENTRIES", 7),
    ("TEST_ENTRIES", 8), ("SAVE", 9), ("LOAD_BEGIN", 10),
    ("LOAD_CHUNK", 11), ("LOAD_END", 12), ("EVENT", 13), ("SWAP", 14),
    ("BIND", 15), ("UNBIND", 16),
]
C = {n: v for n, v in CMDS}
CMD_NAME = {v: n for n, v in CMDS}

# name, value, type.  Types: u8 u16 u32 u64 s32 str bin nest pad
ATTRS = [
    ("PAD", 1, "pad"), ("NAME", 2, "str"), ("FAMILY", 3, "u8"),
    ("KEY_FIELDS", 4, "u32"), ("CAPACITY", 5, "u64"), ("FP_BITS", 6, "u8"),
    ("FPR", 7, "u32"), ("BUCKET_SIZE", 8, "u8"), ("MAX_KICKS", 9, "u16"),
    ("SEED", 10, "u64"), ("HOOK", 11, "u8"), ("PRIORITY", 12, "s32"),
    ("ACTION", 13, "u8"), ("MARK", 14, "u32"), ("MARK_MASK", 15, "u32"),
    ("BIDIRECTIONAL", 16, "u8"), ("INVERT", 17, "u8"), ("ENABLED", 18, "u8"),
    ("STATS", 19, "nest"), ("ENTRY", 20, "nest"), ("BATCH_FLAGS", 21, "u32"),
    ("BATCH_DONE", 22, "u32"), ("BATCH_SKIPPED", 23, "u32"),
    ("BATCH_FAIL_INDEX", 24, "u32"), ("BATCH_FAIL_REASON", 25, "u32"),
    ("TEST_HITS", 26, "u32"), ("TEST_BITMAP", 27, "bin"),
    ("IMAGE_HEADER", 28, "bin"), ("IMAGE_TABLE_BYTES", 29, "u64"),
    ("CHUNK_OFFSET", 30, "u64"), ("CHUNK_DATA", 31, "bin"),
    ("LOADING", 32, "u8"), ("ENTRIES_IPV4", 33, "bin"),
    ("ENTRIES_IPV6", 34, "bin"), ("ENCODING", 35, "u8"),
    ("PREFIXES", 36, "bin"), ("GROW", 37, "u8"), ("GROW_FACTOR", 38, "u8"),
    ("STAGES_MAX", 39, "u8"), ("STAGE", 40, "nest"), ("FPR_TOTAL", 41, "u32"),
    ("EVENT", 42, "u8"), ("EVENT_COUNT", 43, "u32"), ("STAGE_INDEX", 44, "u8"),
    ("NAME2", 45, "str"), ("ID", 46, "u32"), ("IFINDEX", 47, "u32"),
    ("BIND_POINT", 48, "u8"), ("PROG_ID", 49, "u32"), ("BIND", 50, "nest"),
    ("RULE_REFS", 51, "u32"), ("IFACE", 52, "nest"),
]
A = {n: v for n, v, _ in ATTRS}
ATYPE = {v: t for _, v, t in ATTRS}
ENTRY_ATTRS = [("FAMILY", 1, "u8"), ("SRC", 2, "bin"), ("DST", 3, "bin"),
               ("SPORT", 4, "be16"), ("DPORT", 5, "be16"), ("PROTO", 6, "u8"),
               ("SRC_PLEN", 7, "u8"), ("DST_PLEN", 8, "u8")]
E = {n: v for n, v, _ in ENTRY_ATTRS}
STATS_ATTRS = [("PAD", 1, "pad"), ("ITEMS", 2, "u64"), ("LOAD_PPM", 3, "u32"),
               ("BYTES", 4, "u64"), ("TABLE_BYTES", 5, "u64"),
               ("SLOTS", 6, "u64"), ("NBUCKETS", 7, "u64"),
               ("VICTIM", 8, "u8"), ("PKT_LOOKUPS", 9, "u64"),
               ("PKT_MATCHES", 10, "u64"), ("PKT_DROPPED", 11, "u64"),
               ("PKT_MARKED", 12, "u64"), ("XDP_LOOKUPS", 13, "u64"),
               ("XDP_MATCHES", 14, "u64"), ("TC_LOOKUPS", 15, "u64"),
               ("TC_MATCHES", 16, "u64"), ("RULE_LOOKUPS", 17, "u64"),
               ("RULE_MATCHES", 18, "u64")]
S = {n: v for n, v, _ in STATS_ATTRS}
STAGE_ATTRS = [("PAD", 1, "pad"), ("CAPACITY", 2, "u64"), ("ITEMS", 3, "u64"),
               ("LOAD_PPM", 4, "u32"), ("FP_BITS", 5, "u8"),
               ("BYTES", 6, "u64"), ("FPR", 7, "u32"), ("VICTIM", 8, "u8")]
ST = {n: v for n, v, _ in STAGE_ATTRS}
IFACE_ATTRS = [("NAME", 1, "str"), ("DIR", 2, "u8")]
IF = {n: v for n, v, _ in IFACE_ATTRS}
EVENTS = [("NEW", 1), ("DEL", 2), ("SET", 3), ("FLUSH", 4), ("RESTORE", 5),
          ("STAGE", 6), ("FULL", 7), ("LOAD_HIGH", 8), ("ADD", 9),
          ("DEL_ENTRIES", 10), ("SWAP", 11)]
EV = dict(EVENTS)
EV_NAME = {v: n for n, v in EVENTS}
# events whose message describes the filter as GET does, without STATS
EV_DESCRIBED = ("NEW", "SET", "RESTORE")
# what no event may carry: entries, the seed, the image, statistics
EV_NEVER = ("SEED", "ENTRY", "ENTRIES_IPV4", "ENTRIES_IPV6", "IMAGE_HEADER",
            "CHUNK_DATA", "STATS")
LOAD_HIGH_PPM = 900000
# The packed-entry attributes: entry family, struct nf_cuckoo_entry_ipv4 / _ipv6
# (addresses, ports and protocol in network order, then the source and
# destination prefix lengths and a pad byte, 0 for an entry of addresses)
PACKED = {"ENTRIES_IPV4": (1, struct.Struct("!4s4sHHB3s")),
          "ENTRIES_IPV6": (2, struct.Struct("!16s16sHHB3s"))}
PACKED_OF = {fam: name for name, (fam, _) in PACKED.items()}
RECORD = {A[name]: v for name, v in PACKED.items()}   # by attribute type

PACKET = ["KEY_FIELDS", "HOOK", "PRIORITY", "ACTION", "MARK", "MARK_MASK",
          "BIDIRECTIONAL", "INVERT", "ENABLED"]
GROWTH = ["GROW", "GROW_FACTOR", "STAGES_MAX"]
# cmd: (required, optional), from the uapi header's list; "entries" is
# its "R entries": ENTRY nests and PACKED attributes, mixed, 1..BATCH_MAX
SPEC = {
    "NEW": (["NAME", "FAMILY"], PACKET + ["CAPACITY", "FP_BITS", "FPR",
                                          "BUCKET_SIZE", "ENCODING",
                                          "MAX_KICKS", "SEED"] + GROWTH),
    "DEL": (["NAME"], []),
    "GET": (["NAME"], []),
    "SET": (["NAME"], ["ACTION", "MARK", "MARK_MASK", "INVERT", "ENABLED",
                       "GROW", "HOOK", "PRIORITY"]),
    "FLUSH": (["NAME"], []),
    "ADD_ENTRIES": (["NAME", "entries"], ["BATCH_FLAGS"]),
    "DEL_ENTRIES": (["NAME", "entries"], ["BATCH_FLAGS"]),
    "TEST_ENTRIES": (["NAME", "entries"], []),
    "SAVE": (["NAME"], []),
    "LOAD_BEGIN": (["NAME", "IMAGE_HEADER", "FAMILY"],
                   PACKET + ["PREFIXES"] + GROWTH),
    "LOAD_CHUNK": (["NAME", "CHUNK_OFFSET", "CHUNK_DATA"], []),
    "LOAD_END": (["NAME"], []),
    "SWAP": (["NAME", "NAME2"], []),
    "BIND": (["ID", "IFINDEX", "BIND_POINT"], ["PROG_ID"]),
    "UNBIND": (["IFINDEX", "BIND_POINT"], []),
}
BATCH_CMDS = ("ADD_ENTRIES", "DEL_ENTRIES", "TEST_ENTRIES")
BATCH_MAX = 4096
PACKED_BYTES = 65520
NAME_MAXLEN = 32
CHUNK_MAX = 32768
# checked against the header's #defines too
PREFIXES_MAX = 32
DEFINES = {"NF_CUCKOO_BATCH_MAX": BATCH_MAX, "NF_CUCKOO_NAME_MAXLEN": NAME_MAXLEN,
           "NF_CUCKOO_CHUNK_MAX": CHUNK_MAX,
           "NF_CUCKOO_PREFIXES_MAX": PREFIXES_MAX,
           "NF_CUCKOO_ENTRIES_PACKED_BYTES": PACKED_BYTES,
           "NF_CUCKOO_LOAD_HIGH_PPM": LOAD_HIGH_PPM}

# errno a command may answer with, besides the ones any command may
# (policy: EINVAL, ERANGE; genetlink: EOPNOTSUPP; memory: ENOMEM)
ANY_ERR = {errno.EINVAL, errno.ERANGE, errno.EOPNOTSUPP, errno.ENOMEM}
LOOKUP_ERR = {errno.ENOENT, errno.EBUSY}
HOOK_ERR = {errno.E2BIG, errno.ENOMEM}
CMD_ERR = {
    "NEW": {errno.EEXIST, errno.EDQUOT} | HOOK_ERR,
    "DEL": {errno.ENOENT, errno.EBUSY},
    "GET": {errno.ENOENT, errno.EMSGSIZE},
    "SET": LOOKUP_ERR | HOOK_ERR,
    "FLUSH": LOOKUP_ERR,
    "ADD_ENTRIES": LOOKUP_ERR | {errno.E2BIG, errno.EAFNOSUPPORT,
                                 errno.ENOSPC, errno.EOVERFLOW, errno.EDQUOT},
    "DEL_ENTRIES": LOOKUP_ERR | {errno.E2BIG, errno.EAFNOSUPPORT,
                                 errno.ENOTUNIQ},
    "TEST_ENTRIES": LOOKUP_ERR | {errno.E2BIG, errno.EAFNOSUPPORT},
    "SAVE": LOOKUP_ERR,
    "LOAD_BEGIN": {errno.EEXIST, errno.EDQUOT},
    "LOAD_CHUNK": LOOKUP_ERR,
    "LOAD_END": LOOKUP_ERR | HOOK_ERR | {errno.ENODATA},
    "SWAP": LOOKUP_ERR,
    "BIND": {errno.ENOENT, errno.ENODEV, errno.ENOSPC},
    "UNBIND": {errno.ENOENT},
}
# BATCH_FAIL_REASON (enum nf_cuckoo_entry_err) for the errno of a failed batch
WHY_MALFORMED, WHY_FAMILY, WHY_FULL, WHY_NOENT, WHY_PREFIXES = 1, 2, 3, 4, 5
WHY_AMBIGUOUS, WHY_QUOTA = 6, 7
WHY = {errno.EINVAL: WHY_MALFORMED, errno.ERANGE: WHY_MALFORMED,
       errno.EAFNOSUPPORT: WHY_FAMILY, errno.ENOSPC: WHY_FULL,
       errno.ENOENT: WHY_NOENT, errno.EOVERFLOW: WHY_PREFIXES,
       errno.ENOTUNIQ: WHY_AMBIGUOUS, errno.EDQUOT: WHY_QUOTA,
       errno.ENOMEM: WHY_FULL}
# what a reply message (cmd) to a request may be, and what it must hold
REPLY_CMD = {"GET": "GET", "SAVE": "SAVE", "ADD_ENTRIES": "ADD_ENTRIES",
             "DEL_ENTRIES": "DEL_ENTRIES", "TEST_ENTRIES": "TEST_ENTRIES"}
GET_MUST = ["NAME", "FAMILY", "KEY_FIELDS", "CAPACITY", "FP_BITS", "FPR",
            "BUCKET_SIZE", "ENCODING", "MAX_KICKS", "HOOK", "PRIORITY", "ACTION", "MARK",
            "MARK_MASK", "BIDIRECTIONAL", "INVERT", "ENABLED", "LOADING",
            "STATS", "GROW", "GROW_FACTOR", "STAGES_MAX", "ID"]
# GET's besides (STATS's company): FPR_TOTAL once, STAGE once per stage


def load_uapi(path):
    """enum name -> {NAME: value} of the header, implicit values counted."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    enums = {}
    for m in re.finditer(r"enum\s+(\w+)\s*\{(.*?)\}", text, re.S):
        vals, nxt = {}, 0
        for item in m.group(2).split(","):
            item = item.strip()
            if not item:
                continue
            if "=" in item:
                k, v = (x.strip() for x in item.split("=", 1))
                v = eval(v, {}, dict(vals))  # small integer expressions
            else:
                k, v = item, nxt
            vals[k] = v
            nxt = v + 1
        enums[m.group(1)] = vals
    return enums


def check_uapi(path):
    """Problems between the header and the tables above (empty: none)."""
    enums = load_uapi(path)
    bad = []
    for enum, prefix, table in (("nf_cuckoo_cmd", "NF_CUCKOO_CMD_", dict(CMDS)),
                                ("nf_cuckoo_attr", "NF_CUCKOO_A_", A),
                                ("nf_cuckoo_entry_attr", "NF_CUCKOO_ENTRY_A_", E),
                                ("nf_cuckoo_stats_attr", "NF_CUCKOO_STATS_A_", S),
                                ("nf_cuckoo_stage_attr", "NF_CUCKOO_STAGE_A_", ST),
                                ("nf_cuckoo_iface_attr", "NF_CUCKOO_IFACE_A_", IF),
                                ("nf_cuckoo_event", "NF_CUCKOO_EVENT_", EV)):
        hdr = {k[len(prefix):]: v for k, v in enums.get(enum, {}).items()
               if not k.startswith("__") and k != prefix + "UNSPEC"}
        mine = {k: v for k, v in table.items() if k != "UNSPEC"}
        if hdr != mine:
            bad.append("%s: header %s, fuzzer %s" % (
                enum, sorted(set(hdr.items()) - set(mine.items())),
                sorted(set(mine.items()) - set(hdr.items()))))
    text = open(path).read()
    for k, v in DEFINES.items():
        m = re.search(r"#define\s+%s\s+(\d+)" % k, text)
        if not m or int(m.group(1)) != v:
            bad.append("%s: header %s, fuzzer %d" % (k, m and m.group(1), v))
    return bad


# ---------------------------------------------------------------------------
# pyroute2's view of the family: encodes the well-formed messages and
# decodes replies.

PR_TYPE = {"pad": "none", "str": "asciiz", "bin": "cdata", "u8": "uint8",
           "u16": "uint16", "u32": "uint32", "u64": "uint64",
           "s32": "int32", "be16": "be16"}


def pr_map(prefix, table, nests=None):
    """pyroute2's nla_map (by position) from one of the tables above."""
    types = {v: (n, nests[n] if t == "nest" else PR_TYPE[t])
             for n, v, t in table}
    return tuple((prefix + types.get(i, ("UNSPEC", None))[0],
                  types.get(i, (None, "none"))[1])
                 for i in range(max(types) + 1))


def pr_nest(prefix, table):
    """A pyroute2 class for a nested attribute of that table."""
    return type(prefix, (nla,), {"nla_flags": NLA_F_NESTED, "prefix": prefix,
                                 "nla_map": pr_map(prefix, table)})


class nfcmsg(genlmsg):
    prefix = "NF_CUCKOO_A_"
    nla_map = pr_map(prefix, ATTRS, {"STATS": "stats", "ENTRY": "entry",
                                     "STAGE": "stage", "BIND": "bind",
                                     "IFACE": "iface"})
    entry = pr_nest("NF_CUCKOO_ENTRY_A_", ENTRY_ATTRS)
    stats = pr_nest("NF_CUCKOO_STATS_A_", STATS_ATTRS)
    stage = pr_nest("NF_CUCKOO_STAGE_A_", STAGE_ATTRS)
    iface = pr_nest("NF_CUCKOO_IFACE_A_", IFACE_ATTRS)
    # a bind holds attributes of the top level
    bind = pr_nest("NF_CUCKOO_A_", [a for a in ATTRS if a[0] in
                                    ("IFINDEX", "BIND_POINT", "PROG_ID")])


def pr_encode(family_id, cmd, attrs, flags, seq=0, version=1):
    """A message encoded by pyroute2: attrs is [(NAME, value)], ENTRY values
    {"FAMILY": 1, "SRC": b"...", ...} or lists of (NAME, value) pairs."""
    m = nfcmsg()
    m["cmd"] = cmd
    m["version"] = version
    out = []
    for name, val in attrs:
        if name == "ENTRY":
            items = val.items() if isinstance(val, dict) else val
            val = {"attrs": [("NF_CUCKOO_ENTRY_A_" + k, v) for k, v in items]}
        out.append(("NF_CUCKOO_A_" + name, val))
    m["attrs"] = out
    m["header"]["type"] = family_id
    m["header"]["flags"] = flags
    m["header"]["sequence_number"] = seq
    m.encode()
    return bytes(m.data)


# ---------------------------------------------------------------------------
# Raw netlink

NLMSG_NOOP, NLMSG_ERROR, NLMSG_DONE, NLMSG_OVERRUN = 1, 2, 3, 4
NLMSG_MIN_TYPE = 0x10
GENL_ID_CTRL = 0x10
F_REQUEST, F_MULTI, F_ACK, F_ECHO = 0x1, 0x2, 0x4, 0x8
F_DUMP_INTR, F_DUMP_FILTERED = 0x10, 0x20
F_ROOT, F_MATCH, F_ATOMIC = 0x100, 0x200, 0x400
F_DUMP = F_ROOT | F_MATCH
F_CAPPED, F_ACK_TLVS = 0x100, 0x200
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_CAP_ACK, NETLINK_EXT_ACK = 10, 11
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = 0x3fff
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS = 1, 2
NLMSGERR_ATTR_MAX = 6
SO_RCVBUFFORCE, SO_SNDBUFFORCE = 33, 32
NETLINK_GENERIC = 16
CLONE_NEWNET = 0x40000000

HDR = struct.Struct("=IHHII")
GENLHDR = struct.Struct("=BBH")
NLA = struct.Struct("=HH")


def align4(n):
    return (n + 3) & ~3


def nlattr(atype, payload, pad=True):
    """One attribute; pad=False leaves the trailing pad off."""
    a = NLA.pack(len(payload) + 4, atype) + payload
    return a + b"\0" * (align4(len(a)) - len(a)) if pad else a


def nest(atype, children, flag=True):
    return nlattr(atype | (NLA_F_NESTED if flag else 0), b"".join(children))


def nlmsg(mtype, flags, seq, payload, portid=0):
    return HDR.pack(16 + len(payload), mtype, flags, seq, portid) + payload


def genl(family_id, cmd, flags, seq, attrs=b"", version=1):
    return nlmsg(family_id, flags, seq, GENLHDR.pack(cmd, version, 0) + attrs)


def walk_attrs(buf, off=0, end=None):
    """(type with flags, payload offset, payload length) of each attribute,
    and the bytes left over that are not a whole attribute."""
    end = len(buf) if end is None else end
    out = []
    while end - off >= 4:
        alen, atype = NLA.unpack_from(buf, off)
        if alen < 4 or alen > end - off:
            break
        out.append((atype, off + 4, alen - 4))
        off += align4(alen)
    return out, max(0, end - off)


def frame(data):
    """The requests the kernel will process in a datagram, as
    netlink_rcv_skb() walks it: [(offset, length, type, flags, seq)]."""
    out, off = [], 0
    while len(data) - off >= 16:
        ln, mtype, flags, seq, _ = HDR.unpack_from(data, off)
        if ln < 16 or ln > len(data) - off:
            break
        out.append((off, ln, mtype, flags, seq))
        off += min(align4(ln), len(data) - off)
    return out


def errname(e):
    if e == 0:
        return "OK"
    return errno.errorcode.get(-e, str(e)) if e < 0 else "+%d" % e


class Req:
    """One request of a datagram and what came back for it."""
    __slots__ = ("seq", "mtype", "flags", "length", "data", "cmd", "ours",
                 "dump", "acks", "msgs", "done", "multi", "intr", "extack",
                 "layout", "hdr_bad")

    def __init__(self, data, off, ln, mtype, flags, seq, family_id):
        self.seq, self.mtype, self.flags, self.length = seq, mtype, flags, ln
        self.data = data[off:off + ln]
        self.ours = mtype == family_id and flags & F_REQUEST
        self.cmd = None
        self.hdr_bad = False
        if self.ours and ln >= 20:
            self.cmd = CMD_NAME.get(data[off + 16], "cmd%d" % data[off + 16])
            # genetlink's genl_header_check(): reserved 0, and no flags
            # but REQUEST, ACK, ECHO and both DUMP bits together
            f = flags & ~F_DUMP if (flags & F_DUMP) == F_DUMP else flags
            self.hdr_bad = bool(data[off + 18] or data[off + 19] or
                                f & ~(F_REQUEST | F_ACK | F_ECHO))
        self.dump = bool(self.ours and self.cmd and not self.hdr_bad and
                         (flags & F_DUMP) == F_DUMP)
        self.acks, self.msgs, self.done = [], [], []
        self.multi = 0
        self.intr = False
        self.extack = []
        self.layout = None

    def label(self):
        if not self.flags & F_REQUEST:
            return "no-REQUEST"
        if self.mtype < NLMSG_MIN_TYPE:
            return "ctl-type"
        if not self.ours:
            return "other-family"
        return self.cmd or "short-genl"

    def batch(self):
        """The top-level attributes that hold entries, as the kernel
        counts them, and every packed one: [(type, payload offset, length,
        first index, count)] (whole records: past the policy, all are)."""
        if self.layout is None:
            attrs, _ = walk_attrs(self.data, 20)
            self.layout, i = [], 0
            for t, o, ln in attrs:
                t &= NLA_TYPE_MASK
                n = ln // RECORD[t][1].size if t in RECORD else \
                    int(t == A["ENTRY"])
                if n or t in RECORD:
                    self.layout.append((t, o, ln, i, n))
                    i += n
        return self.layout

    def entries(self):
        return sum(x[4] for x in self.batch())

    def records(self):
        """The packed records: [(index, entry family, record bytes)]."""
        out = []
        for t, o, _, i, n in self.batch():
            if t in RECORD:
                fam, rec = RECORD[t]
                out += [(i + j, fam, self.data[o + j * rec.size:
                                               o + (j + 1) * rec.size])
                        for j in range(n)]
        return out

    def outcome(self):
        if self.done:
            return self.done[0]
        if self.acks:
            return self.acks[0]
        return None


class Anomaly(Exception):
    pass


class Conn:
    """A raw generic-netlink socket with strict reply checking."""

    def __init__(self, family_id, timeout, ext_ack=True, cap_ack=False,
                 rcvbuf=8 << 20, sock=None):
        self.family_id = family_id
        self.timeout = timeout
        self.ext_ack = ext_ack
        self.s = sock or socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                       NETLINK_GENERIC)
        if sock is None:
            for opt, val in ((SO_RCVBUFFORCE, rcvbuf), (SO_SNDBUFFORCE, 4 << 20)):
                try:
                    self.s.setsockopt(socket.SOL_SOCKET, opt, val)
                except OSError:
                    pass
            self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, int(ext_ack))
            self.s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, int(cap_ack))
            self.s.bind((0, 0))
        self.portid = self.s.getsockname()[0]
        self.peekbuf = bytearray(16)
        self.seq = random.randrange(1, 1 << 30)

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass

    def next_seq(self):
        self.seq = (self.seq + 1) & 0xffffffff or 1
        return self.seq

    def recv_msgs(self, deadline):
        """The messages of one datagram (blocks until one or deadline)."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise Anomaly("no answer within %.0f s (hang?)" % self.timeout)
        r, _, _ = select.select([self.s], [], [], left)
        if not r:
            raise Anomaly("no answer within %.0f s (hang?)" % self.timeout)
        try:
            # the datagram's real size first: an error ack echoes the
            # request, and a request may be megabytes
            n = self.s.recv_into(self.peekbuf, 0,
                                 socket.MSG_PEEK | socket.MSG_TRUNC)
            data = self.s.recv(max(n, 1 << 16))
        except OSError as e:
            if e.errno == errno.ENOBUFS:
                raise Anomaly("receive buffer overrun (ENOBUFS): replies lost")
            raise
        out, off = [], 0
        while off < len(data):
            if len(data) - off < 16:
                raise Anomaly("reply datagram with %d stray bytes at its end"
                              % (len(data) - off))
            ln, mtype, flags, seq, pid = HDR.unpack_from(data, off)
            if ln < 16 or ln > len(data) - off:
                raise Anomaly("reply nlmsg_len %d, %d bytes left" %
                              (ln, len(data) - off))
            out.append((mtype, flags, seq, data[off:off + ln]))
            off += align4(ln)
        return out

    def prepare(self, data):
        """Give every framed request a fresh seq; the Req objects."""
        data = bytearray(data)
        reqs = []
        for off, ln, mtype, flags, _ in frame(bytes(data)):
            seq = self.next_seq()
            struct.pack_into("=I", data, off + 8, seq)
            reqs.append(Req(data, off, ln, mtype, flags, seq, self.family_id))
        return bytes(data), reqs

    def transact(self, data, close_early=False):
        """Send a datagram and a sentinel; collect and check every answer.
        Returns the Reqs; raises Anomaly for anything improper."""
        data, reqs = self.prepare(data)
        byseq = {r.seq: r for r in reqs}
        try:
            self.s.send(data)
        except OSError as e:
            if e.errno == errno.EMSGSIZE and len(data) > (1 << 20):
                return reqs
            if not data and e.errno == errno.ENODATA:
                return reqs   # netlink_sendmsg() refuses an empty datagram
            raise Anomaly("send of %d bytes failed: %s" % (len(data), e))
        sentinel = self.next_seq()
        self.s.send(nlmsg(NLMSG_NOOP, F_REQUEST | F_ACK, sentinel, b""))
        deadline = time.monotonic() + self.timeout
        got_sentinel = False
        while True:
            if got_sentinel and not any(r.dump and not (r.done or r.acks)
                                        for r in reqs):
                break
            for mtype, flags, seq, m in self.recv_msgs(deadline):
                if seq == sentinel:
                    if mtype != NLMSG_ERROR or struct.unpack_from("=i", m, 16)[0]:
                        raise Anomaly("sentinel NOOP answered wrongly: %s" %
                                      m[:64].hex())
                    got_sentinel = True
                    continue
                r = byseq.get(seq)
                if r is None:
                    raise Anomaly("reply for seq %d never sent (type %d)" %
                                  (seq, mtype))
                self.take(r, mtype, flags, m)
        for i, r in enumerate(reqs):
            check_req(r)
            o = r.outcome()
            # netlink's own "a dump already runs on this socket": an ack,
            # without a message, and only after a dump began before
            core_busy = r.dump and o == -errno.EBUSY and r.acks
            if core_busy and not any(p.dump for p in reqs[:i]):
                raise Anomaly("%s dump: EBUSY with no dump running" % r.cmd)
            if self.ext_ack and o and o != -errno.EOPNOTSUPP and \
                    r.cmd in SPEC and not core_busy and \
                    not any(NLMSGERR_ATTR_MSG in x for x in r.extack):
                raise Anomaly("%s: %s without an extended ack message" %
                              (r.cmd, errname(o)))
        return reqs

    def take(self, r, mtype, flags, m):
        if mtype == NLMSG_ERROR:
            if len(m) < 36:
                raise Anomaly("NLMSG_ERROR of %d bytes" % len(m))
            err, = struct.unpack_from("=i", m, 16)
            eln, _, _, eseq, _ = HDR.unpack_from(m, 20)
            if eseq != r.seq or eln != r.length:
                raise Anomaly("error ack echoes seq %d len %d, sent %d len %d"
                              % (eseq, eln, r.seq, r.length))
            r.acks.append(err)
            echoed = 16 if (flags & F_CAPPED or not err) else align4(eln)
            r.extack.append(parse_extack(m, 20 + echoed, flags, r))
        elif mtype == NLMSG_DONE:
            if len(m) < 20:
                raise Anomaly("NLMSG_DONE without its errno (%d bytes)" % len(m))
            err, = struct.unpack_from("=i", m, 16)
            r.done.append(err)
            r.extack.append(parse_extack(m, 20, flags, r))
        elif mtype == self.family_id:
            if flags & F_MULTI:
                r.multi += 1
            if flags & F_DUMP_INTR:
                r.intr = True
            r.msgs.append((flags, parse_reply(m)))
        else:
            raise Anomaly("reply of type %d to seq %d" % (mtype, r.seq))


def parse_extack(m, off, flags, r):
    """The extended ack TLVs after an error: {type: payload}."""
    if not flags & F_ACK_TLVS:
        if len(m) > align4(off) and off <= len(m):
            raise Anomaly("ack has %d bytes after its payload but no "
                          "NLM_F_ACK_TLVS" % (len(m) - off))
        return {}
    attrs, left = walk_attrs(m, off)
    if left:
        raise Anomaly("ext ack TLVs: %d stray bytes" % left)
    out = {}
    for t, o, ln in attrs:
        t &= NLA_TYPE_MASK
        if t == 0 or t > NLMSGERR_ATTR_MAX:
            raise Anomaly("ext ack TLV of unknown type %d" % t)
        p = m[o:o + ln]
        if t == NLMSGERR_ATTR_MSG:
            if not p.endswith(b"\0") or b"\0" in p[:-1] or \
                    not all(32 <= c < 127 for c in p[:-1]):
                raise Anomaly("ext ack message not a clean string: %r" % p)
        if t == NLMSGERR_ATTR_OFFS:
            if ln != 4:
                raise Anomaly("ext ack offset of %d bytes" % ln)
            o2, = struct.unpack("=I", p)
            if o2 >= r.length or o2 < 16:
                raise Anomaly("ext ack offset %d outside the %d-byte request"
                              % (o2, r.length))
        out[t] = p
    return out


def parse_reply(m):
    """A family message: (cmd, {attr: [payloads]}), strictly well-formed,
    and decodable by pyroute2 as well."""
    if len(m) < 20:
        raise Anomaly("reply of %d bytes: no genl header" % len(m))
    cmd = m[16]
    attrs, left = walk_attrs(m, 20)
    if left:
        raise Anomaly("reply cmd %d: %d stray bytes after its attributes"
                      % (cmd, left))
    out = collections.defaultdict(list)
    for t, o, ln in attrs:
        out[t & NLA_TYPE_MASK].append(m[o:o + ln])
    try:
        d = nfcmsg(m)
        d.decode()
    except Exception as e:  # pyroute2 could not parse it
        raise Anomaly("pyroute2 cannot decode a reply: %r" % e)
    return cmd, out


def u(p, n):
    if len(p) != n:
        raise Anomaly("reply attribute of %d bytes, want %d" % (len(p), n))
    return int.from_bytes(p, sys.byteorder)


def check_filter_desc(a, stats=True):
    for k in GET_MUST + (["FPR_TOTAL"] if stats else []):
        if k == "STATS" and not stats:
            continue
        if len(a.get(A[k], [])) != 1:
            raise Anomaly("filter description: %s %s" %
                          (k, "missing" if not a.get(A[k]) else "repeated"))
    name = a[A["NAME"]][0]
    if not name.endswith(b"\0") or not 2 <= len(name) <= NAME_MAXLEN or \
            b"\0" in name[:-1]:
        raise Anomaly("filter description: bad NAME %r" % name)
    if u(a[A["ID"]][0], 4) < 1:
        raise Anomaly("filter description: ID 0")
    if not 1 <= u(a[A["FAMILY"]][0], 1) <= 3:
        raise Anomaly("filter description: FAMILY out of range")
    if not (u(a[A["GROW"]][0], 1) <= 1 and
            2 <= u(a[A["GROW_FACTOR"]][0], 1) <= 8 and
            1 <= u(a[A["STAGES_MAX"]][0], 1) <= 16):
        raise Anomaly("filter description: growth settings out of range")
    stages = a.get(A["STAGE"], [])
    if not stats and stages:
        raise Anomaly("filter description: STAGE without STATS")
    if stats:
        st, left = walk_attrs(a[A["STATS"]][0])
        if left or not st:
            raise Anomaly("filter description: malformed STATS")
        if not 1 <= len(stages) <= u(a[A["STAGES_MAX"]][0], 1):
            raise Anomaly("filter description: %d stages of at most %d" %
                          (len(stages), u(a[A["STAGES_MAX"]][0], 1)))
        for sg in stages:
            got, left = walk_attrs(sg)
            kinds = sorted(t & NLA_TYPE_MASK for t, _, _ in got
                           if t & NLA_TYPE_MASK != ST["PAD"])
            if left or kinds != sorted(v for k, v in ST.items()
                                       if k != "PAD"):
                raise Anomaly("filter description: malformed STAGE")


def check_req(r):
    """Is what came back for r what the interface allows?"""
    acks, done = r.acks, r.done
    label = r.label()
    for e in acks + done:
        if e > 0:
            raise Anomaly("%s: positive errno %d" % (label, e))
    if not r.flags & F_REQUEST or r.mtype < NLMSG_MIN_TYPE:
        want = [0] if r.flags & F_ACK else []
        if acks != want or done or r.msgs:
            raise Anomaly("%s: got acks %s done %s msgs %d, want acks %s" %
                          (label, acks, done, len(r.msgs), want))
        return
    if not r.ours:
        if acks != [-errno.ENOENT] or r.msgs or done:
            raise Anomaly("unknown family: got %s %s" % (acks, done))
        return
    if r.cmd is None or r.hdr_bad:
        if acks != [-errno.EINVAL] or r.msgs or done:
            raise Anomaly("%s: got %s %s, want EINVAL" % (
                "short genl header" if r.cmd is None else
                "%s with reserved bits or flags" % label, acks, done))
        return
    if r.cmd not in SPEC or (r.dump and r.cmd not in ("GET", "SAVE")) or \
            (not r.dump and r.cmd == "SAVE"):
        if acks != [-errno.EOPNOTSUPP] or r.msgs or done:
            raise Anomaly("%s%s: got %s %s, want EOPNOTSUPP" % (
                label, " dump" if r.dump else "", acks, done))
        return
    if len(acks) + len(done) > 1:
        raise Anomaly("%s: %d answers (acks %s, done %s)" %
                      (label, len(acks) + len(done), acks, done))
    if r.dump:
        if not acks and not done:
            raise Anomaly("%s dump: no NLMSG_DONE" % label)
        if acks and acks[0] == 0:
            raise Anomaly("%s dump: an ack of 0 instead of NLMSG_DONE" % label)
    elif not done and not acks and r.flags & F_ACK:
        raise Anomaly("%s: no ack although NLM_F_ACK was set" % label)
    elif done:
        raise Anomaly("%s: NLMSG_DONE for a request that is not a dump" % label)
    elif acks and acks[0] == 0 and not r.flags & F_ACK:
        raise Anomaly("%s: ack of 0 without NLM_F_ACK" % label)
    err = -(r.outcome() or 0)
    if err:
        allowed = ANY_ERR | CMD_ERR.get(r.cmd, set())
        if r.dump:
            allowed.add(errno.EBUSY)   # see Conn.transact()
        if err not in allowed:
            raise Anomaly("%s: errno %s is not one it may answer" %
                          (label, errno.errorcode.get(err, err)))
    if r.msgs:
        check_msgs(r, err)
    if not err and not (r.dump and r.cmd == "GET"):
        check_name(r)


NAME_RE = re.compile(rb"[A-Za-z0-9_.-]{1,31}\Z")


def check_name(r):
    """A command that succeeded named a filter: by a name the interface
    allows (the last NAME counts, up to its NUL)."""
    attrs, _ = walk_attrs(r.data, 20)
    names = [bytes(r.data[o:o + ln]) for t, o, ln in attrs
             if t & NLA_TYPE_MASK == A["NAME"]]
    if not names:
        if r.cmd in SPEC:
            raise Anomaly("%s succeeded without a NAME" % r.cmd)
        return
    name = names[-1].split(b"\0")[0]
    if not NAME_RE.match(name):
        raise Anomaly("%s succeeded with the name %r, which the interface "
                      "does not allow" % (r.cmd, name))


def check_msgs(r, err):
    want = REPLY_CMD.get(r.cmd)
    if want is None:
        raise Anomaly("%s: %d reply messages from a command that sends none"
                      % (r.cmd, len(r.msgs)))
    for flags, (cmd, a) in r.msgs:
        if CMD_NAME.get(cmd) != want:
            raise Anomaly("%s: reply with cmd %d" % (r.cmd, cmd))
        if bool(flags & F_MULTI) != r.dump:
            raise Anomaly("%s: NLM_F_MULTI %s in a %s" % (
                r.cmd, "set" if flags & F_MULTI else "missing",
                "dump" if r.dump else "plain reply"))
    if r.cmd == "GET":
        if not r.dump and (len(r.msgs) != 1 or err):
            raise Anomaly("GET: %d replies and errno %d" % (len(r.msgs), err))
        for _, (_, a) in r.msgs:
            check_filter_desc(a)
    elif r.cmd == "SAVE":
        check_save(r)
    else:
        check_batch(r, err)


def check_save(r):
    msgs = [a for _, (_, a) in r.msgs]
    if not msgs:
        return
    first = msgs[0]
    check_filter_desc(first, stats=False)
    # one image header per stage
    if not 1 <= len(first.get(A["IMAGE_HEADER"], [])) <= \
            u(first[A["STAGES_MAX"]][0], 1) or \
            len(first.get(A["IMAGE_TABLE_BYTES"], [])) != 1:
        raise Anomaly("SAVE: first message without IMAGE_HEADER/TABLE_BYTES")
    total = u(first[A["IMAGE_TABLE_BYTES"]][0], 8)
    off = 0
    for a in msgs[1:]:
        if A["CHUNK_OFFSET"] not in a or A["CHUNK_DATA"] not in a:
            raise Anomaly("SAVE: chunk message without OFFSET/DATA")
        o = u(a[A["CHUNK_OFFSET"]][0], 8)
        d = a[A["CHUNK_DATA"]][0]
        if o != off or not d or len(d) % 8 or len(d) > CHUNK_MAX:
            raise Anomaly("SAVE: chunk at %d of %d bytes, expected at %d"
                          % (o, len(d), off))
        off += len(d)
    if off > total or (r.done == [0] and off != total):
        raise Anomaly("SAVE: %d of %d table bytes and done %s" %
                      (off, total, r.done))


def check_batch(r, err):
    if len(r.msgs) != 1:
        raise Anomaly("%s: %d reply messages" % (r.cmd, len(r.msgs)))
    a = r.msgs[0][1][1]
    n = r.entries()
    for k in ("NAME", "BATCH_DONE", "BATCH_SKIPPED"):
        if len(a.get(A[k], [])) != 1:
            raise Anomaly("%s reply: %s missing or repeated" % (r.cmd, k))
    done = u(a[A["BATCH_DONE"]][0], 4)
    skipped = u(a[A["BATCH_SKIPPED"]][0], 4)
    failed = A["BATCH_FAIL_INDEX"] in a
    if failed != (A["BATCH_FAIL_REASON"] in a):
        raise Anomaly("%s reply: FAIL_INDEX without FAIL_REASON" % r.cmd)
    if failed:
        idx = u(a[A["BATCH_FAIL_INDEX"]][0], 4)
        why = u(a[A["BATCH_FAIL_REASON"]][0], 4)
        want = WHY.get(err)
        if not err or idx >= n or why != want or done or skipped:
            raise Anomaly("%s reply: failed entry %d of %d reason %d, done %d,"
                          " skipped %d, errno %s" % (r.cmd, idx, n, why, done,
                                                     skipped, errname(-err)))
    elif err:
        raise Anomaly("%s: a reply without FAIL_INDEX and errno %s" %
                      (r.cmd, errname(-err)))
    elif done + skipped != n:
        raise Anomaly("%s reply: done %d + skipped %d != %d entries" %
                      (r.cmd, done, skipped, n))
    if failed:
        check_packed(r, idx, why)
        check_ack_offset(r, idx)
    else:
        check_packed(r, None, None)
    if r.cmd == "TEST_ENTRIES" and not failed:
        if A["TEST_HITS"] not in a or A["TEST_BITMAP"] not in a:
            raise Anomaly("TEST reply without HITS or BITMAP")
        hits = u(a[A["TEST_HITS"]][0], 4)
        bm = a[A["TEST_BITMAP"]][0]
        if len(bm) != (n + 7) // 8 or \
                sum(bin(b).count("1") for b in bm) != hits or \
                (n % 8 and bm[-1] >> (n % 8)):
            raise Anomaly("TEST reply: %d hits, bitmap %s for %d entries" %
                          (hits, bm[:16].hex(), n))


def check_packed(r, idx, why):
    """What a batch's packed records alone decide, idx and why being its
    failure (None: it did not fail): a record with padding set fails the
    parse there, if no entry before it failed; one with prefix lengths
    may fail it there (a bad length) or not; a family the filter does not
    hold fails at its first record."""
    recs = r.records()
    bad = next((i for i, _, b in recs if b[-1]), None)
    plens = {i for i, _, b in recs if any(b[-3:-1])}
    if bad is not None and (idx is None or idx > bad or
                            why not in (WHY_MALFORMED, WHY_FAMILY)):
        raise Anomaly("%s: record %d has padding set, yet the batch %s" % (
            r.cmd, bad, "succeeded" if idx is None else
            "failed at entry %d for reason %d" % (idx, why)))
    fam = {i: f for i, f, _ in recs}.get(idx)
    if why == WHY_MALFORMED and fam and idx != bad and idx not in plens:
        raise Anomaly("%s: record %d malformed, its padding and prefix "
                      "lengths zero" % (r.cmd, idx))
    if why == WHY_FAMILY and fam and \
            idx != min(i for i, f, _ in recs if f == fam):
        raise Anomaly("%s: record %d failed for its family, an earlier one "
                      "of that family did not" % (r.cmd, idx))


def check_ack_offset(r, idx):
    """The ext ack of a batch failed at entry idx points at the packed
    attribute that holds its record, or into the entry's nest."""
    offs = [x.get(NLMSGERR_ATTR_OFFS) for x in r.extack
            if NLMSGERR_ATTR_MSG in x]
    if not offs:
        return   # no extended ack on this socket
    t, o, ln, _, _ = next(x for x in r.batch() if x[3] <= idx < x[3] + x[4])
    got = struct.unpack("=I", offs[0])[0] if offs[0] else None
    if not (got == o - 4 if t in RECORD else
            got is not None and o - 4 <= got < o + ln):
        raise Anomaly("%s: entry %d failed, the ext ack points at offset %s, "
                      "its attribute is at %d" % (r.cmd, idx, got, o - 4))


# ---------------------------------------------------------------------------
# Values and messages

U8_I = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 31, 32, 33, 127, 128, 254, 255]
U16_I = [0, 1, 2, 499, 500, 8191, 8192, 8193, 32768, 65535]
U32_I = [0, 1, 2, 3, 0x1f, 0x20, 0xff, 999999999, 1000000000, 0x7fffffff,
         0x80000000, 0xfffffffe, 0xffffffff]
U64_I = [0, 1, 2, 63, 64, 65536, 1 << 20, 1 << 31, 1 << 32, (1 << 32) - 1,
         1 << 33, 1 << 40, 1 << 63, (1 << 64) - 1, (1 << 64) - 2]
S32_I = [-(1 << 31), -(1 << 31) + 1, -400, -300, -1, 0, 1, 300,
         (1 << 31) - 2, (1 << 31) - 1]
FMT = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q", "s32": "=i",
       "be16": ">H"}
WIDTH = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "s32": 4, "be16": 2}
# sensible values, so that many messages get past the policy
GOOD = {
    "FAMILY": [1, 2, 3], "KEY_FIELDS": [0x1f, 0x03, 0x01, 0x0c, 0x10, 0x13],
    "CAPACITY": [1, 2, 100, 1000, 4096, 65536], "FP_BITS": [6, 8, 12, 16, 32],
    "FPR": [1000000, 100000, 1000, 10], "BUCKET_SIZE": [2, 4, 8],
    "ENCODING": [0, 1],
    "MAX_KICKS": [1, 10, 500, 8192], "HOOK": [0, 1, 2, 3, 4, 5],
    "PRIORITY": [-300, -150, 0, 100], "ACTION": [0, 1, 2],
    "MARK": [0, 1, 0x10], "MARK_MASK": [0xff, 0xffffffff],
    "BIDIRECTIONAL": [0, 1], "INVERT": [0, 1], "ENABLED": [0, 1],
    "BATCH_FLAGS": [0, 1, 2, 3], "SEED": [0, 1, 12345, (1 << 64) - 1],
}
NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_.-"


class Gen:
    """Random messages for one worker."""

    def __init__(self, rng, family_id, pool, protect, images):
        self.rng = rng
        self.fid = family_id
        self.pool = pool
        self.protect = [p.encode() + b"\0" for p in protect]
        self.images = images   # [(header bytes, table bytes)]
        self.cache = []
        self.rcache = {}

    def value(self, t, good=None):
        rng = self.rng
        if good and rng.random() < 0.6:
            return rng.choice(good)
        r = rng.random()
        if t == "u8":
            return rng.choice(U8_I) if r < 0.7 else rng.randrange(256)
        if t in ("u16", "be16"):
            return rng.choice(U16_I) if r < 0.7 else rng.randrange(65536)
        if t == "u32":
            return rng.choice(U32_I) if r < 0.7 else rng.getrandbits(32)
        if t == "u64":
            return rng.choice(U64_I) if r < 0.7 else rng.getrandbits(64)
        if t == "s32":
            return rng.choice(S32_I) if r < 0.7 else rng.randrange(-(1 << 31), 1 << 31)
        raise ValueError(t)

    def name(self):
        """A name: mostly from the pool; else too long, empty, bad chars."""
        rng = self.rng
        r = rng.random()
        if r < 0.75:
            return rng.choice(self.pool)
        if r < 0.80:
            return "".join(rng.choice(NAME_CHARS) for _ in range(31))
        if r < 0.85:
            return "".join(rng.choice(NAME_CHARS)
                           for _ in range(rng.choice([32, 33, 40, 64, 255, 1000])))
        if r < 0.88:
            return ""
        if r < 0.92:   # bytes past ASCII: Latin-1 letters and others
            return bytes(rng.choice([rng.randrange(0xc0, 0x100),
                                     rng.randrange(0x80, 0x100),
                                     ord(rng.choice(NAME_CHARS))])
                         for _ in range(rng.randrange(1, 9)))
        return rng.choice(["a b", "a/b", "fz0\n", "x\x01", "\x7f", "caf\xe9",
                           "..", "-", "fz0 ", "%s", "\\"])

    def addr(self, fam):
        rng = self.rng
        if rng.random() < 0.1:
            return os.urandom(rng.choice([0, 1, 3, 5, 8, 15, 17, 32]))
        n = 4 if fam == 1 else 16
        if rng.random() < 0.1:
            n = 20 - n   # the other family's length
        if rng.random() < 0.5:   # a few flows, so adds and tests meet
            return bytes([10, 0, 0, rng.randrange(4)]) if n == 4 else \
                b"\x20\x01\x0d\xb8" + bytes(11) + bytes([rng.randrange(4)])
        return os.urandom(n)

    def entry(self, valid=False, fam=None):
        """An entry for pyroute2: a list of (NAME, value), FAMILY first."""
        rng = self.rng
        fam = fam or (rng.choice([1, 2]) if valid or rng.random() < 0.9 else
                      rng.choice([0, 3, 4, 255]))
        e = [("FAMILY", fam)]
        for k in ("SRC", "DST"):
            if valid or rng.random() < 0.92:
                e.append((k, self.addr(fam) if not valid else
                          (bytes([10, 0, 0, rng.randrange(8)]) if fam == 1 else
                           b"\x20\x01\x0d\xb8" + bytes(11) +
                           bytes([rng.randrange(8)]))))
        for k in ("SPORT", "DPORT"):
            if valid or rng.random() < 0.9:
                e.append((k, rng.randrange(4) if rng.random() < 0.7 else
                          rng.randrange(65536)))
        if valid or rng.random() < 0.92:
            e.append(("PROTO", rng.choice([6, 17, 17, 1, 58, 0, 255])))
        if not valid and rng.random() < 0.05:
            e = [] if rng.random() < 0.3 else rng.sample(e, len(e))
        if not valid and rng.random() < 0.05 and e:
            e.append(rng.choice(e))   # a field twice
        if not valid and rng.random() < 0.1:   # a prefix, good or bad
            e.append((rng.choice(["SRC_PLEN", "DST_PLEN"]),
                      rng.choice([0, 1, 8, 24, 31, 32, 33, 64, 127, 128,
                                  129, 255])))
        return e

    def raw_entry(self, valid=True):
        """Entry bytes built by hand."""
        return entry_bytes(self.entry(valid))

    def raw_entries(self, n):
        """n valid entries, drawn from a cache that is renewed now and then
        (building thousands each time would make the fuzzer crawl)."""
        if not self.cache or self.rng.random() < 0.05:
            self.cache = [self.raw_entry(True) for _ in range(256)]
        return b"".join(self.rng.choices(self.cache, k=n))

    def records(self, fam, n):
        """n valid packed records of family fam, from a cache, as
        raw_entries()."""
        if not self.rcache.get(fam) or self.rng.random() < 0.05:
            self.rcache[fam] = [record_bytes(self.entry(True, fam))
                                for _ in range(256)]
        return b"".join(self.rng.choices(self.rcache[fam], k=n))

    def packed_entries(self, n, fams=(1, 2)):
        """n valid entries as packed attributes of the families fams."""
        out = []
        while n > 0:
            fam = self.rng.choice(fams)
            name = PACKED_OF[fam]
            k = min(n, self.rng.randrange(1, PACKED_BYTES //
                                          PACKED[name][1].size + 1))
            out.append(nlattr(A[name], self.records(fam, k)))
            n -= k
        return b"".join(out)

    def packed(self, name):
        """A packed attribute's payload: whole valid records, now and then
        one with padding set; else a length that is not whole records (the
        other family's record, say), none, or over PACKED_BYTES."""
        rng = self.rng
        fam, rec = PACKED[name]
        r = rng.random()
        if r < 0.04:
            other = PACKED[PACKED_OF[3 - fam]][1].size
            return os.urandom(rng.choice([1, rec.size - 1, rec.size + 1, other,
                                          3 * rec.size + 8]))
        if r < 0.06:
            return b""
        if r < 0.08:   # the most an attribute can hold is 65531
            return os.urandom(rng.choice([PACKED_BYTES + 1, PACKED_BYTES + 8,
                                          0xffff - 4]))
        n = rng.choice([1, 1, 2, 3, 16, 100]) if rng.random() < 0.9 else \
            rng.choice([1000, PACKED_BYTES // rec.size])
        b = bytearray(self.records(fam, n))
        if rng.random() < 0.1:
            b[rng.randrange(n) * rec.size + rec.size - rng.randrange(1, 4)] = \
                rng.randrange(1, 256)
        return bytes(b)

    def bad_attr(self):
        """An attribute the encoder would not write: wrong length, type or
        flags, unterminated string, deep or empty nest, unknown type."""
        rng = self.rng
        name, aval, t = rng.choice(ATTRS)
        k = rng.randrange(10)
        if k == 0:   # wrong length for its type
            return nlattr(aval, os.urandom(rng.choice([0, 1, 2, 3, 5, 7, 9, 16])))
        if k == 1:   # unterminated name, or one with its NUL late
            s = rng.choice([b"fz0", b"fz1", b"a" * 31, b"a" * 32, b"fz0\0junk",
                            b"a" * 40 + b"\0", os.urandom(8), b"\xe9t\xe9\0",
                            b"\xff\0", b"fz\xc0\0", bytes([rng.randrange(1, 256)
                                                        for _ in range(3)]) + b"\0"])
            return nlattr(A["NAME"], s)
        if k == 2:   # nested where a scalar is wanted, or the reverse
            return nest(aval, [nlattr(rng.randrange(1, 40), b"\1\0\0\0")])
        if k == 3:   # a deep nest
            inner = nlattr(rng.randrange(0, 8), b"\0\0\0\0")
            for _ in range(rng.choice([2, 8, 16, 33, 64, 200])):
                inner = nest(rng.choice([aval, A["ENTRY"], A["STATS"], 1]),
                             [inner], rng.random() < 0.8)
            return inner
        if k == 4:   # empty nest, with or without the flag
            return nlattr(rng.choice([A["ENTRY"], A["STATS"], aval]) |
                          (NLA_F_NESTED if rng.random() < 0.7 else 0), b"")
        if k == 5:   # unknown type, or 0
            return nlattr(rng.choice([0, max(ATYPE) + 1, 100, NLA_TYPE_MASK]),
                          os.urandom(rng.choice([0, 4, 8])))
        if k == 6:   # NET_BYTEORDER / NESTED bits on a scalar
            p = struct.pack(FMT.get(t, "=I"), 1) if t in FMT else b"\1\0\0\0"
            return nlattr(aval | rng.choice([NLA_F_NET_BYTEORDER, NLA_F_NESTED,
                                             NLA_F_NET_BYTEORDER | NLA_F_NESTED]),
                          p)
        if k == 7:   # an entry missing NLA_F_NESTED, or with junk inside
            body = [nlattr(E["FAMILY"], b"\1"), nlattr(rng.randrange(0, 10),
                                                       os.urandom(rng.randrange(0, 20)))]
            return nest(A["ENTRY"], body, rng.random() < 0.5)
        if k == 8:   # a huge binary
            return nlattr(rng.choice([A["IMAGE_HEADER"], A["CHUNK_DATA"],
                                      A["TEST_BITMAP"], A["NAME"],
                                      A["ENTRIES_IPV4"], A["ENTRIES_IPV6"]]),
                          bytes(rng.choice([257, 4096, 32768, 32776, 65000])))
        # a reply-only attribute in a request
        return nlattr(rng.choice([A["BATCH_DONE"], A["TEST_HITS"],
                                  A["LOADING"], A["IMAGE_TABLE_BYTES"]]),
                      bytes(8 if ATYPE.get(aval) == "u64" else 4))

    def image(self):
        """An image header: real, or a real one with a field changed."""
        rng = self.rng
        if not self.images:
            return os.urandom(rng.choice([0, 8, 48, 56]))
        hdr, _ = rng.choice(self.images)
        if rng.random() < 0.4:
            return hdr
        b = bytearray(hdr)
        fields = [(0, "=I"), (4, "=H"), (6, "=B"), (7, "=B"), (8, "=I"),
                  (12, "=H"), (14, "=H"), (16, "=Q"), (24, "=Q"), (32, "=Q"),
                  (40, "=Q")]
        if rng.random() < 0.1:
            return bytes(b[:rng.randrange(len(b))]) + \
                (os.urandom(8) if rng.random() < 0.5 else b"")
        off, f = rng.choice(fields)
        size = struct.calcsize(f)
        v = rng.choice([0, 1, 2, 3, 8, 33, (1 << (8 * size)) - 1,
                        rng.getrandbits(8 * size)])
        struct.pack_into(f, b, off, v & ((1 << (8 * size)) - 1))
        return bytes(b)

    def attr_value(self, name):
        t = ATYPE[A[name]]
        if name in ("NAME", "NAME2"):
            return self.name()
        if name == "IMAGE_HEADER":
            return self.image()
        if name == "CHUNK_DATA":
            n = self.rng.choice([8, 8, 16, 64, 4096, CHUNK_MAX, 0, 4, 12,
                                 CHUNK_MAX + 8, 1000])
            return bytes(n) if self.rng.random() < 0.7 else os.urandom(n)
        if name == "TEST_BITMAP":
            return os.urandom(self.rng.randrange(8))
        if name == "PREFIXES":   # struct nf_cuckoo_prefix_count records
            rng = self.rng
            if rng.random() < 0.1:
                return os.urandom(rng.choice([0, 1, 7, 9, 8 * 65]))
            return b"".join(struct.pack(
                "=BBBBI", rng.choice([1, 2, 1, 2, 0, 3]),
                rng.choice([0, 8, 24, 31, 32, 64, 127, 128, 255]),
                rng.choice([0, 0, 16, 33, 128]),
                0 if rng.random() < 0.9 else 1,
                rng.choice([1, 1, 7, 0, 0xffffffff]))
                for _ in range(rng.choice([1, 1, 2, 5, 32, 33, 64])))
        if name in ("STATS", "BIND", "IFACE"):
            return None
        if name == "IFINDEX":
            # Never a device of the namespace: a bind that took would
            # keep its filter from being destroyed, which the scenarios
            # below do not expect (bind_scenario() binds for real).
            return self.rng.choice([0, 0, 1 << 20, 0x7fffffff,
                                    (1 << 32) - 1,
                                    (1 << 24) | self.rng.getrandbits(20)])
        if name == "BIND_POINT":
            return self.rng.choice([0, 1, 2, 3, 255])
        if name in PACKED:
            return self.packed(name)
        if name == "CHUNK_OFFSET":
            return self.rng.choice([0, 0, 8, 64, 4096, 1 << 63, (1 << 64) - 8,
                                    self.rng.getrandbits(16) * 8])
        return self.value(t, GOOD.get(name))

    def structured(self):
        """(datagram, note): a message from the attribute table."""
        rng = self.rng
        r = rng.random()
        if r < 0.02:
            cmd = rng.choice([0, 13, 14, 100, 255])
            cname = None
        else:
            cname = rng.choice(list(SPEC))
            cmd = C[cname]
        req, opt = SPEC.get(cname, ([], []))
        attrs = []
        keep = 0.97 if rng.random() < 0.7 else 0.6
        for a in req:
            if a == "entries":
                continue
            if rng.random() < keep:
                attrs.append((a, self.attr_value(a)))
        for a in opt:
            if rng.random() < 0.25:
                attrs.append((a, self.attr_value(a)))
        if rng.random() < 0.1:   # an attribute this command does not take
            a = rng.choice([n for n, _, t in ATTRS if t not in ("pad", "nest")])
            attrs.append((a, self.attr_value(a)))
        if attrs and rng.random() < 0.1:   # one twice
            a = rng.choice(attrs)
            attrs.insert(rng.randrange(len(attrs) + 1),
                         (a[0], self.attr_value(a[0])))
        if rng.random() < 0.05:
            attrs.reverse()
        attrs = [(k, v) for k, v in attrs if v is not None]
        raw_tail = b""
        if "entries" in req or rng.random() < 0.03:
            raw_tail = self.entries(attrs)
        flags = F_REQUEST | F_ACK
        if cname == "SAVE" or (cname == "GET" and rng.random() < 0.3):
            flags |= F_DUMP
        if rng.random() < 0.05:
            flags = rng.choice([F_REQUEST, F_REQUEST | F_ACK | F_DUMP,
                                F_REQUEST | F_ACK | F_ECHO,
                                F_REQUEST | F_ACK | F_ROOT,
                                F_REQUEST | F_ACK | F_ATOMIC, F_ACK, 0])
        data = pr_encode(self.fid, cmd, attrs, flags,
                         version=1 if rng.random() < 0.95 else rng.randrange(256))
        extra = raw_tail
        if rng.random() < 0.25:
            extra += b"".join(self.bad_attr() for _ in range(rng.randrange(1, 4)))
        if extra:
            data = self.insert_raw(data, extra)
        return data, cname or "cmd%d" % cmd

    def entries(self, attrs):
        """A batch's entries: nests, a few of them added to attrs for
        pyroute2 to encode, many returned as raw bytes; in one message of
        two, packed attributes among the attrs."""
        rng = self.rng
        raw = b""
        n = rng.choice([0, 1, 1, 1, 2, 3, 5, 16, 64]) if rng.random() < 0.9 \
            else rng.choice([255, 256, 257, 1000, 4095, 4096, 4097, 5000])
        if n <= 5:   # pyroute2 encodes these (it is slow at many)
            for _ in range(n):
                attrs.append(("ENTRY", self.entry(rng.random() < 0.5)))
        else:
            one = self.raw_entry(True)
            if rng.random() < 0.3:
                raw = one * n
            else:
                raw = self.raw_entries(n)
            if rng.random() < 0.2:   # one bad among many
                k = rng.randrange(n)
                raw = self.raw_entries(k) + self.raw_entry(False) + \
                    self.raw_entries(n - k - 1)
        if rng.random() < 0.5:
            for _ in range(rng.choice([1, 1, 2, 3])):
                name = rng.choice(list(PACKED))
                attrs.insert(rng.randrange(len(attrs) + 1),
                             (name, self.packed(name)))
        return raw

    def insert_raw(self, data, extra):
        """Put raw attributes at an attribute boundary; fix nlmsg_len."""
        attrs, _ = walk_attrs(data, 20)
        bounds = [20] + [o - 4 + align4(ln + 4) for _, o, ln in attrs]
        at = self.rng.choice(bounds)
        out = bytearray(data[:at] + extra + data[at:])
        struct.pack_into("=I", out, 0, len(out))
        return bytes(out)

    def valid(self, cname, name=None):
        """A well-formed message (the mutator's raw material)."""
        rng = self.rng
        name = name or rng.choice(self.pool)
        attrs = [("NAME", name)]
        if cname in ("NEW", "LOAD_BEGIN"):
            attrs.append(("FAMILY", rng.choice([1, 2, 3])))
            if cname == "LOAD_BEGIN":
                attrs.append(("IMAGE_HEADER", self.images[0][0] if self.images
                              else bytes(48)))
            else:
                attrs.append(("CAPACITY", rng.choice([16, 100, 1000])))
            if rng.random() < 0.5:
                attrs.append(("ENABLED", rng.choice([0, 1])))
                attrs.append(("ACTION", rng.choice([0, 1, 2])))
        elif cname == "SET":
            attrs.append(("ENABLED", rng.choice([0, 1])))
            attrs.append(("MARK", 7))
        elif cname in BATCH_CMDS:
            for e in (self.entry(True) for _ in range(rng.choice([1, 2, 4]))):
                attrs.append(("ENTRY", e) if rng.random() < 0.5 else
                             (PACKED_OF[e[0][1]], record_bytes(e)))
            if cname != "TEST_ENTRIES" and rng.random() < 0.5:
                attrs.append(("BATCH_FLAGS", 1 if cname == "ADD_ENTRIES" else 2))
        elif cname == "LOAD_CHUNK":
            attrs.append(("CHUNK_OFFSET", 0))
            attrs.append(("CHUNK_DATA", bytes(64)))
        flags = F_REQUEST | F_ACK | (F_DUMP if cname == "SAVE" else 0)
        return pr_encode(self.fid, C[cname], attrs, flags)

    def mutate(self, data):
        """Byte-level damage to one valid message (1 to 4 mutations)."""
        rng = self.rng
        b = bytearray(data)
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
            attrs, _ = walk_attrs(bytes(b), 20)
            k = rng.randrange(14)
            if k == 0 and len(b) > 20:   # flip bits past the nlmsghdr
                for _ in range(rng.randrange(1, 4)):
                    i = rng.randrange(16, len(b))
                    b[i] ^= 1 << rng.randrange(8)
            elif k == 1 and attrs:   # nla_len too short / too long
                t, o, ln = rng.choice(attrs)
                v = rng.choice([0, 1, 3, 4, 5, ln + 3, ln + 5, ln + 8, 0xffff,
                                max(0, ln - 1) + 4, rng.randrange(65536)])
                struct.pack_into("=H", b, o - 4, v & 0xffff)
            elif k == 2 and attrs:   # type changed, or flag bits
                t, o, ln = rng.choice(attrs)
                nt = rng.choice([rng.randrange(0, 40), t ^ NLA_F_NESTED,
                                 t ^ NLA_F_NET_BYTEORDER, NLA_TYPE_MASK,
                                 A["ENTRY"] | NLA_F_NESTED, A["NAME"]])
                struct.pack_into("=H", b, o - 2, nt & 0xffff)
            elif k == 3 and attrs:   # an attribute twice
                t, o, ln = rng.choice(attrs)
                a = bytes(b[o - 4:o - 4 + align4(ln + 4)])
                at = rng.choice([o - 4, o - 4 + align4(ln + 4)])
                b[at:at] = a * rng.choice([1, 1, 2, 50])
            elif k == 4 and attrs:   # an attribute gone
                t, o, ln = rng.choice(attrs)
                del b[o - 4:o - 4 + align4(ln + 4)]
            elif k == 5:   # cut short, nlmsg_len fixed or not
                cut = rng.randrange(0, len(b) + 1)
                del b[cut:]
                if rng.random() < 0.7 and len(b) >= 4:
                    struct.pack_into("=I", b, 0, len(b))
                continue
            elif k == 6:   # garbage appended
                b += os.urandom(rng.choice([1, 2, 3, 4, 7, 16, 100]))
            elif k == 7 and len(b) >= 16:   # nlmsg_len damaged alone
                v = rng.choice([0, 4, 15, 16, 17, 19, 20, len(b) - 1,
                                len(b) + 1, len(b) + 4, 0xffffffff])
                struct.pack_into("=I", b, 0, v & 0xffffffff)
                continue
            elif k == 8 and len(b) >= 20:   # genl header: cmd, version, rsvd
                i = rng.choice([16, 17, 18, 19])
                b[i] = rng.choice([0, 1, 2, 12, 13, 255, rng.randrange(256)])
            elif k == 9 and len(b) >= 8:   # nlmsg flags
                f = rng.choice([0, F_REQUEST, F_REQUEST | F_ACK,
                                F_REQUEST | F_ACK | F_DUMP, F_REQUEST | F_DUMP,
                                F_REQUEST | F_ACK | F_MULTI,
                                F_REQUEST | F_ACK | F_ECHO, F_ACK,
                                rng.randrange(65536)])
                struct.pack_into("=H", b, 6, f)
            elif k == 10 and attrs:   # unterminate the name, or pad it out
                for t, o, ln in attrs:
                    if t & NLA_TYPE_MASK == A["NAME"] and ln:
                        if rng.random() < 0.5:
                            b[o + ln - 1] = ord("x")
                        else:
                            add = rng.choice([1, 28, 29, 40])
                            b[o + ln - 1:o + ln - 1] = b"y" * add
                            struct.pack_into("=H", b, o - 4,
                                             (ln + 4 + add) & 0xffff)
                        break
            elif k == 11 and attrs:   # wrapped in nests, k levels deep
                t, o, ln = rng.choice(attrs)
                a = bytes(b[o - 4:o - 4 + align4(ln + 4)])
                for _ in range(rng.choice([1, 2, 5, 20, 100])):
                    a = nlattr(rng.choice([A["ENTRY"], t & NLA_TYPE_MASK, 0])
                               | NLA_F_NESTED, a)
                b[o - 4:o - 4 + align4(ln + 4)] = a
            elif k == 12:   # a bad attribute spliced in
                b = bytearray(self.insert_raw(bytes(b), self.bad_attr()))
                continue
            elif k == 13 and len(b) >= 8:   # message type
                struct.pack_into("=H", b, 4, rng.choice(
                    [self.fid, self.fid, NLMSG_NOOP, NLMSG_ERROR, NLMSG_DONE,
                     NLMSG_OVERRUN, 0, 15, 0xfffe]))
                continue
            if len(b) >= 4 and rng.random() < 0.8:
                struct.pack_into("=I", b, 0, len(b))
        return bytes(b)

    def fixup(self, data):
        """Keep mutated messages on this family (or none at all): a type
        that might be another family's is set back.  None if the bytes
        hold a protected name."""
        b = bytearray(data)
        for off, ln, mtype, flags, seq in frame(data):
            if mtype >= NLMSG_MIN_TYPE and mtype not in (self.fid, 0xfffe):
                struct.pack_into("=H", b, off + 4, self.fid)
        out = bytes(b)
        if any(p in out for p in self.protect):
            return None
        return out


# ---------------------------------------------------------------------------
# Workers

class Worker:
    """Base: a connection, statistics, the deadline, last-message log."""

    def __init__(self, name, ctx, seed):
        self.name = name
        self.ctx = ctx
        self.rng = random.Random(seed)
        random.seed(seed ^ 0x5eed)
        self.seed = seed
        self.stats = collections.Counter()
        self.by_cmd = collections.Counter()
        self.by_err = collections.Counter()
        self.ms = collections.Counter()
        self.anomalies = []
        self.lost = 0
        self.gen = Gen(self.rng, ctx.fid, ctx.pool, ctx.protect, ctx.images)
        self.lastfd = os.open(os.path.join(ctx.tmp, "last-%s" % name),
                              os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        self.conn = None

    def new_conn(self, **kw):
        if self.conn:
            self.conn.close()
        self.conn = Conn(self.ctx.fid, self.ctx.timeout,
                         ext_ack=kw.pop("ext_ack", self.rng.random() < 0.9),
                         cap_ack=kw.pop("cap_ack", self.rng.random() < 0.3),
                         **kw)
        return self.conn

    def alive(self):
        return time.monotonic() < self.ctx.deadline

    def note(self, data):
        os.pwrite(self.lastfd, struct.pack("=I", len(data)) + data[:1 << 20], 0)

    def anomaly(self, what, data):
        self.stats["anomalies"] += 1
        rec = {"worker": self.name, "what": str(what),
               "datagram": data[:4096].hex(), "bytes": len(data)}
        self.anomalies.append(rec)
        if len(self.anomalies) <= 20:
            print("# ANOMALY %s: %s\n#   datagram (%d bytes): %s" %
                  (self.name, what, len(data), data[:256].hex()),
                  file=sys.stderr, flush=True)
        if self.ctx.save_dir:
            p = os.path.join(self.ctx.save_dir, "anomaly-%s-%d-%d.json" %
                             (self.name, os.getpid(), len(self.anomalies)))
            with open(p, "w") as f:
                json.dump({"about": "found by genl_fuzz.py: %s" % what,
                           "steps": [{"datagram": data.hex(),
                                      "expect": "any"}]}, f, indent=1)

    def send(self, data, conn=None):
        """transact() with bookkeeping; the Reqs, or None on an anomaly."""
        conn = conn or self.conn
        self.note(data)
        t0 = time.monotonic()
        try:
            reqs = conn.transact(data)
        except (Anomaly, OSError) as e:
            self.anomaly(e, data)
            self.new_conn()
            return None
        self.stats["datagrams"] += 1
        if reqs:
            self.ms[reqs[0].label()] += int((time.monotonic() - t0) * 1000)
        for r in reqs:
            self.stats["messages"] += 1
            lab = r.label()
            self.by_cmd[lab] += 1
            o = r.outcome()
            self.by_err[errname(o) if o is not None else "none"] += 1
            if r.msgs:
                self.stats["reply_msgs"] += len(r.msgs)
            if r.intr:
                self.stats["dump_intr"] += 1
            packed = [x[4] for x in r.batch() if x[0] in RECORD] \
                if r.ours else []
            if packed:
                self.stats["packed_msgs"] += 1
                self.stats["packed_records"] += sum(packed)
                self.stats["packed_msgs_ok"] += o == 0
            if o and r.ours and r.cmd in SPEC and o not in (-errno.EOPNOTSUPP,):
                has = any(NLMSGERR_ATTR_MSG in x for x in r.extack)
                self.stats["errors_with_msg" if has else "errors_without_msg"] += 1
        return reqs

    def one(self, data):
        """Send one message; its Req (None on an anomaly)."""
        reqs = self.send(data)
        return reqs[0] if reqs else None

    def result(self):
        return {"name": self.name, "stats": dict(self.stats),
                "by_cmd": dict(self.by_cmd), "by_err": dict(self.by_err),
                "ms": dict(self.ms),
                "anomalies": self.anomalies, "lost": self.lost}

    def run(self):
        self.new_conn()
        try:
            self.loop()
        finally:
            if self.conn:
                self.conn.close()

    def attrs_of(self, r, i=0):
        return r.msgs[i][1][1] if r and len(r.msgs) > i else {}


class StructWorker(Worker):
    def loop(self):
        while self.alive():
            data, _ = self.gen.structured()
            data = self.gen.fixup(data)
            if data is not None:
                self.send(data)
            if self.rng.random() < 0.01:
                self.new_conn()


class MutateWorker(Worker):
    def loop(self):
        g = self.gen
        while self.alive():
            msgs = []
            for _ in range(self.rng.choice([1, 1, 1, 1, 2, 3])):
                m = g.valid(self.rng.choice(list(SPEC)))
                if self.rng.random() < 0.9:
                    m = g.mutate(m)
                msgs.append(m)
            # several messages in one datagram: each aligned, as netlink wants
            data = b"".join(m + b"\0" * (align4(len(m)) - len(m))
                            if self.rng.random() < 0.9 else m for m in msgs)
            data = g.fixup(data)
            if data is not None:
                self.send(data)
            if self.rng.random() < 0.01:
                self.new_conn()


def save_image(w, name, conn=None, first=None):
    """SAVE a filter fully: (header, table) or None; header is a list of
    the stages' headers when it has several.  first: a dict to receive
    the first message's attributes (the filter's description)."""
    r = w.one(genl(w.ctx.fid, C["SAVE"], F_REQUEST | F_ACK | F_DUMP, 0,
                   nlattr(A["NAME"], name.encode() + b"\0")))
    if not r or r.outcome() != 0 or r.intr or not r.msgs:
        return None
    a0 = w.attrs_of(r)
    if first is not None:
        first.update(a0)
    table = b"".join(w.attrs_of(r, i)[A["CHUNK_DATA"]][0]
                     for i in range(1, len(r.msgs)))
    hdrs = a0[A["IMAGE_HEADER"]]
    return (hdrs[0] if len(hdrs) == 1 else list(hdrs)), table


def load_msgs(fid, name, hdr, table, family=3, chunk=None, rng=None,
              extra=b""):
    """LOAD_BEGIN, LOAD_CHUNKs, LOAD_END for an image (hdr: one header,
    or a list of them, one per stage)."""
    nm = nlattr(A["NAME"], name.encode() + b"\0")
    hdrs = hdr if isinstance(hdr, list) else [hdr]
    out = [genl(fid, C["LOAD_BEGIN"], F_REQUEST | F_ACK, 0,
                nm + b"".join(nlattr(A["IMAGE_HEADER"], h) for h in hdrs) +
                nlattr(A["FAMILY"], bytes([family])) + extra)]
    off = 0
    while off < len(table):
        n = chunk or (rng.choice([8, 64, 512, 4096, CHUNK_MAX]) if rng else CHUNK_MAX)
        n = min(n, len(table) - off)
        out.append(genl(fid, C["LOAD_CHUNK"], F_REQUEST | F_ACK, 0,
                        nm + nlattr(A["CHUNK_OFFSET"], struct.pack("=Q", off)) +
                        nlattr(A["CHUNK_DATA"], table[off:off + n])))
        off += n
    out.append(genl(fid, C["LOAD_END"], F_REQUEST | F_ACK, 0, nm))
    return out


class ChurnWorker(Worker):
    """Keeps the pool's filters coming and going, and uses them properly."""

    TRAFFIC = (17, b"\x7f\0\0\1", 40000, b"\x7f\0\0\1", 40001)

    def loop(self):
        g, rng, fid = self.gen, self.rng, self.ctx.fid
        ceiling = self.ctx.ceiling_path if self.ctx.toggle_ceiling else None
        orig = open(ceiling).read().strip() if ceiling else None
        try:
            while self.alive():
                self.step(g, rng, fid, ceiling, orig)
        finally:
            if ceiling:
                with open(ceiling, "w") as f:
                    f.write(orig)

    def step(self, g, rng, fid, ceiling, orig):
        name = rng.choice(self.ctx.pool)
        nm = nlattr(A["NAME"], name.encode() + b"\0")
        k = rng.randrange(12)
        if k <= 2:
            self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0, nm))
            fam = rng.choice([1, 2, 3])
            cap = rng.choice([16, 64, 1000, 5000, 100000, 1 << 21])
            extra = b"".join([
                nlattr(A["HOOK"], bytes([rng.randrange(6)])),
                nlattr(A["ACTION"], bytes([rng.randrange(3)])),
                nlattr(A["ENABLED"], bytes([rng.random() < 0.7])),
                nlattr(A["CAPACITY"], struct.pack("=Q", cap)),
                nlattr(A["BUCKET_SIZE"], bytes([rng.choice([2, 4, 8])])),
                nlattr(A["FP_BITS"], bytes([rng.choice([6, 8, 12, 16, 32])])),
                nlattr(A["ENCODING"], bytes([rng.random() < 0.5])),
            ][:rng.randrange(8)])
            r = self.one(genl(fid, C["NEW"], F_REQUEST | F_ACK, 0, nm +
                              nlattr(A["FAMILY"], bytes([fam])) + extra))
            if r and r.outcome() == 0:
                self.stats["created"] += 1
                e = nest(A["ENTRY"], [
                    nlattr(E["FAMILY"], b"\1"), nlattr(E["SRC"], self.TRAFFIC[1]),
                    nlattr(E["DST"], self.TRAFFIC[3]),
                    nlattr(E["SPORT"], struct.pack(">H", 40000)),
                    nlattr(E["DPORT"], struct.pack(">H", 40001)),
                    nlattr(E["PROTO"], b"\x11")])
                self.one(genl(fid, C["ADD_ENTRIES"], F_REQUEST | F_ACK, 0,
                              nm + e))
        elif k == 3:
            self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0, nm))
        elif k == 4:
            n = rng.choice([1, 10, 100, 1000, 4096])
            body = g.raw_entries(n) if rng.random() < 0.5 else \
                g.packed_entries(n)
            self.one(genl(fid, C[rng.choice(BATCH_CMDS)], F_REQUEST | F_ACK,
                          0, nm + body))
        elif k == 5:
            self.one(genl(fid, C["SET"], F_REQUEST | F_ACK, 0, nm +
                          nlattr(A["ENABLED"], bytes([rng.random() < 0.5])) +
                          nlattr(A["ACTION"], bytes([rng.randrange(3)]))))
        elif k == 6:
            self.one(genl(fid, C["FLUSH"], F_REQUEST | F_ACK, 0, nm))
        elif k == 7:   # save one pool filter, restore it under another name
            img = save_image(self, name)
            if img:
                self.stats["saved"] += 1
                if len(self.ctx.images) < 8:
                    self.ctx.images.append(img)
                other = rng.choice(self.ctx.pool)
                self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0,
                              nlattr(A["NAME"], other.encode() + b"\0")))
                msgs = load_msgs(fid, other, img[0], img[1], rng=rng)
                if rng.random() < 0.3:   # abandoned half-way
                    msgs = msgs[:rng.randrange(1, len(msgs))]
                for m in msgs:
                    r = self.one(m)
                    if not r or r.outcome():
                        break
                else:
                    if len(msgs) > 2:
                        self.stats["restored"] += 1
                if rng.random() < 0.3:
                    self.new_conn()   # closing drops an unfinished load
        elif k == 8:   # garbage collection: destroy every stray filter
            r = self.one(genl(fid, C["GET"], F_REQUEST | F_ACK | F_DUMP, 0))
            for i in range(len(r.msgs) if r else 0):
                n = self.attrs_of(r, i)[A["NAME"]][0]
                if n[:-1].decode() in self.ctx.protect:
                    continue
                self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0,
                              nlattr(A["NAME"], n)))
        elif k == 9 and ceiling and rng.random() < 0.2:
            val = rng.choice([orig, "1", "4", orig])
            with open(ceiling, "w") as f:
                f.write(val)
            self.stats["ceiling_changes"] += 1
        else:
            self.one(genl(fid, C["GET"], F_REQUEST | F_ACK, 0, nm))


class DumpWorker(Worker):
    """Dumps read partly, abandoned, closed mid-way; a second one on a busy
    socket.  The interrupted ones only get loose checks (messages well-formed
    and for the right seq) since their end never comes."""

    def loop(self):
        rng, fid = self.rng, self.ctx.fid
        while self.alive():
            k = rng.randrange(5)
            if k == 0:   # a proper dump, fully read and checked
                self.one(genl(fid, C["GET"], F_REQUEST | F_ACK | F_DUMP, 0))
                continue
            name = rng.choice(self.ctx.pool)
            cmd = C["GET"] if rng.random() < 0.4 else C["SAVE"]
            req = genl(fid, cmd, F_REQUEST | F_ACK | F_DUMP, 0,
                       nlattr(A["NAME"], name.encode() + b"\0"))
            if k == 1:
                self.one(req)
                continue
            s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                              NETLINK_GENERIC)
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF,
                             rng.choice([0, 256, 1024, 4096]))
                s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
                s.bind((0, 0))
                self.note(req)
                s.send(req)
                self.stats["dumps_abandoned"] += 1
                if k == 3:   # a second dump while the first runs: EBUSY
                    s.send(genl(fid, C["GET"], F_REQUEST | F_ACK | F_DUMP, 77))
                    self.stats["dumps_second"] += 1
                for _ in range(rng.randrange(0, 4)):
                    r, _, _ = select.select([s], [], [], 0.5)
                    if not r:
                        break
                    d = s.recv(1 << 16)
                    for off, ln, mtype, flags, seq in frame(d):
                        if mtype not in (fid, NLMSG_DONE, NLMSG_ERROR):
                            self.anomaly("dump: message of type %d" % mtype, req)
                    self.stats["dump_parts_read"] += 1
                if k == 4:   # another command while the dump is pending
                    s.send(genl(fid, C["GET"], F_REQUEST | F_ACK, 78,
                                nlattr(A["NAME"], name.encode() + b"\0")))
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    self.anomaly("dump: %s" % e, req)
            finally:
                s.close()


class RaceWorker(Worker):
    """Two processes share one netlink socket (so one portid) and send at
    the same instant: the kernel runs both at once (parallel_ops)."""

    # (first, second) outcomes each order of the two can give
    ALLOWED = {
        "end_end": {("OK", "EINVAL"), ("EINVAL", "OK")},
        # one creates it, or none (the ceiling, which churn lowers, and
        # which churn's deletes may lift between the two)
        "begin_begin": {(a, b) for a in ("OK", "EEXIST", "EDQUOT", "ENOMEM")
                        for b in ("OK", "EEXIST", "EDQUOT", "ENOMEM")
                        if (a, b).count("OK") == 1 or
                        "OK" not in (a, b) and "EEXIST" not in (a, b)},
        "chunk_end": {("OK", "OK"), ("ENOENT", "ENODATA")},
        "del_end": {("OK", "OK"), ("OK", "ENOENT")},
        "end_set": {("OK", "OK"), ("OK", "EBUSY")},
        "end_get": {("OK", "OK")},
        "set_del": {("OK", "OK"), ("ENOENT", "OK")},
        "add_flush": {("OK", "OK")},
    }
    SCEN = ["end_end", "end_end", "end_end", "chunk_end", "chunk_end",
            "del_end", "del_end", "end_set", "set_del", "add_flush",
            "begin_begin", "end_get"]

    def loop(self):
        fid, rng = self.ctx.fid, self.rng
        # names of its own (each race worker): exact expectations
        names = [n for n in self.ctx.race_names
                 if n.startswith("RACE%s-" % self.name[4:])]
        src = names[-1]
        shm = mmap.mmap(-1, 1 << 20)
        helpers = []
        pipes = []
        sock = self.conn.s
        for i in range(2):
            rd, wr = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(wr)
                self.helper(i, rd, sock, shm)
                os._exit(0)
            os.close(rd)
            helpers.append(pid)
            pipes.append(wr)
        img = None
        self.lastsent = b""
        try:
            while self.alive():
                if img is None or rng.random() < 0.02:
                    self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0,
                                  nlattr(A["NAME"], src.encode() + b"\0")))
                    self.one(genl(fid, C["NEW"], F_REQUEST | F_ACK, 0,
                                  nlattr(A["NAME"], src.encode() + b"\0") +
                                  nlattr(A["FAMILY"], b"\3") +
                                  nlattr(A["CAPACITY"], struct.pack(
                                      # a big table: a long recount
                                      "=Q", rng.choice([8, 3000, 200000])))))
                    body = b"".join(self.gen.raw_entry(True) for _ in range(5))
                    self.one(genl(fid, C["ADD_ENTRIES"], F_REQUEST | F_ACK, 0,
                                  nlattr(A["NAME"], src.encode() + b"\0") + body))
                    img = save_image(self, src)
                    if img is None:
                        continue
                self.round(rng.choice(self.ctx.race_scen or self.SCEN),
                           rng.choice(names[:-1]), img, shm, pipes)
                if self.anomalies:
                    break   # helpers hold the old socket: one report is enough
        finally:
            for st in release_helpers(pipes, helpers, self.ctx.timeout):
                why = helper_trouble(st)
                if why:
                    self.anomaly("race helper " + why, self.lastsent)
            if not self.anomalies:
                self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0,
                              nlattr(A["NAME"], src.encode() + b"\0")))

    @staticmethod
    def helper(i, rd, sock, shm):
        """Wait for a round, say ready, spin until go, send our message.
        shm: [0] go, [2 + i] ready, [4096 + i * 512 KiB] length, message."""
        base = 4096 + i * (512 << 10)
        while True:
            c = os.read(rd, 1)
            if c != b"r":
                return
            ln, = struct.unpack_from("=I", shm, base)
            data = bytes(shm[base + 4:base + 4 + ln])
            shm[2 + i] = 1
            while shm[0] == 0:
                pass
            try:
                sock.send(data)
            except OSError:
                pass   # its answer, or none, tells

    @staticmethod
    def fire(shm, pipes, da, db):
        """Have the two helpers send da and db at the same instant: both
        are spinning when go is set (a fixed sleep is not enough under
        emulation on a loaded host)."""
        shm[0] = shm[2] = shm[3] = 0
        for i, d in enumerate((da, db)):
            base = 4096 + i * (512 << 10)
            struct.pack_into("=I", shm, base, len(d))
            shm[base + 4:base + 4 + len(d)] = d
        for wr in pipes:
            os.write(wr, b"r")
        end = time.monotonic() + 30
        while not (shm[2] and shm[3]) and time.monotonic() < end:
            time.sleep(0.0002)
        shm[0] = 1

    def pair(self, scen, name, img, last=None):
        fid = self.ctx.fid
        nm = nlattr(A["NAME"], name.encode() + b"\0")
        end = genl(fid, C["LOAD_END"], F_REQUEST | F_ACK, 0, nm)
        st = genl(fid, C["SET"], F_REQUEST | F_ACK, 0, nm +
                  nlattr(A["ENABLED"], bytes([self.rng.random() < 0.5])))
        dl = genl(fid, C["DEL"], F_REQUEST | F_ACK, 0, nm)
        if scen == "end_end":
            return end, end
        if scen == "chunk_end":   # the load's last chunk, and its end
            return last, end
        if scen == "del_end":
            return dl, end
        if scen == "end_set":
            return end, st
        if scen == "end_get":
            return end, genl(fid, C["GET"], F_REQUEST | F_ACK, 0, nm)
        if scen == "set_del":
            return st, dl
        if scen == "add_flush":
            body = b"".join(self.gen.raw_entry(True) for _ in range(50))
            return (genl(fid, C["ADD_ENTRIES"], F_REQUEST | F_ACK, 0, nm + body),
                    genl(fid, C["FLUSH"], F_REQUEST | F_ACK, 0, nm))
        begin = load_msgs(fid, name, img[0], img[1])[0]
        return begin, begin

    def round(self, scen, name, img, shm, pipes):
        """Set up, fire the pair, check the answers and the aftermath."""
        fid = self.ctx.fid
        nm = nlattr(A["NAME"], name.encode() + b"\0")
        self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0, nm))
        if scen in ("set_del", "add_flush"):
            r = self.one(genl(fid, C["NEW"], F_REQUEST | F_ACK, 0, nm +
                              nlattr(A["FAMILY"], b"\3") +
                              nlattr(A["CAPACITY"], struct.pack("=Q", 1000))))
            if not r or r.outcome():
                return   # the ceiling, lowered by churn
        last = None
        if scen not in ("begin_begin", "set_del", "add_flush"):
            msgs = load_msgs(fid, name, img[0], img[1], rng=self.rng)
            last = msgs[-2]   # LOAD_BEGIN, at least one chunk, LOAD_END
            for m in msgs[:-2 if scen == "chunk_end" else -1]:
                r = self.one(m)
                if not r or r.outcome():
                    return
        a, b = self.pair(scen, name, img, last)
        conn = self.conn
        da, ra = conn.prepare(a)
        db, rb = conn.prepare(b)
        self.note(da + db)
        self.lastsent = da + db
        self.fire(shm, pipes, da, db)
        reqs = {ra[0].seq: ra[0], rb[0].seq: rb[0]}
        deadline = time.monotonic() + self.ctx.timeout
        try:
            while any(not r.acks for r in reqs.values()):
                for mtype, flags, seq, m in conn.recv_msgs(deadline):
                    r = reqs.get(seq)
                    if r is None:
                        raise Anomaly("race: reply for seq %d never sent" % seq)
                    conn.take(r, mtype, flags, m)
            for r in reqs.values():
                check_req(r)
        except Anomaly as e:
            self.anomaly("race %s: %s" % (scen, e), da + db)
            self.new_conn()
            return
        self.stats["race_rounds"] += 1
        self.by_cmd["race:" + scen] += 1
        oa, ob = ra[0].outcome(), rb[0].outcome()
        self.by_err["race:%s:%s" % (errname(oa), errname(ob))] += 1
        if (errname(oa), errname(ob)) not in self.ALLOWED[scen]:
            self.anomaly("race %s: outcomes %s and %s, want one of %s"
                         % (scen, errname(oa), errname(ob),
                            sorted(self.ALLOWED[scen])), da + db)
        # whatever happened, the name is used once at most, and goes once
        r = self.one(genl(fid, C["GET"], F_REQUEST | F_ACK | F_DUMP, 0))
        if r:
            names = [self.attrs_of(r, i)[A["NAME"]][0] for i in range(len(r.msgs))]
            if len(names) != len(set(names)):
                self.anomaly("race %s: a name listed twice: %s" % (scen, names),
                             da + db)
        r1 = self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0, nm))
        r2 = self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0, nm))
        if r1 and r2 and r2.outcome() != -errno.ENOENT:
            self.anomaly("race %s: a second DEL answered %s" %
                         (scen, errname(r2.outcome())), da + db)


def parse_flow(line):
    """A cfctl entry line 'PROTO SRC:PORT DST:PORT' -> entry attrs list."""
    proto, s, d = line.split()
    pnum = {"tcp": 6, "udp": 17, "icmp": 1, "sctp": 132}.get(proto)
    if pnum is None:
        pnum = int(proto)

    def ep(x):
        if x.startswith("["):
            a, p = x[1:].split("]:")
            return 2, socket.inet_pton(socket.AF_INET6, a), int(p)
        a, p = x.rsplit(":", 1)
        return 1, socket.inet_pton(socket.AF_INET, a), int(p)
    f1, sa, sp = ep(s)
    f2, da, dp = ep(d)
    assert f1 == f2
    return [("FAMILY", f1), ("SRC", sa), ("DST", da), ("SPORT", sp),
            ("DPORT", dp), ("PROTO", pnum)]


ENTRY_TYPE = {n: t for n, _, t in ENTRY_ATTRS}


def entry_bytes(items):
    ty = ENTRY_TYPE
    return nest(A["ENTRY"], [nlattr(E[k], v if ty[k] == "bin" else
                                    struct.pack(FMT[ty[k]], v))
                             for k, v in items])


def record_bytes(e, pad=None):
    """A valid entry (every field given) as a packed record; pad: the three
    bytes after the protocol, to spoil them (default: the entry's prefix
    lengths, then a zero pad byte)."""
    d = dict(e)
    if pad is None:
        pad = bytes([d.get("SRC_PLEN", 0), d.get("DST_PLEN", 0), 0])
    return PACKED[PACKED_OF[d["FAMILY"]]][1].pack(
        d["SRC"], d["DST"], d["SPORT"], d["DPORT"], d["PROTO"], pad)


# Prefixes: enum nf_cuckoo_key_field's address bits, and struct
# nf_cuckoo_prefix_count (family, source and destination lengths, pad, count)
KEY_SRC_ADDR, KEY_DST_ADDR, KEY_ALL = 0x1, 0x2, 0x1f
PREFIX_COUNT = struct.Struct("=BBBBI")


def addr_bits(fam):
    return 32 if fam == 1 else 128


def masked(addr, plen):
    """addr (bytes, network order) with the bits past plen cleared; plen 0
    keeps it whole."""
    if not plen:
        return addr
    host = 8 * len(addr) - plen
    return (int.from_bytes(addr, "big") >> host << host).to_bytes(len(addr),
                                                                 "big")


def entry_combo(e):
    """(family, source length, destination length) of a valid entry, a
    length 0 for a single address (given as 0, as the full length, or not
    at all)."""
    d = dict(e)
    bits = addr_bits(d["FAMILY"])
    s, t = d.get("SRC_PLEN", 0), d.get("DST_PLEN", 0)
    return d["FAMILY"], 0 if s == bits else s, 0 if t == bits else t


def is_prefix(e):
    return entry_combo(e)[1:] != (0, 0)


def prefix_counts(entries):
    """What a filter holding entries (valid ones, a multiset) reports in
    PREFIXES: {(family, src_plen, dst_plen): count}, full addresses not."""
    c = collections.Counter(entry_combo(e) for e in entries)
    return {k: n for k, n in c.items() if k[1] or k[2]}


def parse_prefixes(a):
    """A GET or SAVE reply's PREFIXES as {(family, s, d): count}, or a
    string saying what is wrong with it: at most one attribute, none when
    empty, whole records of a family, a combination other than full
    addresses (lengths below the address's), pad 0, count >= 1, none
    twice, at most PREFIXES_MAX per family."""
    ps = a.get(A["PREFIXES"], [])
    if not ps:
        return {}
    if len(ps) > 1 or not ps[0] or len(ps[0]) % PREFIX_COUNT.size:
        return "%d PREFIXES of %s bytes" % (len(ps), [len(p) for p in ps])
    out = {}
    for fam, s, d, pad, n in PREFIX_COUNT.iter_unpack(ps[0]):
        if fam not in (1, 2) or pad or not n or not (s or d) or \
                max(s, d) >= addr_bits(fam) or (fam, s, d) in out:
            return "record (%d, %d, %d, pad %d, count %d)" % (fam, s, d,
                                                              pad, n)
        out[(fam, s, d)] = n
    if any(sum(1 for k in out if k[0] == f) > PREFIXES_MAX for f in (1, 2)):
        return "more than %d combinations of a family" % PREFIXES_MAX
    return out


def overflow_at(counts, entries):
    """Where an ADD of entries, in message order, into a filter whose
    PREFIXES are counts fails for one combination too many of a family
    (None: it does not)."""
    used = {f: {(s, d) for ff, s, d in counts if ff == f} for f in (1, 2)}
    for i, e in enumerate(entries):
        f, s, d = entry_combo(e)
        if (s or d) and (s, d) not in used[f]:
            if len(used[f]) == PREFIXES_MAX:
                return i
            used[f].add((s, d))
    return None


def batch_body(rng, entries, pads=None):
    """Valid entries (FAMILY first) in message order, each a nest or, in
    runs of one family, a record of a packed attribute; the share of nests
    is drawn per message.  pads: {index: padding} of records to spoil
    (those entries are packed whatever the draw)."""
    pads = pads or {}
    nests = rng.choice([0, 0.2, 0.8, 1])
    out, i = [], 0
    while i < len(entries):
        if i not in pads and rng.random() < nests:
            out.append(entry_bytes(entries[i]))
            i += 1
            continue
        fam = entries[i][0][1]
        name = PACKED_OF[fam]
        most = min(rng.choice([1, 3, 50, BATCH_MAX]),
                   PACKED_BYTES // PACKED[name][1].size)
        recs = []
        while i < len(entries) and len(recs) < most and \
                entries[i][0][1] == fam:
            recs.append(record_bytes(entries[i], pads.get(i)))
            i += 1
        out.append(nlattr(A[name], b"".join(recs)))
    return b"".join(out)


def packed_attrs(entries):
    """Valid entries as a packed attribute per family, for pyroute2 (in
    an order of their own)."""
    out = []
    for fam, name in sorted(PACKED_OF.items()):
        recs = [record_bytes(e) for e in entries if e[0][1] == fam]
        if recs:
            out.append((name, b"".join(recs)))
    return out


def batch_fail(r):
    """(BATCH_FAIL_INDEX, BATCH_FAIL_REASON) of a batch's reply, or None."""
    a = r.msgs[0][1][1] if r and r.msgs else {}
    if A["BATCH_FAIL_INDEX"] not in a:
        return None
    return tuple(u(a[A[k]][0], 4) for k in ("BATCH_FAIL_INDEX",
                                             "BATCH_FAIL_REASON"))


class Events:
    """A socket in the family's events group, of the network namespace it
    was made in; every event read is checked, and its number must follow
    the last one's unless ENOBUFS said events were lost."""

    def __init__(self, fid, group):
        self.fid = fid
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        try:
            self.s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
        except OSError:
            pass
        self.s.bind((0, 0))
        self.s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group)
        self.last = None
        self.overrun = False    # ENOBUFS, not yet seen as a gap
        self.lost_some = False  # ENOBUFS since the caller last cleared it

    def close(self):
        self.s.close()

    def read(self):
        """The events queued now: [(event, filter name, count or stage)]."""
        out = []
        while True:
            try:
                data = self.s.recv(1 << 16, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return out
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                self.overrun = self.lost_some = True
                continue
            for off, ln, mtype, _, seq in frame(data):
                out.append(self.check(data[off:off + ln], mtype, seq))

    def check(self, m, mtype, seq):
        if mtype != self.fid or len(m) < 20 or m[16] != C["EVENT"]:
            raise Anomaly("events group: a message of type %d, cmd %s" %
                          (mtype, m[16:17].hex()))
        if self.last is not None and seq != (self.last + 1) & 0xffffffff:
            if not self.overrun:
                raise Anomaly("event number %d after %d, without ENOBUFS" %
                              (seq, self.last))
            self.overrun = False
        self.last = seq
        _, a = parse_reply(m)
        ev = EV_NAME.get(u(a[A["EVENT"]][0], 1)) if A["EVENT"] in a else None
        if ev is None or len(a.get(A["NAME"], [])) != 1:
            raise Anomaly("event without a known EVENT or a NAME: %s" %
                          m[:128].hex())
        bad = [k for k in EV_NEVER if A[k] in a]
        if bad:
            raise Anomaly("event %s carries %s" % (ev, ", ".join(bad)))
        name = a[A["NAME"]][0].rstrip(b"\0").decode("ascii", "replace")
        extra = None
        if ev in EV_DESCRIBED:
            check_filter_desc(a, stats=False)
        elif ev in ("ADD", "DEL_ENTRIES"):
            extra = u(a[A["EVENT_COUNT"]][0], 4) if A["EVENT_COUNT"] in a else 0
            if not extra:
                raise Anomaly("event %s without a count > 0" % ev)
        elif ev == "SWAP":
            if len(a.get(A["NAME2"], [])) != 1:
                raise Anomaly("event SWAP without one NAME2")
        elif ev in ("STAGE", "LOAD_HIGH"):
            if A["STAGE_INDEX"] not in a or len(a.get(A["STAGE"], [])) != 1:
                raise Anomaly("event %s without STAGE_INDEX and a STAGE" % ev)
            st, left = walk_attrs(a[A["STAGE"]][0])
            if left or not st:
                raise Anomaly("event %s: malformed STAGE" % ev)
            extra = u(a[A["STAGE_INDEX"]][0], 1)
        return (ev, name, extra)


def req_name(r):
    """The NAME a request gives, or None."""
    attrs, _ = walk_attrs(r.data, 20)
    for t, o, ln in attrs:
        if t & NLA_TYPE_MASK == A["NAME"]:
            return r.data[o:o + ln].rstrip(b"\0").decode("ascii", "replace")
    return None


def req_u64(r, name, size=8):
    attrs, _ = walk_attrs(r.data, 20)
    for t, o, ln in attrs:
        if t & NLA_TYPE_MASK == A[name] and ln == size:
            return int.from_bytes(r.data[o:o + size], sys.byteorder)
    return None


class ModelWorker(Worker):
    """Private filters with exact expectations, and the events of them:
    the worker listens to the events group, predicts from each of its
    requests and the answer what events it must cause, and compares at the
    end of every round; a listener in a new network namespace, where
    nothing changes, must receive nothing."""

    PROBES = ["padding", "family", "absent", "length", "too_many", "nowhere",
              "prefix_length"]

    def send(self, data, conn=None):
        reqs = super().send(data, conn)
        for r in reqs or []:
            self.predict(r)
        return reqs

    def predict(self, r):
        """The events request r must cause, appended to self.want; each
        filter's items and capacity kept, for LOAD_HIGH."""
        name = req_name(r) if r.ours and r.cmd in SPEC else None
        if name not in self.ctx.model_names:
            return
        o = r.outcome()
        st = self.evst.setdefault(name, {"items": 0, "cap": None,
                                         "loading": False})
        if r.cmd == "NEW" and o == 0:
            self.want.append(("NEW", name, None))
            self.evst[name] = {"items": 0, "cap": req_u64(r, "CAPACITY"),
                               "loading": False, "stages": 1,
                               "grow": req_u64(r, "GROW", 1) != 0}
        elif r.cmd == "DEL" and o == 0:
            if not st["loading"]:
                self.want.append(("DEL", name, None))
            del self.evst[name]
        elif r.cmd in ("SET", "FLUSH") and o == 0:
            self.want.append((r.cmd, name, None))
            if r.cmd == "FLUSH":
                st["items"] = 0
                if st.get("grow"):
                    self.resync(name, st)
        elif r.cmd == "LOAD_BEGIN" and o == 0:
            self.evst[name] = {"items": None, "cap": None, "loading": True}
        elif r.cmd == "LOAD_END" and o == 0:
            self.want.append(("RESTORE", name, None))
            st["loading"] = False
        elif r.cmd in ("ADD_ENTRIES", "DEL_ENTRIES") and r.msgs:
            a = self.attrs_of(r)
            done = u(a[A["BATCH_DONE"]][0], 4)
            why = batch_fail(r)
            add = r.cmd == "ADD_ENTRIES"
            if st.get("grow"):
                self.predict_grown(name, st, add, done, why)
                return
            if done:
                self.want.append(("ADD" if add else "DEL_ENTRIES", name, done))
            if add and why and why[1] in (WHY_FULL, WHY_QUOTA):
                self.want.append(("FULL", name, None))
            if st["items"] is None:
                return
            before, st["items"] = st["items"], st["items"] + (done if add
                                                              else -done)
            mark = (st["cap"] or 0) * LOAD_HIGH_PPM
            if add and st["cap"] and before * 1000000 < mark <= \
                    st["items"] * 1000000:
                self.want.append(("LOAD_HIGH", name, 0))

    def resync(self, name, st):
        """A growing filter's stages and its newest stage's items and
        capacity, from GET (whose answer causes no event)."""
        r = self.request("GET", name)
        sg = self.attrs_of(r).get(A["STAGE"], []) if r and \
            r.outcome() == 0 else []
        if not sg:
            st["items"] = None   # unknown: no LOAD_HIGH predicted
            return
        vals = {t & NLA_TYPE_MASK: sg[-1][o:o + ln]
                for t, o, ln in walk_attrs(sg[-1])[0]}
        st.update(stages=len(sg), items=u(vals[ST["ITEMS"]], 8),
                  cap=u(vals[ST["CAPACITY"]], 8))

    def predict_grown(self, name, st, add, done, why):
        """A batch of a filter that may grow: STAGE for each stage it made,
        then ADD or DEL_ENTRIES, FULL, and LOAD_HIGH of the newest stage
        (whose items were 0 before the batch if the batch made it)."""
        stages, before = st.get("stages", 1), st["items"]
        self.resync(name, st)
        for k in range(stages, st.get("stages", stages) if add else stages):
            self.want.append(("STAGE", name, k))
        if done:
            self.want.append(("ADD" if add else "DEL_ENTRIES", name, done))
        if add and why and why[1] in (WHY_FULL, WHY_QUOTA):
            self.want.append(("FULL", name, None))
        if st["items"] is None or before is None:
            return
        if st["stages"] != stages:
            before = 0
        mark = st["cap"] * LOAD_HIGH_PPM
        if add and before * 1000000 < mark <= st["items"] * 1000000:
            self.want.append(("LOAD_HIGH", name, st["stages"] - 1))

    def check_events(self):
        """What the events group said of the model's filters since the
        last check is exactly what its requests must have caused."""
        try:
            got = self.ev.read()
            self.stats["events_read"] += len(got)
            got = [e for e in got if e[1] in self.ctx.model_names]
            elsewhere = self.elsewhere.read()
        except Anomaly as e:
            self.anomaly("events: %s" % e, b"")
            got, elsewhere = None, []
        if elsewhere:
            self.anomaly("events: a listener in another network namespace "
                         "received %s" % elsewhere[:5], b"")
        if self.ev.lost_some:   # ENOBUFS: cannot tell which were lost
            self.stats["model_events_unchecked"] += len(self.want)
            self.ev.lost_some = False
        elif got is not None:
            self.expect(got == self.want, "events %s, want %s" %
                        (got[:20], self.want[:20]))
            self.stats["model_events"] += len(got)
        self.want = []

    def events_elsewhere(self):
        """An events socket in a new network namespace, where nothing but
        this changes: a filter made and destroyed there, whose events it
        must see (it listens), and then nothing more."""
        fid = self.ctx.fid
        libc = ctypes.CDLL(None, use_errno=True)
        own = os.open("/proc/self/ns/net", os.O_RDONLY)
        try:
            if libc.unshare(CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
            ev = Events(fid, self.ctx.group)
            c = Conn(fid, self.ctx.timeout)
            nm = nlattr(A["NAME"], b"EVPROBE\0")
            for m in (genl(fid, C["NEW"], F_REQUEST | F_ACK, 0,
                           nm + nlattr(A["FAMILY"], b"\1")),
                      genl(fid, C["DEL"], F_REQUEST | F_ACK, 0, nm)):
                self.expect(c.transact(m)[0].outcome() == 0,
                            "NEW or DEL in a new namespace failed")
            c.close()
            got = ev.read()
            self.expect(got == [("NEW", "EVPROBE", None),
                                ("DEL", "EVPROBE", None)],
                        "a listener in a new namespace saw %s of its NEW and "
                        "DEL" % got)
        finally:
            if libc.setns(own, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "setns back")
            os.close(own)
        return ev

    def fill(self, name, cap, fams):
        """Add until the filter is full: ADD events, one LOAD_HIGH at 90%
        of its capacity, and FULL for the batch refused.  A filter that
        grows may meet a ceiling instead (EDQUOT: churn lowers the
        namespace's), as model_add() allows."""
        n = 0
        grow = self.evst.get(name, {}).get("grow")
        while self.alive() and n < 4 * cap + 100:
            k = self.rng.choice([1, 7, 50, max(1, cap // 10)])
            r = self.batch("ADD_ENTRIES", name, self.flows(k, fams))
            if not r or r.outcome() == -errno.ENOSPC:
                self.stats["model_fills"] += bool(r)
                return
            if grow and r.outcome() == -errno.EDQUOT:
                self.stats["model_fills_EDQUOT"] += 1
                return
            if not self.expect(r.outcome() == 0, "fill: ADD answered %s" %
                               errname(r.outcome())):
                return
            n += k

    def request(self, cmd, name, body=b""):
        return self.one(genl(self.ctx.fid, C[cmd], F_REQUEST | F_ACK, 0,
                             nlattr(A["NAME"], name.encode() + b"\0") + body))

    def batch(self, cmd, name, entries, flags=None, pads=None):
        """entries, nested and packed at random (see batch_body())."""
        body = batch_body(self.rng, entries, pads)
        if flags is not None:
            body += nlattr(A["BATCH_FLAGS"], struct.pack("=I", flags))
        return self.request(cmd, name, body)

    def flows(self, n, fams):
        """n valid entries of the families fams, in runs of one family (a
        packed attribute holds one); a share of them prefixes of the
        round's combinations of lengths."""
        rng = self.rng
        out = []
        while len(out) < n:
            fam = rng.choice(fams)
            run = min(n - len(out), rng.choice([1, 5, 50, 1000]))
            cs = self.combos.get(fam)
            for _ in range(run):
                if cs and rng.random() < self.pshare:
                    out.append(self.prefix_entry(fam, *rng.choice(cs)))
                else:
                    out.append(self.plain_entry(fam))
        return out

    def plain_entry(self, fam):
        """An entry of full addresses: the small set of flows the other
        workers use, or random addresses when the key lacks one (so that
        its entries do not pile up on a few keys); now and then a prefix
        length that means a single address (0, the full length) given."""
        rng = self.rng
        e = self.gen.entry(True, fam)
        bits = addr_bits(fam)
        if self.wide:
            e = [(k, rng.getrandbits(bits).to_bytes(bits // 8, "big")
                  if k in ("SRC", "DST") else v) for k, v in e]
        if rng.random() < 0.05:
            e.append((rng.choice(["SRC_PLEN", "DST_PLEN"]),
                      rng.choice([0, bits])))
        return e

    def prefix_entry(self, fam, s, d):
        """A valid entry of the combination of lengths (s, d), 0 a single
        address (said so, as 0 or the full length, now and then): random
        addresses masked to them and random ports, so that entries of a
        short prefix rarely coincide."""
        rng = self.rng
        bits = addr_bits(fam)
        e = [("FAMILY", fam)] + [
            (k, masked(rng.getrandbits(bits).to_bytes(bits // 8, "big"), p))
            for k, p in (("SRC", s), ("DST", d))]
        e += [("SPORT", rng.randrange(65536)), ("DPORT", rng.randrange(65536)),
              ("PROTO", rng.choice([6, 17, 1, 58, 132]))]
        for k, p in (("SRC_PLEN", s), ("DST_PLEN", d)):
            if p or rng.random() < 0.2:
                e.append((k, p or rng.choice([0, bits])))
        return e

    def instance(self, e):
        """A full-address entry inside the prefix entry e: its addresses
        with random bits past the lengths, its ports and protocol."""
        d = dict(e)
        bits = addr_bits(d["FAMILY"])
        out = []
        for k, v in e:
            if k in ("SRC_PLEN", "DST_PLEN"):
                continue
            p = d.get(k + "_PLEN", 0) if k in ("SRC", "DST") else 0
            if 0 < p < bits:
                v = (int.from_bytes(v, "big") |
                     self.rng.getrandbits(bits - p)).to_bytes(bits // 8, "big")
            out.append((k, v))
        return out

    def allowed(self, fam):
        """The prefix lengths the round's key takes on an entry's source
        and on its destination (none on a field it lacks, none at all if
        bidirectional)."""
        fields, bidir = self.key
        bits = addr_bits(fam)
        return [range(1, bits) if fields & f and not bidir else range(0)
                for f in (KEY_SRC_ADDR, KEY_DST_ADDR)]

    def combos_possible(self, fam):
        src, dst = self.allowed(fam)
        return (len(src) + 1) * (len(dst) + 1) - 1

    def pick_combo(self, fam, used, lo=1):
        """A combination of lengths (s, d) the key takes, not in used, its
        lengths at least lo (or 0); None if there is none."""
        src, dst = ([0] + [p for p in r if p >= lo] for r in self.allowed(fam))
        for _ in range(100):
            c = (self.rng.choice(src), self.rng.choice(dst))
            if (c[0] or c[1]) and c not in used:
                return c
        free = [(a, b) for a in src for b in dst
                if (a or b) and (a, b) not in used]
        return self.rng.choice(free) if free else None

    def items(self, name, r=None):
        r = r or self.request("GET", name)
        if not r or r.outcome() != 0:
            return None
        st, _ = walk_attrs(self.attrs_of(r)[A["STATS"]][0])
        for t, o, ln in st:
            if t & NLA_TYPE_MASK == S["ITEMS"]:
                return u(self.attrs_of(r)[A["STATS"]][0][o:o + ln], 8)
        return None

    def expect_counts(self, name, keep, what):
        """One GET: the filter's items are len(keep), and its PREFIXES
        the combinations of keep's prefix entries, each with its count."""
        r = self.request("GET", name)
        if not self.expect(r and r.outcome() == 0, "GET %s: %s" % (
                what, errname(r.outcome()) if r else "-")):
            return
        self.expect(self.items(name, r) == len(keep), "items != %d %s" %
                    (len(keep), what))
        got, want = parse_prefixes(self.attrs_of(r)), prefix_counts(keep)
        self.expect(got == want, "PREFIXES %s: %s, want %s" % (
            what, sorted(got.items()) if isinstance(got, dict) else got,
            sorted(want.items())))
        self.stats["model_prefix_checks"] += 1
        self.stats["model_prefix_checks_held"] += bool(want)

    def expect_present(self, name, entries, what):
        """Every entry tests present, and for each prefix entry an address
        inside it, looked up as a packet's are: through the combinations
        of lengths the filter holds."""
        for i in range(0, len(entries), 1000):
            part = entries[i:i + 1000]
            inst = [self.instance(e) for e in part if is_prefix(e)]
            r = self.batch("TEST_ENTRIES", name, part + inst)
            if not r or r.outcome() != 0:
                self.anomaly("model %s: TEST answered %s" %
                             (what, errname(r.outcome()) if r else "nothing"),
                             b"")
                return
            bm = self.attrs_of(r)[A["TEST_BITMAP"]][0]
            miss = sum(1 for j in range(len(part))
                       if not bm[j // 8] >> (j % 8) & 1)
            imiss = sum(1 for j in range(len(part), len(part) + len(inst))
                        if not bm[j // 8] >> (j % 8) & 1)
            self.stats["model_prefix_inside"] += len(inst)
            if miss or imiss:
                self.lost += miss + imiss
                self.stats["lost_model"] += miss + imiss
                self.anomaly("model %s: %d of %d entries lost, %d of %d "
                             "addresses inside prefixes not found" %
                             (what, miss, len(part), imiss, len(inst)), b"")

    def expect(self, cond, what):
        if not cond:
            self.anomaly("model: " + what, b"")
        return cond

    def expect_fail(self, r, what, errs, at):
        """r failed with an errno of errs: at entry at, (index, reason), as
        its reply says, or (at None) as a whole, without a reply."""
        if r is None:
            return   # send() reported it
        fail = batch_fail(r)
        self.expect(-(r.outcome() or 0) in errs and fail == at and
                    bool(r.msgs) == (at is not None),
                    "%s: %s, failure %s, want %s, failure %s" % (
                        what, errname(r.outcome()), fail,
                        "/".join(errno.errorcode[e] for e in errs), at))

    def probe(self, name, keep, fams):
        """A message that fails, as a whole or at a known entry, exactly as
        the header says, and leaves the filter as it was.  The entries
        kept (a probe may delete some, as told)."""
        kind = self.rng.choice([k for k in self.PROBES
                                if k != "family" or len(fams) == 1])
        self.stats["model_probe_" + kind] += 1
        keep = getattr(self, "probe_" + kind)(name, keep, fams)
        self.expect_counts(name, keep, "after the %s probe" % kind)
        return keep

    def probe_family(self, name, keep, fams):
        """An entry of the family the filter does not hold, among others."""
        rng = self.rng
        ents = self.flows(rng.randrange(0, 300), fams)
        k = rng.randrange(len(ents) + 1)
        ents.insert(k, self.gen.entry(True, 3 - fams[0]))
        self.expect_fail(self.batch(rng.choice(BATCH_CMDS), name, ents),
                         "a family not held", {errno.EAFNOSUPPORT},
                         (k, WHY_FAMILY))
        return keep

    def probe_padding(self, name, keep, fams):
        """A record with padding set among valid entries (an add too:
        every entry is parsed before any is applied)."""
        rng = self.rng
        ents = self.flows(rng.randrange(1, 300), fams)
        k = rng.randrange(len(ents))
        pad = bytearray(3)
        pad[2] = rng.randrange(1, 256)   # [0], [1]: prefix lengths
        self.expect_fail(self.batch(rng.choice(BATCH_CMDS), name, ents,
                                    pads={k: bytes(pad)}),
                         "padding set", {errno.EINVAL}, (k, WHY_MALFORMED))
        return keep

    def probe_prefix_length(self, name, keep, fams):
        """A record whose source prefix length is past its address (33+
        for IPv4, 129+ for IPv6) among valid entries: -ERANGE there,
        whatever the filter's key, and nothing applied."""
        rng = self.rng
        ents = self.flows(rng.randrange(1, 300), fams)
        k = rng.randrange(len(ents))
        fam = dict(ents[k])["FAMILY"]
        plen = rng.randrange(33 if fam == 1 else 129, 256)
        self.expect_fail(self.batch(rng.choice(BATCH_CMDS), name, ents,
                                    pads={k: bytes([plen, 0, 0])}),
                         "prefix length %d" % plen, {errno.ERANGE},
                         (k, WHY_MALFORMED))
        return keep

    def probe_absent(self, name, keep, fams):
        """Present entries and one absent: TEST tells which; DEL fails at
        it and undoes the others, or with MISSING_OK skips it."""
        rng = self.rng
        pick = rng.sample(range(len(keep)),
                          rng.randrange(min(len(keep), 300) + 1))
        ents = [keep[j] for j in pick]
        k = rng.randrange(len(ents) + 1)
        ents.insert(k, [(f, os.urandom(len(v)) if f in ("SRC", "DST") else v)
                        for f, v in self.flows(1, fams)[0]
                        if f not in ("SRC_PLEN", "DST_PLEN")])
        r = self.batch("TEST_ENTRIES", name, ents)
        if not self.expect(r and r.outcome() == 0, "TEST of present entries "
                           "and an absent one"):
            return keep
        bm = self.attrs_of(r)[A["TEST_BITMAP"]][0]
        hits = [j for j in range(len(ents)) if bm[j // 8] >> (j % 8) & 1]
        if k in hits:   # a false positive: not absent enough to delete
            self.stats["model_false_positives"] += 1
            return keep
        self.expect(len(hits) == len(ents) - 1, "TEST bitmap: %d of %d present"
                    " entries set" % (len(hits), len(ents) - 1))
        return self.del_one_absent(name, keep, ents, k, pick,
                                   "an absent entry", "one absent")

    def del_one_absent(self, name, keep, ents, k, taken, what, rest):
        """DEL_ENTRIES of ents, the entries of keep at indexes taken and
        at k one that is absent (what): refused at k with ENOENT, or with
        MISSING_OK all deleted but it.  After growth an entry may be in
        two stages: AMBIGUOUS_OK skips it, without the flag it fails the
        batch (undone whole, too).  What keep holds after."""
        grown = self.stages(name) > 1
        if self.rng.random() < 0.5:
            self.expect_fail(self.batch("DEL_ENTRIES", name, ents,
                                        flags=4 if grown else None),
                             what, {errno.ENOENT}, (k, WHY_NOENT))
            return keep
        r = self.batch("DEL_ENTRIES", name, ents, flags=2)   # MISSING_OK
        if grown and r and r.outcome() == -errno.ENOTUNIQ:
            fail = batch_fail(r)
            self.expect(fail and fail[1] == WHY_AMBIGUOUS,
                        "an ambiguous entry: failure %s" % (fail,))
            return keep
        a = self.attrs_of(r)
        if not self.expect(r and r.outcome() == 0 and
                           u(a[A["BATCH_DONE"]][0], 4) == len(ents) - 1 and
                           u(a[A["BATCH_SKIPPED"]][0], 4) == 1,
                           "DEL with MISSING_OK of %d present and %s" %
                           (len(ents) - 1, rest)):
            return keep
        gone = set(taken)
        return [e for j, e in enumerate(keep) if j not in gone]

    def probe_length(self, name, keep, fams):
        """A packed attribute of no whole records, none, or over
        PACKED_BYTES among valid entries: refused as a whole."""
        rng = self.rng
        pname = rng.choice(list(PACKED))
        fam, rec = PACKED[pname]
        bad = rng.choice([b"", bytes(PACKED_BYTES + rng.randrange(1, 12)),
                          self.gen.records(fam, rng.randrange(4)) +
                          bytes(rng.randrange(1, rec.size))])
        ents = self.flows(rng.randrange(0, 100), fams)
        k = rng.randrange(len(ents) + 1)
        body = batch_body(rng, ents[:k]) + nlattr(A[pname], bad) + \
            batch_body(rng, ents[k:])
        self.expect_fail(self.request(rng.choice(BATCH_CMDS), name, body),
                         "%d bytes of %s" % (len(bad), pname),
                         {errno.EINVAL, errno.ERANGE}, None)
        return keep

    def probe_too_many(self, name, keep, fams):
        """More than BATCH_MAX entries, nests and records counted alike
        (even of a family not held): refused as a whole; a TEST of
        exactly BATCH_MAX is answered."""
        rng = self.rng
        over = rng.choice([0, 1, 1, 2, 1000])
        ents = self.flows(rng.randrange(0, 50), fams)
        parts = [batch_body(rng, ents), self.gen.packed_entries(
            BATCH_MAX + over - len(ents), (1, 2) if over else fams)]
        rng.shuffle(parts)
        cmd = rng.choice(BATCH_CMDS) if over else "TEST_ENTRIES"
        r = self.request(cmd, name, b"".join(parts))
        if over:
            self.expect_fail(r, "%d entries" % (BATCH_MAX + over),
                             {errno.E2BIG}, None)
        elif r:
            self.expect(r.outcome() == 0 and u(self.attrs_of(r)[
                A["BATCH_DONE"]][0], 4) == BATCH_MAX, "TEST of BATCH_MAX")
        return keep

    def probe_nowhere(self, name, keep, fams):
        """Valid packed entries on a command that takes none: refused by
        its policy, not carried out (a DEL or FLUSH would show)."""
        cmd = self.rng.choice(["DEL", "FLUSH", "GET", "SET"])
        r = self.request(cmd, name, self.gen.packed_entries(
            self.rng.randrange(1, 100)))
        self.expect_fail(r, "packed entries on %s" % cmd, {errno.EINVAL}, None)
        return keep

    # what the extended ack says of an entry's prefix refused (EINVAL)
    PREFIX_WHY = {"hostbits": "bits set past its prefix length",
                  "field": "the filter's key does not hold",
                  "bidir": "bidirectional filter holds no prefixes"}

    def probe_prefix(self, name, keep, fams):
        """A batch of prefixes the round's key refuses, a combination too
        many, or deletes of a combination holding no entry; then the
        filter's items and PREFIXES are what the model says."""
        kinds = ["bad", "unique"]
        if not self.key[1]:   # a bidirectional filter holds none
            kinds.append("unused")
            if any(self.combos_possible(f) > PREFIXES_MAX for f in fams):
                kinds.append("bound")
        kind = self.rng.choice(kinds)
        self.stats["model_probe_prefix_" + kind] += 1
        keep = getattr(self, "probe_prefix_" + kind)(name, keep, fams) \
            if kind != "unique" else self.probe_prefix_unique(keep)
        self.expect_counts(name, keep, "after the prefix %s probe" % kind)
        return keep

    def probe_prefix_bad(self, name, keep, fams):
        """Among valid entries, a prefix (a length below the address's) the
        filter refuses: on a field its key lacks, in a bidirectional
        filter, or with bits set past the length, in the order the module
        checks them (the length past the address first, the source before
        the destination): EINVAL there, whatever the command, and the
        extended ack says which."""
        rng = self.rng
        fields, bidir = self.key
        fam = rng.choice(fams)
        bits = addr_bits(fam)
        field = rng.choice(["SRC", "DST"])
        bit = KEY_SRC_ADDR if field == "SRC" else KEY_DST_ADDR
        kind = "bidir" if bidir else "hostbits" if fields & bit else "field"
        p = rng.randrange(1, bits)
        other = self.allowed(fam)[field == "SRC"]
        q = rng.choice(other) if other and rng.random() < 0.5 else 0
        e = self.prefix_entry(fam, *((p, q) if field == "SRC" else (q, p)))
        if kind == "hostbits" or rng.random() < 0.5:
            # set a bit past the length (the kind checked first wins)
            e = [(k, (int.from_bytes(v, "big") |
                      1 << rng.randrange(bits - p)).to_bytes(bits // 8, "big"))
                 if k == field else (k, v) for k, v in e]
        ents = self.flows(rng.randrange(0, 200), fams)
        k = rng.randrange(len(ents) + 1)
        ents.insert(k, e)
        cmd = rng.choice(BATCH_CMDS)
        r = self.batch(cmd, name, ents)
        what = "%s /%d on %s (%s, key %#x%s)" % (
            cmd, p, field, kind, fields, ", bidirectional" if bidir else "")
        self.expect_fail(r, what, {errno.EINVAL}, (k, WHY_MALFORMED))
        msgs = [x[NLMSGERR_ATTR_MSG] for x in (r.extack if r else [])
                if NLMSGERR_ATTR_MSG in x]
        if msgs:
            self.expect(self.PREFIX_WHY[kind].encode() in msgs[0],
                        "%s: the ext ack says %r" % (what, msgs[0]))
        self.stats["model_prefix_refused_" + kind] += 1
        return keep

    def probe_prefix_unique(self, keep):
        """In a filter of its own (the restore's name, free until the
        restore), nearly full and of 6-bit fingerprints, where about one
        lookup in ten is a false positive: a UNIQUE ADD of prefixes of
        combinations that hold no entry, every combination of both
        families.  The counts are exact, so such a prefix is not in the
        table, whatever a lookup says: each must be added, none skipped,
        and an address inside each must then match.  The model's own
        filter is untouched (keep)."""
        rng, fid = self.rng, self.ctx.fid
        name = self.ctx.model_names[2]
        cap = 500
        nm = nlattr(A["NAME"], name.encode() + b"\0")
        r = self.one(genl(fid, C["NEW"], F_REQUEST | F_ACK, 0, nm +
                          nlattr(A["FAMILY"], b"\3") +
                          nlattr(A["CAPACITY"], struct.pack("=Q", cap)) +
                          nlattr(A["FP_BITS"], b"\6") +
                          nlattr(A["GROW"], b"\0") +
                          nlattr(A["ENABLED"], b"\0")))
        if not r or r.outcome() != 0:
            self.stats["model_skipped_%s" % errname(r.outcome() if r
                                                    else 1)] += 1
            return keep
        held = [self.prefix_entry(rng.choice([1, 2]), 0, 0)
                for _ in range(cap - 2 * PREFIXES_MAX - 16)]
        r = self.batch("ADD_ENTRIES", name, held)
        if self.expect(r and r.outcome() == 0, "UNIQUE probe: ADD of %d "
                       "into capacity %d: %s" % (len(held), cap, errname(
                           r.outcome()) if r else "-")):
            pfx, key, self.key = [], self.key, (KEY_ALL, False)
            for f in (1, 2):   # the combinations of this filter's key
                used = set()
                for _ in range(PREFIXES_MAX):
                    used.add(self.pick_combo(f, used))
                pfx += [self.prefix_entry(f, *c) for c in used]
            self.key = key
            rng.shuffle(pfx)
            r = self.batch("ADD_ENTRIES", name, pfx, flags=1)   # UNIQUE
            fail = batch_fail(r)
            if fail and fail[1] in (WHY_FULL, WHY_QUOTA):
                self.stats["model_prefix_unique_full"] += 1
            elif r:
                a = self.attrs_of(r)
                skipped = u(a[A["BATCH_SKIPPED"]][0], 4) if a else None
                if self.expect(r.outcome() == 0 and skipped == 0,
                               "UNIQUE ADD of %d prefixes of combinations "
                               "holding no entry: %s, %s skipped" % (
                                   len(pfx), errname(r.outcome()),
                                   skipped)):
                    self.stats["model_prefix_unique_added"] += len(pfx)
                    self.expect_counts(name, held + pfx, "after a UNIQUE "
                                       "ADD of prefixes")
                    self.expect_present(name, pfx, "after a UNIQUE ADD of "
                                        "prefixes")
        r = self.request("DEL", name)
        self.expect(r and r.outcome() == 0, "DEL after the UNIQUE probe")
        return keep

    def probe_prefix_bound(self, name, keep, fams):
        """NF_CUCKOO_PREFIXES_MAX combinations of lengths of a family in
        use, and then an entry of one more: refused there (EOVERFLOW,
        E_PREFIXES) and its batch undone, combinations new in it too.
        The family's combinations are filled by a batch of their own,
        kept, or by the refused batch itself."""
        rng = self.rng
        fam = rng.choice([f for f in fams
                          if self.combos_possible(f) > PREFIXES_MAX])
        used = {(s, d) for f, s, d in prefix_counts(keep) if f == fam}
        new = []
        while len(used) + len(new) <= PREFIXES_MAX:
            new.append(self.pick_combo(fam, used | set(new)))
        fill = [self.prefix_entry(fam, *c) for c in new[:-1]
                for _ in range(rng.choice([1, 1, 2]))]
        if rng.random() < 0.5:
            ents = fill + self.flows(rng.randrange(0, 30), fams)
            rng.shuffle(ents)
            keep = self.bound_batch(name, keep, ents, "ADD of %d combinations"
                                    " of family %d" % (PREFIXES_MAX, fam))
            self.expect_counts(name, keep, "after an ADD of %d combinations"
                               % PREFIXES_MAX)
            fill = []
        ents = fill + self.flows(rng.randrange(0, 30), fams)
        rng.shuffle(ents)
        ents.insert(rng.randrange(len(ents) + 1),
                    self.prefix_entry(fam, *new[-1]))
        return self.bound_batch(name, keep, ents, "ADD of a combination past"
                                " %d of family %d" % (PREFIXES_MAX, fam))

    def bound_batch(self, name, keep, ents, what):
        """ADD ents: refused at the entry the model says makes a family's
        combinations one too many, else done whole; or full before that
        entry (the table's room, not the bound: the batch is undone all
        the same).  The entries kept."""
        at = overflow_at(prefix_counts(keep), ents)
        r = self.batch("ADD_ENTRIES", name, ents)
        if r is None:
            return keep
        fail = batch_fail(r)
        if fail and fail[1] in (WHY_FULL, WHY_QUOTA) and \
                (at is None or fail[0] < at):
            self.stats["model_prefix_bound_full"] += 1
            return keep
        if at is not None:
            self.expect_fail(r, what, {errno.EOVERFLOW}, (at, WHY_PREFIXES))
            self.stats["model_prefix_bound_refused"] += 1
            return keep
        if not self.expect(r.outcome() == 0, "%s: %s, failure %s" % (
                what, errname(r.outcome()), fail)):
            return keep
        keep = keep + ents
        if any(sum(1 for c in prefix_counts(keep) if c[0] == f) ==
               PREFIXES_MAX for f in (1, 2)):
            self.stats["model_prefix_bound_filled"] += 1
        return keep

    def probe_prefix_unused(self, name, keep, fams):
        """A DEL of a prefix whose combination holds no entry, among
        entries the model added: refused there (ENOENT) without asking
        the table, so exactly, whatever the table would say; with
        MISSING_OK skipped and the rest deleted.  The combination is one
        never used, or (one stage: no delete is ambiguous) one whose every
        entry the same batch deletes first."""
        rng = self.rng
        fam = rng.choice(fams)
        counts = prefix_counts(keep)
        grown = self.stages(name) > 1
        mine = [c for c, n in counts.items() if c[0] == fam and n <= 50]
        if mine and not grown and rng.random() < 0.5:
            c = rng.choice(mine)
            pick = {j for j, e in enumerate(keep) if entry_combo(e) == c}
            order = list(pick | set(rng.sample(range(len(keep)), min(
                len(keep), rng.randrange(100)))))
            rng.shuffle(order)
            last = max(order.index(j) for j in pick)
            c = c[1:]
            what = "a prefix of %s after its %d entries" % (c, len(pick))
            self.stats["model_prefix_unused_emptied"] += 1
        else:
            c = self.pick_combo(fam, {(s, d) for f, s, d in counts
                                      if f == fam})
            if c is None:
                return keep
            order = rng.sample(range(len(keep)), rng.randrange(
                min(len(keep), 200) + 1))
            last = -1
            what = "a prefix of the unused combination %s" % (c,)
            self.stats["model_prefix_unused_never"] += 1
        ents = [keep[j] for j in order]
        k = rng.randrange(last + 1, len(ents) + 1)
        ents.insert(k, self.prefix_entry(fam, *c))
        return self.del_one_absent(name, keep, ents, k, order, what, what)

    def spoiled_prefixes(self, counts, fams):
        """PREFIXES for a LOAD_BEGIN that the filter's (restored) key,
        families or bound refuse: the saved records with one made wrong,
        or one added.  (bytes, how)."""
        rng = self.rng
        fields, bidir = self.key
        recs = [[f, s, d, 0, n] for (f, s, d), n in counts.items()]
        fam = rng.choice(fams)
        bits = addr_bits(fam)
        ways = ["full", "past"] + (["twice", "count 0", "pad"] if recs
                                   else [])
        if bidir:
            ways.append("bidirectional")
        elif not fields & KEY_SRC_ADDR or not fields & KEY_DST_ADDR:
            ways.append("field")
        if len(fams) == 1:
            ways.append("family")
        if self.combos_possible(fam) > PREFIXES_MAX:
            ways.append("bound")
        how = rng.choice(ways)
        if how == "twice":
            recs.append(list(rng.choice(recs)))
        elif how == "count 0":
            rng.choice(recs)[4] = 0
        elif how == "pad":
            rng.choice(recs)[3] = rng.randrange(1, 256)
        elif how == "full":
            recs.append([fam, rng.choice([0, bits]), rng.choice([0, bits]),
                         0, 1])
        elif how == "past":
            recs.append([fam, rng.randrange(bits + 1, 256), 0, 0, 1])
        elif how == "bidirectional":
            recs.append([fam, rng.randrange(1, bits), 0, 0, 1])
        elif how == "field":
            s = 0 if fields & KEY_SRC_ADDR else rng.randrange(1, bits)
            recs.append([fam, s, 0 if s else rng.randrange(1, bits), 0, 1])
        elif how == "family":
            f = 3 - fam
            c = self.pick_combo(f, set()) or (1, 0)
            recs.append([f, c[0], c[1], 0, 1])
        else:
            used = {(r[1], r[2]) for r in recs if r[0] == fam}
            while len(used) <= PREFIXES_MAX:
                c = self.pick_combo(fam, used)
                used.add(c)
                recs.append([fam, c[0], c[1], 0, 1])
        rng.shuffle(recs)
        return b"".join(PREFIX_COUNT.pack(*r) for r in recs), how

    def round_key(self, fams):
        """The round's key: the 5-tuple, one without the source or the
        destination address (whose entries get random addresses), or the
        5-tuple bidirectional; the combinations of lengths its prefix
        entries use (a few per family, none in some rounds) and their
        share.  The NEW attributes that say so."""
        rng = self.rng
        r = rng.random()
        fields = KEY_ALL if r < 0.55 or r >= 0.85 else \
            KEY_ALL & ~rng.choice([KEY_SRC_ADDR, KEY_DST_ADDR])
        self.key = (fields, r >= 0.85)
        self.wide = fields != KEY_ALL
        self.combos = {}
        if not self.key[1] and rng.random() < 0.8:
            for f in fams:
                cs = set()
                for _ in range(rng.randrange(1, 6)):
                    cs.add(self.pick_combo(f, cs, 8 if f == 1 else 16))
                self.combos[f] = sorted(cs)
        self.pshare = rng.choice([0.05, 0.2, 0.5])
        self.stats["model_key_%s" % ("bidirectional" if self.key[1] else
                                     "%#x" % fields)] += 1
        return (nlattr(A["KEY_FIELDS"], struct.pack("=I", fields))
                if fields != KEY_ALL or rng.random() < 0.5 else b"") + \
            (nlattr(A["BIDIRECTIONAL"], b"\1") if self.key[1] else b"")

    def load_refused(self, other, img, fam, fams, keyattrs, counts):
        """A LOAD_BEGIN of the save whose PREFIXES the key, families or
        bound refuse: EINVAL, or ERANGE from the policy for more than
        2 * PREFIXES_MAX records; nothing made (the restore that follows
        takes the name)."""
        bad, how = self.spoiled_prefixes(counts, fams)
        want = errno.ERANGE if len(bad) > 2 * PREFIXES_MAX * \
            PREFIX_COUNT.size else errno.EINVAL
        r = self.one(load_msgs(self.ctx.fid, other, img[0], img[1],
                               family=fam, extra=keyattrs + nlattr(
                                   A["PREFIXES"], bad))[0])
        if r and r.outcome() in (-errno.EDQUOT, -errno.ENOMEM):
            return   # churn lowered the ceiling: the images' own check
        if self.expect(r and r.outcome() == -want,
                       "LOAD_BEGIN with %d PREFIXES records wrong (%s): %s, "
                       "want %s" % (len(bad) // PREFIX_COUNT.size, how,
                                    errname(r.outcome()) if r else "-",
                                    errno.errorcode[want])):
            self.stats["model_prefix_load_refused"] += 1

    def model_add(self, name, ents, cap, grow):
        """Add ents; a growing filter may meet a ceiling that churn
        lowered (EDQUOT): not the model's, the round is skipped."""
        for j in range(0, len(ents), BATCH_MAX):
            r = self.batch("ADD_ENTRIES", name, ents[j:j + BATCH_MAX])
            if grow and r and r.outcome() == -errno.EDQUOT:
                self.stats["model_skipped_EDQUOT"] += 1
                return False
            if not self.expect(r and r.outcome() == 0, "ADD of %d into "
                               "capacity %d: %s" % (len(ents), cap,
                                                    errname(r.outcome())
                                                    if r else "-")):
                return False
        if grow:
            self.stats["model_grown_%d_stages" % self.stages(name)] += 1
        return True

    def stages(self, name):
        r = self.request("GET", name)
        return len(self.attrs_of(r).get(A["STAGE"], [])) if r else 0

    def model_delete(self, name, ents, dels):
        """Delete ents[j] for j in dels.  After growth an entry that two
        stages answer yes for fails its batch with AMBIGUOUS, which is
        undone whole: then it stays, and the rest is asked again.  The
        indexes deleted."""
        gone = set()
        for at in range(0, len(dels), BATCH_MAX):
            part = list(dels[at:at + BATCH_MAX])
            while part:
                before = self.items(name)
                r = self.batch("DEL_ENTRIES", name, [ents[j] for j in part])
                if r and r.outcome() == -errno.ENOTUNIQ:
                    fail = batch_fail(r)
                    if not self.expect(fail and fail[1] == WHY_AMBIGUOUS and
                                       self.items(name) == before,
                                       "an ambiguous DEL, undone: %s" %
                                       (fail,)):
                        return gone
                    self.stats["model_ambiguous"] += 1
                    del part[fail[0]]
                    continue
                if self.expect(r and r.outcome() == 0, "DEL of entries "
                               "added: %s" % (errname(r.outcome())
                                              if r else "-")):
                    gone |= set(part)
                break
        return gone

    def loop(self):
        fid, rng = self.ctx.fid, self.rng
        self.want, self.evst = [], {}
        self.key, self.wide, self.combos, self.pshare = (KEY_ALL, False), \
            False, {}, 0
        self.ev = Events(fid, self.ctx.group)
        self.elsewhere = self.events_elsewhere()
        i = 0
        while self.alive():
            self.check_events()
            name, other = self.ctx.model_names[i % 2], self.ctx.model_names[2]
            i += 1
            for n in (name, other):
                self.one(genl(fid, C["DEL"], F_REQUEST | F_ACK, 0,
                              nlattr(A["NAME"], n.encode() + b"\0")))
            # half the filters grow (the default) past their capacity, to
            # at most a few thousand entries: each ambiguous delete costs
            # its batch again
            grow = rng.random() < 0.5
            cap = rng.choice([32, 200, 1000] + ([] if grow else [5000]))
            fam = rng.choice([1, 2, 3, 3])
            fams = [1, 2] if fam == 3 else [fam]
            keyattrs = self.round_key(fams)
            r = self.one(genl(fid, C["NEW"], F_REQUEST | F_ACK, 0,
                              nlattr(A["NAME"], name.encode() + b"\0") +
                              nlattr(A["FAMILY"], bytes([fam])) + keyattrs +
                              nlattr(A["CAPACITY"], struct.pack("=Q", cap)) +
                              nlattr(A["FP_BITS"], bytes([rng.choice([8, 12, 16, 32])])) +
                              # semi-sorted buckets (b = 4) half the time
                              nlattr(A["ENCODING"], bytes([rng.random() < 0.5])) +
                              nlattr(A["ENABLED"], bytes([rng.random() < 0.5])) +
                              nlattr(A["GROW"], bytes([grow])) +
                              nlattr(A["GROW_FACTOR"], bytes([rng.choice([2, 3])])) +
                              nlattr(A["STAGES_MAX"], bytes([rng.randrange(4, 17)])) +
                              nlattr(A["ACTION"], b"\0")))
            if not r or r.outcome() != 0:
                self.stats["model_skipped_%s" % errname(r.outcome() if r else 1)] += 1
                continue
            n = rng.randrange(1, int(cap * (3 if grow else 0.8)) + 1)
            ents = self.flows(n, fams)
            if not self.model_add(name, ents, cap, grow):
                continue
            self.stats["model_entries"] += n
            self.stats["model_prefix_entries"] += sum(map(is_prefix, ents))
            self.expect_present(name, ents, "after add")
            self.expect_counts(name, ents, "after add")
            dels = rng.sample(range(n), rng.randrange(0, n + 1))
            gone = self.model_delete(name, ents, dels)
            keep = [e for j, e in enumerate(ents) if j not in gone]
            self.expect_present(name, keep, "after delete")
            self.expect_counts(name, keep, "after delete")
            keep = self.probe(name, keep, fams)
            keep = self.probe_prefix(name, keep, fams)
            first = {}
            img = save_image(self, name, first=first)
            if not self.expect(img is not None, "SAVE of a quiet filter"):
                continue
            # the restore is told the key and, as SAVE gave them, the
            # counts of the combinations of lengths
            saved = parse_prefixes(first)
            want = prefix_counts(keep)
            self.expect(saved == want, "SAVE's PREFIXES %s, want %s" % (
                sorted(saved.items()) if isinstance(saved, dict) else saved,
                sorted(want.items())))
            extra = keyattrs + b"".join(nlattr(A["PREFIXES"], p)
                                        for p in first.get(A["PREFIXES"], []))
            if rng.random() < 0.25:
                self.load_refused(other, img, fam, fams, keyattrs, want)
            ok = True
            for j, m in enumerate(load_msgs(fid, other, img[0], img[1],
                                            family=fam, rng=rng,
                                            extra=extra)):
                r = self.one(m)
                if j == 0 and r and r.outcome() in (-errno.EDQUOT,
                                                    -errno.ENOMEM):
                    # churn may have lowered the ceiling: not the model's
                    self.stats["model_skipped_%s" % errname(r.outcome())] += 1
                    ok = False
                    break
                ok &= self.expect(r and r.outcome() == 0, "restore step: %s" %
                                  (errname(r.outcome()) if r else "-"))
                if not ok:
                    break
            if ok:
                self.evst[other] = {"items": len(keep), "cap": cap,
                                    "loading": False, "grow": True}
                self.resync(other, self.evst[other])
                self.expect_present(other, keep, "after save and restore")
                self.expect_counts(other, keep, "after save and restore")
                self.stats["model_restores"] += 1
                self.stats["model_prefix_restores"] += bool(want)
            r = self.one(genl(fid, C["FLUSH"], F_REQUEST | F_ACK, 0,
                              nlattr(A["NAME"], name.encode() + b"\0")))
            self.expect(r and r.outcome() == 0, "FLUSH: %s" %
                        (errname(r.outcome()) if r else "-"))
            self.expect_counts(name, [], "after flush")
            self.stats["model_prefix_flushed"] += bool(want)
            if rng.random() < 0.3:
                self.fill(name, cap, fams)
            self.stats["model_rounds"] += 1
        self.check_events()


class TrafficWorker(Worker):
    def loop(self):
        socks = []
        for fam, src, dst in ((socket.AF_INET, ("127.0.0.1", 40000),
                               ("127.0.0.1", 40001)),
                              (socket.AF_INET6, ("::1", 40000), ("::1", 40001))):
            try:
                s = socket.socket(fam, socket.SOCK_DGRAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(src)
                s.setblocking(False)
                socks.append((s, dst))
            except OSError:
                pass
        while self.alive():
            for s, dst in socks:
                for _ in range(5):
                    try:
                        s.sendto(b"x" * 32, dst)
                        self.stats["packets"] += 1
                    except OSError:
                        self.stats["packets_refused"] += 1
            time.sleep(0.02)


class NetnsWorker(Worker):
    """Children, each in a network namespace of its own, fuzz and die with
    a load, a dump and filters left behind: the namespace goes with them."""

    def loop(self):
        while self.alive():
            rd, wr = os.pipe()
            seed = self.rng.getrandbits(32)
            pid = os.fork()
            if pid == 0:
                os.close(rd)
                code = 0
                try:
                    code = self.child(wr, seed)
                except BaseException:
                    traceback.print_exc()
                    code = 3
                os._exit(code)
            os.close(wr)
            data = b""
            while True:
                c = os.read(rd, 1 << 16)
                if not c:
                    break
                data += c
            os.close(rd)
            status = reap(pid, self.ctx.timeout)
            if status is None:
                self.anomaly("netns child stuck in the kernel (its namespace "
                             "going away?)", b"")
                break
            if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) not in (0,):
                self.anomaly("netns child died: status %#x" % status, b"")
            if data:
                res = json.loads(data)
                self.stats.update(res["stats"])
                self.by_cmd.update(res["by_cmd"])
                self.by_err.update(res["by_err"])
                self.ms.update(res["ms"])
                self.anomalies += res["anomalies"]
                self.stats["anomalies"] = len(self.anomalies)
            self.stats["netns"] += 1

    def child(self, wr, seed):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
        subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
        self.rng.seed(seed)
        # count only this child's work: the parent adds it to its own
        self.stats = collections.Counter()
        self.by_cmd = collections.Counter()
        self.by_err = collections.Counter()
        self.ms = collections.Counter()
        self.anomalies = []
        fid, rng = self.ctx.fid, self.rng
        end = min(self.ctx.deadline, time.monotonic() + rng.uniform(1, 4))
        self.new_conn()
        keep = []
        for i in range(3):
            nm = nlattr(A["NAME"], ("fz%d" % i).encode() + b"\0")
            self.one(genl(fid, C["NEW"], F_REQUEST | F_ACK, 0, nm +
                          nlattr(A["FAMILY"], b"\3") +
                          nlattr(A["HOOK"], bytes([rng.randrange(6)])) +
                          nlattr(A["ACTION"], bytes([rng.randrange(3)]))))
            body = b"".join(self.gen.raw_entry(True) for _ in range(20))
            self.one(genl(fid, C["ADD_ENTRIES"], F_REQUEST | F_ACK, 0, nm + body))
        if self.ctx.images:
            hdr, table = self.ctx.images[0]
            c2 = Conn(fid, self.ctx.timeout)
            keep.append(c2)
            for m in load_msgs(fid, "fz9", hdr, table)[:rng.randrange(1, 3)]:
                self.send(m, c2)
        c3 = Conn(fid, self.ctx.timeout, rcvbuf=1024)
        keep.append(c3)
        c3.s.send(genl(fid, C["SAVE"], F_REQUEST | F_ACK | F_DUMP, 1,
                       nlattr(A["NAME"], b"fz0\0")))
        u4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        while time.monotonic() < end:
            data, _ = self.gen.structured()
            data = self.gen.fixup(data)
            if data is not None:
                self.send(data)
            try:
                u4.sendto(b"y", ("127.0.0.1", rng.randrange(1, 65536)))
            except PermissionError:
                pass    # a drop filter of this namespace at output
        os.write(wr, json.dumps(self.result()).encode())
        os.close(wr)
        return 0   # exit with the sockets open: the namespace dies with us


class KnownWorker(Worker):
    """Tests the known entries with pyroute2 every few seconds (once if
    started after the deadline)."""

    def run(self):
        gs = resolve_family()
        try:
            while True:
                for k in self.ctx.known:
                    try:
                        lost = k.check(gs, self.ctx.timeout,
                                       self.rng.random() < 0.5)
                    except Exception as e:
                        self.anomaly("known %s: %r" % (k.name, e), b"")
                        gs.close()
                        gs = resolve_family()
                        continue
                    self.stats["known_checks"] += 1
                    if lost:
                        self.anomaly("known %s: %d of %d entries lost" %
                                     (k.name, lost, len(k.entries)), b"")
                        self.stats["lost_known"] = max(
                            self.stats["lost_known"], lost)
                        self.lost = max(self.lost, lost)
                if not self.alive():
                    break
                time.sleep(3)
        finally:
            gs.close()


WORKERS = {"struct": StructWorker, "mutate": MutateWorker,
           "churn": ChurnWorker, "dump": DumpWorker, "race": RaceWorker,
           "model": ModelWorker, "traffic": TrafficWorker,
           "netns": NetnsWorker, "known": KnownWorker}


# ---------------------------------------------------------------------------
# Known entries: pyroute2 end to end

class Known:
    def __init__(self, spec):
        name, path = spec.split("=", 1)
        self.name = name
        self.entries = [parse_flow(ln) for ln in open(path)
                        if ln.strip() and not ln.startswith("#")]

    def check(self, gs, timeout, packed):
        """Entries that test absent, via pyroute2 (request, reply, decode),
        sent nested or packed."""
        lost = 0
        for i in range(0, len(self.entries), 500):
            part = self.entries[i:i + 500]
            attrs = [("NAME", self.name)] + (
                packed_attrs(part) if packed else [("ENTRY", e) for e in part])
            m = nfcmsg()
            m["cmd"] = C["TEST_ENTRIES"]
            m["version"] = 1
            m["attrs"] = [("NF_CUCKOO_A_" + k, v if k != "ENTRY" else
                           {"attrs": [("NF_CUCKOO_ENTRY_A_" + a, b) for a, b in v]})
                          for k, v in attrs]
            gs.settimeout(timeout)
            reply = gs.nlm_request(m, msg_type=gs.prid, msg_flags=F_REQUEST)
            bm = reply[0].get_attr("NF_CUCKOO_A_TEST_BITMAP")
            hits = reply[0].get_attr("NF_CUCKOO_A_TEST_HITS")
            if reply[0].get_attr("NF_CUCKOO_A_BATCH_DONE") != len(part):
                raise Anomaly("known %s: TEST did %s of %d" %
                              (self.name, reply[0].get_attr("NF_CUCKOO_A_BATCH_DONE"),
                               len(part)))
            lost += len(part) - hits
            if sum(bin(b).count("1") for b in bm) != hits:
                raise Anomaly("known %s: bitmap and hits disagree" % self.name)
        return lost


# ---------------------------------------------------------------------------
# The run

class Ctx:
    pass


def resolve_family():
    gs = GenericNetlinkSocket()
    gs.bind("nf_cuckoo", nfcmsg)
    return gs


def grab_images(ctx):
    """A few real image headers for the generators: save small filters."""
    w = Worker("setup", ctx, ctx.seed)
    w.new_conn(ext_ack=True, cap_ack=False)
    # the last one semi-sorted
    for i, (fam, cap, fp, b, enc) in enumerate([(3, 16, 12, 4, 0),
                                               (1, 100, 8, 2, 0),
                                               (2, 1000, 32, 8, 0),
                                               (3, 200, 13, 4, 1)]):
        nm = nlattr(A["NAME"], b"fzimg%d\0" % i)
        w.one(genl(ctx.fid, C["NEW"], F_REQUEST | F_ACK, 0, nm +
                   nlattr(A["FAMILY"], bytes([fam])) +
                   nlattr(A["CAPACITY"], struct.pack("=Q", cap)) +
                   nlattr(A["FP_BITS"], bytes([fp])) +
                   nlattr(A["BUCKET_SIZE"], bytes([b])) +
                   nlattr(A["ENCODING"], bytes([enc])) +
                   nlattr(A["ENABLED"], b"\0")))
        body = b"".join(w.gen.raw_entry(True) for _ in range(cap // 2))
        w.one(genl(ctx.fid, C["ADD_ENTRIES"], F_REQUEST | F_ACK, 0, nm + body))
        img = save_image(w, "fzimg%d" % i)
        if img:
            ctx.images.append(img)
        w.one(genl(ctx.fid, C["DEL"], F_REQUEST | F_ACK, 0, nm))
    w.conn.close()
    return w


def start_worker(ctx, kind, idx):
    rd, wr = os.pipe()
    seed = (ctx.seed * 1000003 + idx * 7919) & 0xffffffff
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        w = WORKERS[kind]("%s%d" % (kind, idx), ctx, seed)
        code = 0
        try:
            w.run()
        except Exception:
            w.anomaly("worker crashed: %s" % traceback.format_exc(), b"")
            code = 1
        with os.fdopen(wr, "w") as f:
            json.dump(w.result(), f)
        os._exit(code)
    os.close(wr)
    return {"pid": pid, "rd": rd, "kind": kind, "name": "%s%d" % (kind, idx),
            "buf": b"", "res": None, "status": None}


def wait_workers(ctx, workers, hard_deadline, anomalies):
    """Collect the workers' results; the ones still running at
    hard_deadline are reported (hung in the kernel?) and killed.  The
    parent itself makes no netlink call while they run: a wedged kernel
    must not take the report with it."""
    while any(w["status"] is None for w in workers):
        fds = [w["rd"] for w in workers if w["status"] is None]
        r, _, _ = select.select(fds, [], [], 0.5)
        for w in workers:
            if w["rd"] in r:
                c = os.read(w["rd"], 1 << 16)
                w["buf"] += c
                if not c:
                    st = reap(w["pid"], ctx.timeout)
                    if st is None:
                        anomalies.append({"worker": w["name"], "what":
                                          "stuck in the kernel on its way "
                                          "out (a lock held by a dead task?)"})
                        st = -1
                    w["status"] = st
                    os.close(w["rd"])
        if time.monotonic() < hard_deadline:
            continue
        for w in workers:
            if w["status"] is not None:
                continue
            anomalies.append({"worker": w["name"], "what":
                              "still running %.0f s after its deadline "
                              "(hung in the kernel?)" % ctx.grace,
                              "datagram": last_message(ctx, w["name"])})
            os.kill(w["pid"], signal.SIGKILL)
            for _ in range(100):
                if os.waitpid(w["pid"], os.WNOHANG)[0]:
                    break
                time.sleep(0.1)
            else:
                anomalies.append({"worker": w["name"], "what":
                                  "unkillable after SIGKILL (stuck in the "
                                  "kernel)"})
            w["status"] = -1


def merge(ctx, workers, anomalies, total):
    lost = 0
    for w in workers:
        st = w["status"]
        if st != -1 and (os.WIFSIGNALED(st) or os.WEXITSTATUS(st)):
            anomalies.append({"worker": w["name"], "what":
                              "exited with status %#x (killed by an oops?)" % st,
                              "datagram": last_message(ctx, w["name"])})
        try:
            res = json.loads(w["buf"]) if w["buf"] else None
        except ValueError:
            res = None
        if res is None:
            anomalies.append({"worker": w["name"], "what": "no result"})
            continue
        for k in ("stats", "by_cmd", "by_err", "ms"):
            total[k].update(res[k])
        anomalies += res["anomalies"]
        lost += res["lost"]
        total["per_worker"][w["name"]] = res["stats"].get("messages", 0)
    return lost


def run(args):
    ctx = Ctx()
    ctx.seed = args.seed
    ctx.timeout = args.reply_timeout
    ctx.tmp = args.tmp
    ctx.save_dir = args.save_anomalies
    ctx.toggle_ceiling = args.toggle_ceiling
    ctx.race_scen = args.race.split(",") if args.race else None
    ctx.ceiling_path = "/sys/module/nf_cuckoo/parameters/netns_mem_max_mb"
    ctx.known = [Known(k) for k in args.known]
    ctx.model_names = ["MODEL-a", "MODEL-b", "MODEL-r"]
    ctx.protect = [k.name for k in ctx.known] + ctx.model_names
    ctx.pool = ["fz%d" % i for i in range(args.pool)]
    # the race and model workers' own: exact expectations need privacy
    ctx.race_names = ["RACE%d-%s" % (i, n)
                      for i in range(len(args.workers.split(",")))
                      for n in ("0", "1", "src")]
    ctx.protect += ctx.race_names
    ctx.images = []
    ctx.grace = max(120.0, args.seconds)
    os.makedirs(ctx.tmp, exist_ok=True)
    gs = resolve_family()
    ctx.fid = gs.prid
    ctx.group = gs.mcast_groups.get("events")
    gs.close()
    if ctx.group is None:
        print("# genl_fuzz: the family has no events group", file=sys.stderr)
        return 1, None
    print("# genl_fuzz: seed %d, %d s, family id %d, workers %s" %
          (args.seed, args.seconds, ctx.fid, args.workers), flush=True)
    setup = grab_images(ctx)
    if setup.anomalies or len(ctx.images) < 3:
        print("# genl_fuzz: setup failed (%d images, %d anomalies)" %
              (len(ctx.images), len(setup.anomalies)), file=sys.stderr)
        return 1, None
    t0 = time.monotonic()
    ctx.deadline = t0 + args.seconds
    kinds = args.workers.split(",") + (["known"] if ctx.known else [])
    workers = [start_worker(ctx, kind, i) for i, kind in enumerate(kinds)]
    anomalies = []
    wait_workers(ctx, workers, ctx.deadline + ctx.grace, anomalies)
    elapsed = time.monotonic() - t0
    if ctx.known:   # once more, after everything stopped
        final = [start_worker(ctx, "known", len(kinds))]
        wait_workers(ctx, final, time.monotonic() + ctx.grace, anomalies)
        workers += final
    total = {"stats": collections.Counter(), "by_cmd": collections.Counter(),
             "by_err": collections.Counter(), "ms": collections.Counter(),
             "per_worker": {}}
    lost = merge(ctx, workers, anomalies, total)
    st = total["stats"]
    report = {
        "seed": args.seed, "seconds": round(elapsed, 1),
        "messages": st["messages"], "datagrams": st["datagrams"],
        "packed_msgs": st["packed_msgs"],
        "per_second": round(st["messages"] / max(elapsed, 1), 1),
        "by_cmd": dict(sorted(total["by_cmd"].items())),
        "by_errno": dict(sorted(total["by_err"].items())),
        "ms_by_cmd": dict(sorted(total["ms"].items())),
        "stats": dict(sorted(st.items())),
        "per_worker": total["per_worker"],
        "known_checks": st["known_checks"],
        "known_entries": sum(len(k.entries) for k in ctx.known),
        "lost_known": st["lost_known"],
        "lost_model": st["lost_model"],
        "lost": lost,
        "anomalies": len(anomalies),
    }
    # every command of the interface was sent, and packed entries (a
    # fuzzer too slow, or one that lost a command, must not pass quietly)
    if set(kinds) & {"struct", "mutate"}:
        missing = [c for c in SPEC if not total["by_cmd"].get(c)] + \
            ([] if st["packed_msgs"] else ["packed entries"])
        if missing:
            anomalies.append({"worker": "all", "what": "never sent: "
                              + " ".join(missing)})
            report["anomalies"] = len(anomalies)
    for a in anomalies[:30]:
        print("# anomaly: %s: %s" % (a.get("worker"), a.get("what")),
              file=sys.stderr)
        if a.get("datagram"):
            print("#   %s" % a["datagram"][:512], file=sys.stderr)
    return (0 if not anomalies and not lost else 1), report


def last_message(ctx, name):
    try:
        with open(os.path.join(ctx.tmp, "last-%s" % name), "rb") as f:
            b = f.read()
        n, = struct.unpack_from("=I", b)
        return b[4:4 + min(n, 2048)].hex()
    except (OSError, struct.error):
        return ""


# ---------------------------------------------------------------------------
# Corpus replay

def step_bytes(fid, st):
    """A message step's datagram: "datagram" (hex; every nlmsg type from
    0x10 up but 0xfffe becomes the family's id, which differs from boot to
    boot) or "cmd" (name or number), "flags", "attrs" (hex), "repeat_attrs"
    ({"hex", "times"}), "attrs_after", "zero_attrs" ([[type, length]]),
    "version", "len_delta" (see corpus/README.md)."""
    if "datagram" in st:
        b = bytearray.fromhex(st["datagram"])
        for off, ln, mtype, flags, seq in frame(bytes(b)):
            if mtype >= NLMSG_MIN_TYPE and mtype != 0xfffe:
                struct.pack_into("=H", b, off + 4, fid)
        return bytes(b)
    cmd = st["cmd"]
    cmd = C[cmd] if isinstance(cmd, str) else cmd
    flags = 0
    for f in st.get("flags", ["REQUEST", "ACK"]):
        flags |= {"REQUEST": F_REQUEST, "ACK": F_ACK, "DUMP": F_DUMP,
                  "ECHO": F_ECHO, "ROOT": F_ROOT, "ATOMIC": F_ATOMIC}[f]
    attrs = bytes.fromhex(st.get("attrs", ""))
    rep = st.get("repeat_attrs")
    if rep:
        attrs += bytes.fromhex(rep["hex"]) * rep["times"]
    attrs += bytes.fromhex(st.get("attrs_after", ""))
    for t, n in st.get("zero_attrs", []):   # [type, length]: n zero bytes
        attrs += nlattr(t, bytes(n))
    g = genl(fid, cmd, flags, 0, attrs, version=st.get("version", 1))
    if "len_delta" in st:
        g = bytearray(g)
        struct.pack_into("=I", g, 0, (len(g) + st["len_delta"]) & 0xffffffff)
        g = bytes(g)
    return g


def expect_ok(want, r):
    """Does a Req's outcome match "expect": "any", "reply" (a reply
    message came), "none" (no answer), "OK", an errno name, or a list?"""
    if want == "any":
        return True
    if isinstance(want, list):
        return any(expect_ok(w, r) for w in want)
    if want == "reply":
        return bool(r and r.msgs)
    got = r.outcome() if r else None
    if want == "none":
        return got is None
    want = 0 if want == "OK" else -getattr(errno, want)
    return got == want


def outcome_name(r, msg=False):
    """"OK", an errno name or "none"; with msg, the ext ack message too."""
    if r is None or r.outcome() is None:
        return "none"
    name = "OK" if r.outcome() == 0 else errname(r.outcome())
    if msg:
        for x in r.extack:
            if NLMSGERR_ATTR_MSG in x:
                name += " (%s)" % x[NLMSGERR_ATTR_MSG][:-1].decode()
    return name


class Replay:
    """Runs a corpus case's steps on one socket (in a fresh namespace)."""

    def __init__(self, fid, timeout):
        self.fid = fid
        self.timeout = timeout
        self.conn = Conn(fid, timeout)
        self.images = {}
        self.problems = []

    def step(self, i, st):
        """One step; False if it failed (a problem is recorded)."""
        where = "step %s%s" % (i, " (%s)" % st["note"] if "note" in st else "")
        try:
            if "parallel" in st:
                return self.parallel(where, st)
            if "save" in st:
                img = self.save(st["save"])
                if img is None:
                    self.problems.append("%s: SAVE of %s failed" %
                                         (where, st["save"]))
                    return False
                self.images[st["as"]] = img
                return True
            if "load" in st:   # BEGIN (header "patch"ed), chunks, END
                hdr, table = self.images[st["image"]]
                hdr = bytearray(hdr)
                for off, hx in st.get("patch", []):
                    hdr[off:off + len(bytes.fromhex(hx))] = bytes.fromhex(hx)
                msgs = load_msgs(self.fid, st["load"], bytes(hdr), table,
                                 chunk=st.get("chunk"),
                                 extra=bytes.fromhex(st.get("begin_attrs", "")))
                chunks = msgs[1:-1][:st.get("chunks", len(msgs))]
                msgs = msgs[:1] + chunks + msgs[-1:] if st.get("end", True) \
                    else msgs[:1] + chunks
                want = st.get("expect", "OK")
                for j, m in enumerate(msgs):
                    r = self.conn.transact(m)[0]
                    last = j == len(msgs) - 1
                    if r.outcome() != 0 or last:
                        if not expect_ok(want, r) or not last and want == "OK":
                            self.problems.append(
                                "%s: load message %d of %d answered %s, want "
                                "%s" % (where, j + 1, len(msgs),
                                        outcome_name(r), want))
                            return False
                        break
                return True
            for _ in range(st.get("times", 1)):
                reqs = self.conn.transact(step_bytes(self.fid, st))
                r = reqs[0] if reqs else None
                want = st.get("expect", "any")
                if not expect_ok(want, r):
                    self.problems.append("%s: got %s, want %s" %
                                         (where, outcome_name(r, True), want))
                    return False
                if "items" in st and self.items(r) != st["items"]:
                    self.problems.append("%s: %s items, want %d" %
                                         (where, self.items(r), st["items"]))
                    return False
                if "fail" in st and batch_fail(r) != tuple(st["fail"]):
                    self.problems.append("%s: failed entry and reason %s, "
                                         "want %s" % (where, batch_fail(r),
                                                      tuple(st["fail"])))
                    return False
            return True
        except Anomaly as e:
            self.problems.append("%s: %s" % (where, e))
            self.conn.close()
            self.conn = Conn(self.fid, self.timeout)
            return False

    @staticmethod
    def items(r):
        if not r or not r.msgs:
            return None
        st, _ = walk_attrs(r.msgs[0][1][1][A["STATS"]][0])
        a = r.msgs[0][1][1][A["STATS"]][0]
        for t, o, ln in st:
            if t & NLA_TYPE_MASK == S["ITEMS"]:
                return u(a[o:o + ln], 8)
        return None

    def save(self, name):
        reqs = self.conn.transact(genl(self.fid, C["SAVE"],
                                       F_REQUEST | F_ACK | F_DUMP, 0,
                                       nlattr(A["NAME"], name.encode() + b"\0")))
        r = reqs[0]
        if r.outcome() != 0 or not r.msgs:
            return None
        a = [m[1][1] for m in r.msgs]
        return a[0][A["IMAGE_HEADER"]][0], b"".join(x[A["CHUNK_DATA"]][0]
                                                     for x in a[1:])

    def parallel(self, where, st):
        """Two messages sent at once by two processes sharing the socket,
        "rounds" times, each round after "setup" and before "after" steps;
        "outcomes" lists the pairs of outcomes allowed."""
        shm = mmap.mmap(-1, 1 << 20)
        pipes, pids = [], []
        for j in range(2):
            rd, wr = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(wr)
                RaceWorker.helper(j, rd, self.conn.s, shm)
                os._exit(0)
            os.close(rd)
            pipes.append(wr)
            pids.append(pid)
        ok = True
        try:
            for rnd in range(st.get("rounds", 1)):
                for j, s2 in enumerate(st.get("setup", [])):
                    if not self.step("%s.setup%d" % (rnd, j), s2):
                        return False
                conn = self.conn
                da, ra = conn.prepare(step_bytes(self.fid, st["parallel"][0]))
                db, rb = conn.prepare(step_bytes(self.fid, st["parallel"][1]))
                RaceWorker.fire(shm, pipes, da, db)
                reqs = {ra[0].seq: ra[0], rb[0].seq: rb[0]}
                deadline = time.monotonic() + self.timeout
                while any(not r.acks for r in reqs.values()):
                    for mtype, flags, seq, m in conn.recv_msgs(deadline):
                        if seq not in reqs:
                            raise Anomaly("reply for seq %d never sent" % seq)
                        conn.take(reqs[seq], mtype, flags, m)
                for r in reqs.values():
                    check_req(r)
                outs = sorted(outcome_name(r) for r in (ra[0], rb[0]))
                allowed = [sorted(x) for x in st.get("outcomes", [])]
                if allowed and outs not in allowed:
                    self.problems.append("%s round %d: outcomes %s, want one "
                                         "of %s" % (where, rnd, outs, allowed))
                    return False
                for j, s2 in enumerate(st.get("after", [])):
                    if not self.step("%s.after%d" % (rnd, j), s2):
                        return False
            return ok
        except Anomaly as e:
            self.problems.append("%s: %s" % (where, e))
            return False
        finally:
            for st in release_helpers(pipes, pids, self.timeout):
                why = helper_trouble(st)
                if why:
                    self.problems.append("%s: helper %s" % (where, why))


def replay_case(path, fid, timeout):
    """Run one corpus case in a fresh network namespace; its problems."""
    case = json.load(open(path))
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        problems = []
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.unshare(CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
            rp = Replay(fid, timeout)
            for i, st in enumerate(case["steps"]):
                if not rp.step(i, st):
                    break
            problems = rp.problems
        except Exception:
            problems.append("replay crashed: " + traceback.format_exc())
        os.write(wr, json.dumps(problems).encode())
        os.close(wr)   # before the sockets: closing them may hang
        os._exit(0)
    os.close(wr)
    data = b""
    while True:
        c = os.read(rd, 1 << 16)
        if not c:
            break
        data += c
    os.close(rd)
    res = json.loads(data) if data else ["replay gave no result"]
    st = reap(pid, timeout)
    if st is None:
        res.append("the replay process is stuck in the kernel on its way "
                   "out (a lock held by a dead task?)")
    elif os.WIFSIGNALED(st):
        res.append("replay process killed by signal %d" % os.WTERMSIG(st))
    return res


def reap(pid, timeout):
    """waitpid() for at most timeout seconds: a process stuck in the
    kernel (in D state) never ends.  Its status, or None."""
    end = time.monotonic() + timeout
    while True:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            return st
        if time.monotonic() > end:
            return None
        time.sleep(0.1)


def release_helpers(pipes, pids, timeout):
    """Tell the race helpers to quit (a byte on each pipe) and reap them:
    their exit statuses, None for one stuck in the kernel."""
    for wr in pipes:
        try:
            os.write(wr, b"q")
        except OSError:
            pass
        os.close(wr)
    return [reap(pid, timeout) for pid in pids]


def helper_trouble(status):
    """What a helper's status says went wrong, or None."""
    if status is None:
        return "stuck in the kernel"
    if status:
        return "exited with status %#x (killed by an oops?)" % status
    return None


def replay(paths, timeout):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p)
                            if f.endswith(".json"))
        else:
            files.append(p)
    gs = resolve_family()
    fid = gs.prid
    gs.close()
    failed = 0
    for f in files:
        problems = replay_case(f, fid, timeout)
        name = os.path.basename(f)
        if problems:
            failed += 1
            print("not ok - corpus %s" % name)
            for p in problems:
                print("#   %s" % p)
        else:
            print("ok - corpus %s" % name)
    print("# corpus: %d cases, %d failed" % (len(files), failed))
    return 1 if failed or not files else 0


def write_known(path, count, seed):
    """count distinct flows, IPv4 and IPv6, as cfctl entry lines."""
    rng = random.Random(seed)
    seen = set()
    with open(path, "w") as f:
        while len(seen) < count:
            proto = rng.choice(["tcp", "udp", "132"])
            sp, dp = rng.randrange(65536), rng.randrange(65536)
            if rng.random() < 0.5:
                s = "%s:%d" % (socket.inet_ntop(socket.AF_INET,
                                                rng.getrandbits(32).to_bytes(4, "big")), sp)
                d = "%s:%d" % (socket.inet_ntop(socket.AF_INET,
                                                rng.getrandbits(32).to_bytes(4, "big")), dp)
            else:
                s = "[%s]:%d" % (socket.inet_ntop(socket.AF_INET6,
                                                  rng.getrandbits(128).to_bytes(16, "big")), sp)
                d = "[%s]:%d" % (socket.inet_ntop(socket.AF_INET6,
                                                  rng.getrandbits(128).to_bytes(16, "big")), dp)
            line = "%s %s %s" % (proto, s, d)
            if line not in seen:
                seen.add(line)
                f.write(line + "\n")
    return 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--workers", default="struct,struct,mutate,churn,dump,"
                    "race,model,netns,traffic",
                    help="comma-separated: " + ",".join(WORKERS))
    ap.add_argument("--known", action="append", default=[],
                    metavar="NAME=FILE", help="a filter holding FILE's entries "
                    "(cfctl lines) that must survive; never fuzzed")
    ap.add_argument("--pool", type=int, default=6,
                    help="filter names fz0.. the workers aim at")
    ap.add_argument("--reply-timeout", type=float, default=60)
    ap.add_argument("--race", metavar="SCEN,...",
                    help="race scenarios to run (default: all): " +
                    ",".join(sorted(set(RaceWorker.SCEN))))
    ap.add_argument("--toggle-ceiling", action="store_true",
                    help="let churn change netns_mem_max_mb (restored)")
    ap.add_argument("--tmp", default="/tmp/genl_fuzz.%d" % os.getpid())
    ap.add_argument("--save-anomalies", metavar="DIR")
    ap.add_argument("--json", metavar="FILE", help="write the report there")
    ap.add_argument("--replay", nargs="+", metavar="PATH")
    ap.add_argument("--write-known", metavar="FILE")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--check-uapi", action="store_true",
                    help="only check the tables against the uapi header")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
    bad = check_uapi(UAPI) if os.path.exists(UAPI) else \
        ["uapi header not found at %s" % UAPI]
    if bad:
        for b in bad:
            print("genl_fuzz: the fuzzer does not cover the uapi: %s" % b,
                  file=sys.stderr)
        return 2
    if args.check_uapi:
        return 0
    if args.write_known:
        return write_known(args.write_known, args.count, args.seed)
    if args.replay:
        return replay(args.replay, args.reply_timeout)
    for w in args.workers.split(","):
        if w not in WORKERS:
            ap.error("unknown worker %s" % w)
    code, report = run(args)
    if report:
        print("# genl_fuzz: %s" % json.dumps(report), flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)
    return code


if __name__ == "__main__":
    sys.exit(main())
