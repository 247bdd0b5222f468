#!/usr/bin/env python3
"""The real `smp-test-server` against the independent Python SMP client (Tests/Peers/smp_peer.py, written from the
spec): the client's CLI scenarios `all` and `bad` in separate processes, then the §3.8 behaviours of the peer's
self-test (END to a replaced subscriber, one message in flight, SUB + PING in one block, quota and the QUOTA marker,
GET vs SUB, the error codes, unparsable transmissions, DELD, versions 6..18, refusals, basic auth), Ed448 with a chain
of 4, a restart from --store after SIGKILL with the address, the queues and the messages kept (an ACKed message gone),
a stalled subscriber that holds up nobody, the connection limit, and the command line's refusals.

usage: smp_test_server.py PATH/TO/smp-test-server
"""

import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.join(HERE, "..", "Peers")
sys.dont_write_bytecode = True
sys.path.insert(0, PEERS)
import smp_peer as smp  # noqa: E402
import test_smp_peer as peer_tests  # noqa: E402  (its §3.8 checks take any server with this interface)

BINARY = None


class RealServer:
    """A `smp-test-server` process: its first stdout line, its stderr log lines as JSON, the interface of
    test_smp_peer's in-process server (address, client(), connections(), log, server.port, server.key_hash)."""

    def __init__(self, *args, store=None, port=0):
        cmd = [BINARY, "--port", str(port)] + (["--store", store] if store else []) + list(args)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"no address line; stderr: {self.proc.stderr.read()}")
        self.info = json.loads(line)
        self.address = self.info["address"]
        self.log = []
        threading.Thread(target=self._read_log, daemon=True).start()
        self.server = self  # test_smp_peer reads s.server.port and s.server.key_hash
        self.port = self.info["port"]
        fp = self.info["fingerprint"]
        self.key_hash = base64.urlsafe_b64decode(fp + "=" * (-len(fp) % 4))

    def _read_log(self):
        for line in self.proc.stderr:
            try:
                self.log.append(json.loads(line))
            except ValueError:
                self.log.append({"event": "text", "line": line})

    def client(self, **kw):
        return smp.SMPClient(self.address, **kw)

    def connections(self):
        time.sleep(0.2)  # the log is read from stderr by another thread
        return [e for e in self.log if e.get("event") == "connection"]

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def with_real_server(fn, *args):
    def run():
        s = RealServer(*args)
        try:
            fn(s)
            if s.proc.poll() is not None:
                raise AssertionError(f"the server exited with {s.proc.returncode}")
        finally:
            s.stop()
    return run


def run_peer_client(address, scenario):
    out = subprocess.run([sys.executable, os.path.join(PEERS, "smp_peer.py"), "client", address, scenario],
                         capture_output=True, text=True, timeout=120)
    steps = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    failed = [s for s in steps if not s.get("ok")]
    if out.returncode != 0 or failed or not steps or not steps[-1].get("done"):
        raise AssertionError(f"{scenario}: exit {out.returncode}, failed steps {failed}, stderr {out.stderr[-2000:]}")
    return steps


def cli_scenarios(*args, expect_chain=2, expect_key="ed25519"):
    def run():
        s = RealServer(*args)
        try:
            peer_tests.eq(s.address, f"smp://{s.info['fingerprint']}@127.0.0.1:{s.port}", "address line")
            peer_tests.eq((s.info["chainLength"], s.info["certificateKey"], s.info["versions"]),
                          (expect_chain, expect_key, [6, 18]), "address line facts")
            steps = run_peer_client(s.address, "all")
            peer_tests.eq(steps[0]["chainLength"], expect_chain, "chain the client saw")
            run_peer_client(s.address, "bad")
            peer_tests.eq(s.proc.poll(), None, "still running after bad input")
        finally:
            s.stop()
    return run


