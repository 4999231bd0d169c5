#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The lifecycle test's CrowdSec side (selftests/lifecycle/guest.sh runs it
in the guest, where crowdsec, crowdsec-custom-bouncer and the
nf-cuckoo-crowdsec adapter run as the system's services).

  crowdsec.py agree KEYFILE
      Whether CrowdSec's active decisions (asked of the Local API with
      the test's own bouncer key, so that the real bouncer's pulls are
      not disturbed), the adapter's state and the filter agree: the same
      set of values in the first two, and the filter holding every one of
      them and exactly as many entries.  Status 0 if so; otherwise one
      line says why.

  crowdsec.py chaos SECONDS
      For SECONDS, decisions are added and deleted with cscli while a
      second thread kill -9s, at random moments, one of: a cfctl the
      adapter runs, the adapter, the bouncer.  Prints one line of counts.
"""

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request

FILTER = "crowdsec"
LAPI = "http://127.0.0.1:8080/v1/decisions"
ADAPTER = "/usr/sbin/nf-cuckoo-crowdsec"


def active(keyfile):
    with open(keyfile, encoding="ascii") as f:
        key = f.read().strip()
    req = urllib.request.Request(LAPI, headers={"X-Api-Key": key})
    with urllib.request.urlopen(req, timeout=30) as r:
        ds = json.load(r) or []
    return {d["value"] for d in ds if d.get("type") == "ban"}


def agree(keyfile):
    try:
        want = active(keyfile)
    except (OSError, ValueError) as e:
        return "the Local API: %s" % e
    # (the adapter's own reading of its state, wherever its
    # configuration puts it)
    p = subprocess.run([ADAPTER, "show"], capture_output=True, text=True)
    if p.returncode != 0:
        return "%s show: %s" % (ADAPTER, p.stderr.strip())
    state = set(p.stdout.split())
    if state != want:
        return ("the state is not the active decisions: %d active, %d in "
                "the state; missing %s; extra %s" % (
                    len(want), len(state), sorted(want - state)[:5],
                    sorted(state - want)[:5]))
    p = subprocess.run(["cfctl", "-j", "show", FILTER], capture_output=True,
                       text=True)
    if p.returncode != 0:
        return "cfctl show %s: %s" % (FILTER, p.stderr.strip())
    items = json.loads(p.stdout)["stats"]["items"]
    if items != len(state):
        return "the filter holds %d entries, the state %d values" % (
            items, len(state))
    if state:
        p = subprocess.run(["cfctl", "-q", "test", "-f", "-", FILTER],
                           input="".join("src %s\n" % v for v in state),
                           capture_output=True, text=True)
        if p.returncode != 0:
            return "values of the state missing from the filter: %s" % (
                p.stdout.strip() or p.stderr.strip())
    print("%d active decisions, in the state and the filter" % len(state))
    return None


def procs():
    """(pid, comm, ppid, cmdline) of every process."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d, encoding="utf-8") as f:
                st = f.read()
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        ppid = int(st[st.rindex(")") + 2:].split()[1])
        yield int(d), comm, ppid, cmd


def adapter_pids(ps):
    """The pids among ps (procs()) that run the adapter."""
    return {pid for pid, _, _, cmd in ps
            if len(cmd) > 1 and cmd[1].decode(errors="replace") == ADAPTER}


def find(what):
    ps = list(procs())
    adapters = adapter_pids(ps)
    for pid, comm, ppid, _ in ps:
        if what == "cfctl" and comm == "cfctl" and ppid in adapters:
            return pid
        if what == "adapter" and pid in adapters:
            return pid
        # (comm is cut at 15 characters)
        if what == "bouncer" and comm == "crowdsec-custom":
            return pid
    return None


def find_cfctl(adapters, until):
    """A cfctl the adapters run, looked for among their children until
    the clock says until.  cfctl lives a moment a batch, less than one
    scan of /proc takes in a busy emulated guest (where kill after kill
    found none): the adapters' children files are read instead, a few
    ms apart."""
    while time.monotonic() < until:
        for a in adapters:
            try:
                with open("/proc/%d/task/%d/children" % (a, a)) as f:
                    kids = f.read().split()
            except OSError:
                continue
            for k in kids:
                try:
                    with open("/proc/%s/comm" % k) as f:
                        if f.read().strip() == "cfctl":
                            return int(k)
                except OSError:
                    pass
        time.sleep(0.003)
    return None


def chaos(seconds):
    # Each of the three is killed at least once: on a busy host fewer
    # batches run in the time, and cfctl, alive a moment a batch, can be
    # missed; then the kills go on, for up to twice as long again, with
    # the ones not killed yet first.
    end = time.monotonic() + seconds
    last = end + 2 * seconds
    stop = threading.Event()
    rnd = random.Random()
    count = {"add": 0, "del": 0, "cscli failed": 0}
    kills = {"cfctl": 0, "adapter": 0, "bouncer": 0, "missed": 0}

    def cscli(*args):
        p = subprocess.run(["cscli", "decisions"] + list(args),
                           capture_output=True, text=True)
        if p.returncode != 0:
            count["cscli failed"] += 1
        return p.returncode == 0

    def decide():
        held = []
        n = 0
        while not stop.is_set():
            if held and rnd.random() < 0.35:
                v = held.pop(rnd.randrange(len(held)))
                if cscli("delete", "--ip", v):
                    count["del"] += 1
            else:
                n += 1
                v = "10.77.%d.%d" % (n >> 8, n & 255)
                if cscli("add", "--ip", v, "--duration", "24h",
                         "--reason", "nfclc chaos"):
                    count["add"] += 1
                    held.append(v)

    t = threading.Thread(target=decide)
    t.start()
    while True:
        now = time.monotonic()
        unkilled = [w for w in ("cfctl", "adapter", "bouncer") if not kills[w]]
        if now >= last or (now >= end and not unkilled):
            break
        time.sleep(rnd.uniform(2, 6))
        if time.monotonic() >= end and unkilled:
            what = rnd.choice(unkilled)
        else:
            what = rnd.choice(("cfctl", "adapter", "bouncer"))
        # Wait for one to be there (cfctl runs a moment a batch, and a
        # batch comes with a decision: seconds apart on a busy host).
        give_up = time.monotonic() + (10 if what == "cfctl" else 4)
        pid = None
        while pid is None and time.monotonic() < give_up:
            if what == "cfctl":
                pid = find_cfctl(adapter_pids(procs()),
                                 min(give_up, time.monotonic() + 2))
            else:
                pid = find(what)
            if pid is None:
                time.sleep(0.01)
        if pid is None:
            kills["missed"] += 1
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            kills[what] += 1
        except ProcessLookupError:
            kills["missed"] += 1
    stop.set()
    t.join()
    print("decisions: %d added, %d deleted, %d cscli runs failed; killed: "
          "%d cfctl, %d adapters, %d bouncers (%d found none)" % (
              count["add"], count["del"], count["cscli failed"],
              kills["cfctl"], kills["adapter"], kills["bouncer"],
              kills["missed"]))
    return 0 if min(kills["cfctl"], kills["adapter"], kills["bouncer"]) else 1


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "agree":
        why = agree(sys.argv[2])
        if why:
            print(why)
            return 1
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "chaos":
        return chaos(float(sys.argv[2]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
