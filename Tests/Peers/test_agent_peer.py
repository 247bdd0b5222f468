#!/usr/bin/env python3
"""Self-test and live runs of the Python agent peer (no pytest):
`python3 test_agent_peer.py [PATH/TO/smp-test-server]` (default .build/debug/smp-test-server); last line
`N passed, M failed`.

1. `agent_peer.py selftest`: the agent values of ratchet.json and links.json byte for byte, ratchet behaviours.
2. Two (or three) live agent processes driven through their line protocol, through smp_peer.py's own server and
   through smp-test-server: the invitation handshake, 100 messages each way in order with integrity "ok", receipts
   both ways (asked for on one side, automatic on the other), a contact address with auto-accept, a quota of 5
   (ERR QUOTA, the QUOTA marker, A_QCONT) with the recipient stopped, queues on two different servers, and --
   smp-test-server only, it keeps its store -- a message sent while the server is down and one after it restarted
   from its store on the same port, and a SIGKILL and restart while 100 messages each way are in flight.
"""
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
VENV_PY = os.path.join(ROOT, ".venv", "bin", "python")
PY = VENV_PY if os.path.exists(VENV_PY) else sys.executable
AGENT = os.path.join(HERE, "agent_peer.py")
SMP_PEER = os.path.join(HERE, "smp_peer.py")
MESSAGES = 100
TIMEOUT = 60.0

sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from selftest import RESULTS, check, eq  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """smp_peer.py's server or smp-test-server in a process; `restart` keeps the store and the port."""

    def __init__(self, kind, binary=None, store=None, *args):
        self.kind, self.binary, self.store, self.args, self.port = kind, binary, store, list(args), free_port()
        self.start()

    def start(self):
        if self.kind == "peer":
            cmd = [PY, SMP_PEER, "server", "--quiet", "--end-interval", "0", "--port", str(self.port)] + self.args
        else:
            store = ["--store", self.store] if self.store else []
            cmd = [self.binary, "--quiet", "--port", str(self.port)] + store + self.args
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"{self.kind} server printed no address")
        self.address = json.loads(line)["address"]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