def restart_from_store():
    """A message the server answered OK to survives SIGKILL; so do the queue, its keys and the address; an ACKed
    message does not come back; the quota marker is kept."""
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "smp.store")
        s = RealServer(store=store)
        try:
            c = s.client()
            q = c.create_queue(subscribe=False)
            sk = smp.SignKey()
            smp.expect(c.secure_by_recipient(q, sk), "OK")
            for body in (b"kept across a kill", b"second"):
                smp.expect(c.send(q.snd_id, body, sk), "OK")
            gone = c.create_queue(subscribe=False)
            smp.expect(c.delete(gone), "OK")
            c.close()
            address = s.address
        finally:
            s.kill()
        s = RealServer(store=store)
        try:
            peer_tests.eq(s.info["fingerprint"], smp.b64u(smp.parse_server_address(address)["keyHash"]),
                          "same identity after a restart")
            peer_tests.eq(s.info["queues"], 1, "queues after a restart")
            c = s.client()
            msg = smp.expect(c.get(q), "MSG")
            peer_tests.eq(q.decrypt(msg)["body"], b"kept across a kill", "message after a restart")
            smp.expect(c.ack(q, msg["msgId"]), "OK")
            peer_tests.err(c.send(q.snd_id, b"unsigned"), "AUTH", "the sender key was kept")
            peer_tests.err(c.get(gone), "AUTH", "a deleted queue stays deleted")
            c.close()
        finally:
            s.kill()
        s = RealServer("--quota", "1", store=store)  # the store holds 1 message: the next SEND is over quota
        try:
            c = s.client()
            smp.expect(c.sub(q), "SOK")
            msg = smp.expect(c.next_event(), "MSG")
            peer_tests.eq(q.decrypt(msg)["body"], b"second", "the ACKed message is gone")
            peer_tests.err(c.send(q.snd_id, b"over", sk), "QUOTA", "over quota")
            c.close()
        finally:
            s.kill()
        s = RealServer("--quota", "1", store=store)
        try:
            c = s.client()
            smp.expect(c.sub(q), "SOK")
            msg = smp.expect(c.next_event(), "MSG")
            peer_tests.eq(q.decrypt(msg)["body"], b"second", "un-ACKed message delivered again")
            marker = smp.expect(c.ack(q, msg["msgId"]), "MSG")
            peer_tests.eq(q.decrypt(marker)["kind"], "quota", "the QUOTA marker was kept")
            smp.expect(c.ack(q, marker["msgId"]), "OK")
            smp.expect(c.send(q.snd_id, b"after the marker", sk), "OK")
            peer_tests.eq(q.decrypt(smp.expect(c.next_event(), "MSG"))["body"], b"after the marker", "pushed")
            c.close()
        finally:
            s.stop()
        # A torn last record (a kill in the middle of an append) is dropped, the rest is served.
        with open(store, "ab") as f:
            f.write(b"\x00\x00\x01\x00partial")
        s = RealServer(store=store)
        try:
            peer_tests.eq(s.info["queues"], 1, "a torn tail is dropped")
        finally:
            s.stop()
        with open(store, "wb") as f:
            f.write(b"not a store")
        out = subprocess.run([BINARY, "--store", store], capture_output=True, text=True, timeout=30)
        peer_tests.eq(out.returncode, 3, "an unusable store")
        assert "not an smp-test-server store" in out.stderr, out.stderr


def many_messages_in_order():
    """1,000 messages from one connection to a subscriber on another, each ACKed, with a store: in order, none lost
    or doubled, while a third connection is served; every SEND answered OK."""
    with tempfile.TemporaryDirectory() as d:
        # A quota above the count: a sender faster than the ACKs would otherwise meet the QUOTA marker.
        s = RealServer("--quota", "2000", store=os.path.join(d, "smp.store"))
        try:
            rcv, snd, other = s.client(), s.client(), s.client()
            q = rcv.create_queue(subscribe=True)
            sk = smp.SignKey()
            smp.expect(snd.secure_by_sender(q.snd_id, sk), "OK")
            total = 1000

            sent = []

            def sender():
                for i in range(total):
                    sent.append(snd.send(q.snd_id, b"%d" % i, sk).tag)
            t = threading.Thread(target=sender)
            t.start()
            got = []
            msg = smp.expect(rcv.next_event(), "MSG")
            while True:
                got.append(int(q.decrypt(msg)["body"]))
                if len(got) % 100 == 0:
                    smp.expect(other.ping(), "PONG")
                r = rcv.ack(q, msg["msgId"])
                if r.tag == "MSG":
                    msg = r
                    continue
                smp.expect(r, "OK")
                if len(got) == total:
                    break
                msg = smp.expect(rcv.next_event(), "MSG")
            t.join()
            peer_tests.eq(sent, ["OK"] * total, "every SEND answered OK")
            peer_tests.eq(got, list(range(total)), "in order, none lost or doubled")
            for c in (rcv, snd, other):
                c.close()
        finally:
            s.stop()


STALLED_SUBSCRIBER = r"""
import sys
sys.path.insert(0, sys.argv[1])
import smp_peer as smp
c = smp.SMPClient(sys.argv[2], timeout=60)
for _ in range(int(sys.argv[3])):
    print(c.create_queue(subscribe=True).snd_id.hex(), flush=True)
sys.stdin.readline()
got = 0
while True:
    try:
        smp.expect(c.next_event(timeout=5), "MSG")
    except smp.SMPError:
        break
    got += 1
print(got, flush=True)
"""