class AgentProc:
    """An agent_peer.py process: JSON lines in, its events collected by a reader thread."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([PY, AGENT, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.events, self.new = [], queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                ev = {"event": "unparsable", "line": line}
            self.events.append(ev)
            self.new.put(ev)
        self.new.put(None)

    def send(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def all(self, name):
        return [e for e in self.events if e.get("event") == name]

    def wait(self, name, count=1, timeout=TIMEOUT):
        deadline = time.time() + timeout
        while len(self.all(name)) < count:
            if time.time() > deadline or self.proc.poll() is not None:
                errors = self.all("error")
                raise AssertionError(f"{len(self.all(name))} of {count} {name!r} events; errors {errors[:5]}; "
                                     f"stderr {self.stderr()[-4000:]}")
            try:
                self.new.get(timeout=0.2)
            except queue.Empty:
                pass
        return self.all(name)

    def stderr(self):
        if self.proc.poll() is None:
            return ""
        return self.proc.stderr.read()

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def invitation_pair(a_server, b_server=None, b_args=()):
    a = AgentProc("create", a_server.address, "--name", "alice")
    link = a.wait("invitation")[0]["link"]
    extra = ["--server", b_server.address] if b_server else []
    b = AgentProc("join", link, "--name", "bob", *extra, *b_args)
    a.wait("connected")
    b.wait("connected")
    eq((a.all("confirmation")[0]["profile"]["displayName"], a.all("connected")[0]["profile"]["displayName"],
        b.all("connected")[0]["profile"]["displayName"]), ("bob", "bob", "alice"), "profiles from x.info")
    return a, b


def check_messages(rcv, texts, what):
    msgs = rcv.wait("message", len(texts))
    eq([m["text"] for m in msgs], texts, f"{what}: texts in order")
    eq({m["integrity"] for m in msgs}, {"ok"}, f"{what}: integrity")
    ids = [m["sndMsgId"] for m in msgs]
    eq(ids, sorted(set(ids)), f"{what}: sndMsgIds increase")
    return msgs


def hundred_each_way(a_server, b_server=None):
    """A asks for a receipt per message, B sends them by itself (--auto-receipts)."""
    a, b = invitation_pair(a_server, b_server, ("--auto-receipts",))
    try:
        t0 = time.time()
        a_texts = [f"from alice {i}" for i in range(MESSAGES)]
        b_texts = [f"from bob {i}" for i in range(MESSAGES)]
        for i in range(MESSAGES):
            a.send(send=a_texts[i])
            b.send(send=b_texts[i])
        got_b = check_messages(b, a_texts, "alice -> bob")
        got_a = check_messages(a, b_texts, "bob -> alice")
        elapsed = time.time() - t0
        eq(got_b[0]["sndMsgId"], 2, "the first A_MSG is message #2 (the confirmation was #1)")
        for m in got_a:
            a.send(receipt=m["sndMsgId"])
        sent_a = [e["msgId"] for e in a.wait("sent", MESSAGES)][:MESSAGES]
        rcpt_a = a.wait("receipt", MESSAGES)
        eq(sorted((r["msgId"], r["status"]) for r in rcpt_a), [(i, "ok") for i in sorted(sent_a)],
           "automatic receipts for alice's messages")
        rcpt_b = b.wait("receipt", MESSAGES)
        sent_b = sorted(m["msgId"] for m in b.all("sent"))
        eq({r["status"] for r in rcpt_b}, {"ok"}, "receipts asked for by alice")
        eq(sorted(r["msgId"] for r in rcpt_b), [i for i in sent_b if i in {m["sndMsgId"] for m in got_a}],
           "one receipt per message of bob's")
        print(f"  {MESSAGES} messages each way in {elapsed:.2f}s", flush=True)
        eq((a.all("error"), b.all("error")), ([], []), "no errors")
    finally:
        a.close()
        b.close()


def address_auto_accept(server):
    o = AgentProc("address", server.address, "--name", "owner")
    r = None
    try:
        link = o.wait("address")[0]["link"]
        assert link.startswith("simplex:/contact#/?v=2-7&smp="), link
        r = AgentProc("join", link, "--name", "rob")
        req = o.wait("request")[0]
        eq(req["profile"]["displayName"], "rob", "the request's x.contact profile")
        r.wait("invitation")
        eq(r.wait("connected")[0]["profile"]["displayName"], "owner", "the requester connects")
        eq(o.wait("connected")[0]["conn"], req["conn"], "the owner connects the accepted contact")
        o.send(send="welcome", conn=req["conn"])
        r.send(send="hello owner")
        eq(r.wait("message")[0]["text"], "welcome", "owner -> requester")
        got = o.wait("message")[0]
        eq((got["text"], got["conn"], got["integrity"]), ("hello owner", req["conn"], "ok"), "requester -> owner")
        r.send(receipt=r.all("message")[0]["sndMsgId"])
        eq(o.wait("receipt")[0]["status"], "ok", "receipt to the owner")
        eq((o.all("error"), r.all("error")), ([], []), "no errors")
    finally:
        o.close()
        if r:
            r.close()


def restart_from_store(binary):
    with tempfile.TemporaryDirectory() as d:
        s = Server("real", binary, os.path.join(d, "smp.store"))
        a = b = None
        try:
            a, b = invitation_pair(s)
            a.send(send="before")
            eq(b.wait("message")[0]["text"], "before", "before the restart")
            s.kill()
            a.send(send="while down")
            time.sleep(1.0)
            s.start()
            a.wait("reconnected")
            b.wait("reconnected")
            b.send(send="after")
            eq(a.wait("message")[0]["text"], "after", "bob -> alice after the restart")
            got = b.wait("message", 2)
            eq([(m["text"], m["integrity"]) for m in got], [("before", "ok"), ("while down", "ok")],
               "alice's message sent while the server was down")
            eq((a.all("error"), b.all("error")), ([], []), "no errors")
        finally:
            for p in (a, b):
                if p:
                    p.close()
            s.stop()


def quota_and_qcont(server):
    """Bob's agent stopped (SIGSTOP) while alice sends more than the quota of 5: ERR QUOTA pauses her queue; once
    bob drains it he reads the QUOTA marker and sends A_QCONT, and the rest follows at once, in order."""
    a, b = invitation_pair(server)
    try:
        b.proc.send_signal(signal.SIGSTOP)
        texts = [f"over quota {i}" for i in range(12)]
        for t in texts:
            a.send(send=t)
        a.wait("quota")
        b.proc.send_signal(signal.SIGCONT)
        a.wait("qcont", timeout=20)
        check_messages(b, texts, "past the quota")
        eq(len(a.wait("sent", len(texts))), len(texts), "every message sent once")
    finally:
        b.proc.send_signal(signal.SIGCONT)
        a.close()
        b.close()


def restart_mid_conversation(binary):
    """SIGKILL while 100 messages each way are on their way, a restart from the store on the same port: every
    message arrives once, in order, with integrity "ok" (a SEND whose OK was lost is sent again and the copy dropped
    by its ciphertext hash)."""
    with tempfile.TemporaryDirectory() as d:
        s = Server("real", binary, os.path.join(d, "smp.store"))
        a = b = None
        try:
            a, b = invitation_pair(s)
            a_texts = [f"a{i}" for i in range(MESSAGES)]
            b_texts = [f"b{i}" for i in range(MESSAGES)]
            for i in range(MESSAGES):
                a.send(send=a_texts[i])
                b.send(send=b_texts[i])
            b.wait("message", 3)
            s.kill()
            at_kill = (len(b.all("message")), len(a.all("message")), len(a.all("sent")), len(b.all("sent")))
            time.sleep(0.5)
            s.start()
            check_messages(b, a_texts, "alice -> bob across the restart")
            check_messages(a, b_texts, "bob -> alice across the restart")
            eq((len(a.all("reconnected")) >= 1, len(b.all("reconnected")) >= 1), (True, True), "both reconnected")
            eq((a.all("error"), b.all("error")), ([], []), "no errors")
            print(f"  at the kill: bob had {at_kill[0]}, alice {at_kill[1]}; sent (OK) alice {at_kill[2]}, bob "
                  f"{at_kill[3]}", flush=True)
        finally:
            for p in (a, b):
                if p:
                    p.close()
            s.stop()


def with_server(kind, fn, binary=None, *args):
    def run():
        s = Server(kind, binary, None, *args)
        try:
            fn(s)
        finally:
            s.stop()
    return run


def two_servers(binary):
    s1, s2 = Server("real", binary), Server("peer")
    try:
        hundred_each_way(s1, s2)
    finally:
        s1.stop()
        s2.stop()


def selftest():
    out = subprocess.run([PY, AGENT, "selftest"], capture_output=True, text=True, timeout=300)
    print("\n".join("  " + line for line in out.stdout.splitlines()), flush=True)
    eq(out.returncode, 0, f"agent_peer.py selftest ({out.stderr[-1500:]})")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "smp-test-server")
    check("agent_peer.py selftest", selftest)
    check("smp_peer server: invitation, 100 messages each way, receipts", with_server("peer", hundred_each_way))
    check("smp_peer server: contact address with auto-accept", with_server("peer", address_auto_accept))
    check("smp_peer server, quota 5: ERR QUOTA, the QUOTA marker, A_QCONT",
          with_server("peer", quota_and_qcont, None, "--quota", "5"))
    if not os.path.exists(binary):
        check(f"smp-test-server at {binary}", lambda: eq(os.path.exists(binary), True, "binary"))
    else:
        check("smp-test-server: invitation, 100 messages each way, receipts",
              with_server("real", hundred_each_way, binary))
        check("smp-test-server: contact address with auto-accept", with_server("real", address_auto_accept, binary))
        check("smp-test-server, quota 5: ERR QUOTA, the QUOTA marker, A_QCONT",
              with_server("real", quota_and_qcont, binary, "--quota", "5"))
        check("two servers: alice's queue on smp-test-server, bob's on smp_peer's", lambda: two_servers(binary))
        check("smp-test-server: a message while it is down, one after its restart from the store",
              lambda: restart_from_store(binary))
        check("smp-test-server: SIGKILL and a restart while 100 messages each way are in flight",
              lambda: restart_mid_conversation(binary))
    failed = sum(1 for _, ok in RESULTS if not ok)
    print(f"{len(RESULTS) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