def stalled_subscriber():
    """A subscriber whose process is stopped while its queues get more messages than the sockets buffer: every SEND
    is still answered and another connection served at once, and the subscriber gets every message once it reads
    again (the server's writes never wait for one slow reader)."""
    s = RealServer()
    count = 800  # 16 KiB blocks: more than loopback's socket buffers at both ends hold
    sub = subprocess.Popen([sys.executable, "-c", STALLED_SUBSCRIBER, PEERS, s.address, str(count)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        ids = [bytes.fromhex(sub.stdout.readline().strip()) for _ in range(count)]
        os.kill(sub.pid, signal.SIGSTOP)
        snd, other = s.client(timeout=10), s.client(timeout=10)
        started = time.monotonic()
        answers = [snd.send(i, b"x" * 15000).tag for i in ids]
        smp.expect(other.ping(), "PONG")
        elapsed = time.monotonic() - started
        peer_tests.eq(answers, ["OK"] * count, "every SEND answered while the subscriber does not read")
        assert elapsed < 30, f"{elapsed:.1f} s for the SENDs"
        os.kill(sub.pid, signal.SIGCONT)
        sub.stdin.write("\n")
        sub.stdin.flush()
        peer_tests.eq(int(sub.stdout.readline()), count, "every message delivered once the subscriber reads again")
        for c in (snd, other):
            c.close()
    finally:
        os.kill(sub.pid, signal.SIGCONT)
        sub.kill()
        sub.wait()
        s.stop()


def connection_limit():
    s = RealServer("--max-connections", "2")
    try:
        a, b = s.client(), s.client()
        peer_tests.raises("TLS", lambda: s.client(), "a third connection is refused")
        smp.expect(a.ping(), "PONG")
        b.close()
        time.sleep(0.3)
        c = s.client()
        smp.expect(c.ping(), "PONG")
        c.close()
        a.close()
        time.sleep(0.2)
        assert any(e.get("event") == "refused" for e in s.log), s.log
    finally:
        s.stop()


def queue_limit():
    s = RealServer("--max-queues", "1")
    try:
        c = s.client()
        c.create_queue()
        rk = smp.SignKey()
        r = c.request(b"", smp.cmd_new(c.version, rk, smp.x25519_keypair()[1]), rk)
        peer_tests.err(r, "STORE queue limit", "queue limit")
        c.close()
    finally:
        s.stop()


def command_line():
    for args in (["--chain", "5"], ["--listen", "0.0.0.0"], ["--port", "70000"], ["--bogus"]):
        out = subprocess.run([BINARY] + args, capture_output=True, text=True, timeout=30)
        peer_tests.eq(out.returncode, 2, f"{args}")
        peer_tests.eq(out.stdout, "", f"{args}: nothing on stdout")


def main():
    global BINARY
    BINARY = os.path.abspath(sys.argv[1])
    check = peer_tests.check
    check("CLI scenarios all and bad (Ed25519, chain of 2)", cli_scenarios())
    check("CLI scenarios all and bad (Ed448, chain of 4)", cli_scenarios("--ed448", "--chain", "4", expect_chain=4,
                                                                       expect_key="ed448"))
    check("TLS profile and session id", with_real_server(peer_tests.e2e_session_and_profile))
    check("END to the replaced subscriber, re-delivery on a repeated SUB",
          with_real_server(peer_tests.e2e_end_to_replaced_subscriber))
    check("one message in flight until ACK", with_real_server(peer_tests.e2e_one_in_flight))
    check("SUB + PING answered in one block", with_real_server(peer_tests.e2e_batched_sub_ping))
    check("quota, QUOTA marker, writing resumes", with_real_server(peer_tests.e2e_quota, "--quota", "3"))
    check("GET vs SUB", with_real_server(peer_tests.e2e_get_vs_sub))
    check("error codes", with_real_server(peer_tests.e2e_errors))
    check("unparsable transmissions and bad authorization sizes", with_real_server(peer_tests.e2e_bad_transmissions))
    check("DELD to the subscriber", with_real_server(peer_tests.e2e_deld))
    check("versions 6..18", with_real_server(peer_tests.e2e_versions))
    check("refusals: fingerprint, ALPN, version, bad blocks", with_real_server(peer_tests.e2e_refusals))
    check("basic auth for NEW", with_real_server(peer_tests.e2e_basic_auth, "--password", "secret"))
    check("restart from --store after SIGKILL", restart_from_store)
    check("1,000 messages in order between two connections", many_messages_in_order)
    check("a stalled subscriber holds up nobody", stalled_subscriber)
    check("connection limit", connection_limit)
    check("queue limit", queue_limit)
    check("command line refusals", command_line)
    results = peer_tests.RESULTS
    passed = sum(1 for _, ok in results if ok)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
