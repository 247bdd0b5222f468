#!/usr/bin/env python3
"""`/_server test` (chat-api.md §4.12) through `simplex-host --json`, against our `smp-test-server` and against the
independent Python SMP server (Tests/Peers/smp_peer.py, written from the spec): success (no `testFailure`), a wrong
fingerprint (the connect step, `unknownCAError` as the agent's certificate check gives), a closed port (the connect
step, `connectError`), a server with a password not given (the createQueue step, `SMP AUTH`), the password given,
a listener that never answers (the connect step, `timeoutError` under the network configuration's connect timeout),
the human form `/smp test`, a server of versions 6-8 (secured with KEY, not SKEY), and XFTP refused as not served yet. Every output line is checked against the official
types with core_scenarios' validator.

usage: server_test.py PATH/TO/simplex-host PATH/TO/smp-test-server
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import api_types  # noqa: E402
import core_scenarios  # noqa: E402
from core_scenarios import Core, check  # noqa: E402

PEER = os.path.join(HERE, "..", "Peers", "smp_peer.py")
WRONG_FP = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="


class Server:
    """A server process that prints its address as the first stdout line; the rest of its output is drained."""

    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"no address line from {cmd}")
        self.address = json.loads(line)["address"]
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def ours(binary, *args):
    return Server([binary, "--quiet", *args])


def independent(*args):
    return Server([sys.executable, PEER, "server", "--quiet", "--end-interval", "0", *args])


def split(address):
    """`smp://fp[:pw]@host:port` → (fp, pw or None, host:port)."""
    rest = address[len("smp://"):]
    creds, hosts = rest.split("@", 1)
    fp, _, pw = creds.partition(":")
    return fp, (pw or None), hosts


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def broker(address, err):
    return {"type": "BROKER", "brokerAddress": address, "brokerErr": err}


def expect(core, name, command, server, failure):
    r = core.run(command, timeout=30)
    want = {"type": "serverTestResult", "user": r.get("user"), "testServer": server}
    if failure is not None:
        want["testFailure"] = failure
    ok = r == want and list(r) == list(want)
    check(f"{name}: {json.dumps(failure) if failure else 'success'}", ok, json.dumps(r)[:600])
    print("     " + json.dumps({k: v for k, v in r.items() if k != "user"}))
    return r


def outcomes(core, label, start):
    """The four outcomes against one kind of server; `start(*args)` runs that server with extra arguments."""
    s = start()
    try:
        fp, _, hosts = split(s.address)
        expect(core, f"{label} success", f"/_server test 1 {s.address}", s.address, None)
        wrong = f"smp://{WRONG_FP}@{hosts}"
        expect(core, f"{label} wrong fingerprint", f"/_server test 1 {wrong}", wrong,
               {"testStep": "connect", "testError": broker(wrong, {"type": "NETWORK",
                                                                   "networkError": {"type": "unknownCAError"}})})
        expect(core, f"{label} human form", f"/smp test {s.address}", s.address, None)
    finally:
        s.stop()
    # Below v9 a sender cannot secure a queue (no SKEY): the recipient's KEY is the secure step.
    old = start("--versions", "6-8")
    try:
        expect(core, f"{label} at versions 6-8 (KEY)", f"/_server test 1 {old.address}", old.address, None)
    finally:
        old.stop()
    p = start("--password", "secret")
    try:
        fp, pw, hosts = split(p.address)
        check(f"{label} password server prints its password", pw == "secret", p.address)
        bare = f"smp://{fp}@{hosts}"
        expect(core, f"{label} password not given", f"/_server test 1 {bare}", bare,
               {"testStep": "createQueue", "testError": {"type": "SMP", "serverAddress": bare, "smpErr": {"type": "AUTH"}}})
        expect(core, f"{label} password given", f"/_server test 1 {p.address}", p.address, None)
        wrong_pw = f"smp://{fp}:wrong@{hosts}"
        expect(core, f"{label} wrong password", f"/_server test 1 {wrong_pw}", wrong_pw,
               {"testStep": "createQueue", "testError": {"type": "SMP", "serverAddress": bare, "smpErr": {"type": "AUTH"}}})
    finally:
        p.stop()


def main():
    host_binary, server_binary = sys.argv[1], sys.argv[2]
    schema = api_types.Schema.installed()
    with tempfile.TemporaryDirectory() as data:
        core = Core(host_binary, data, schema)
        s = core_scenarios.Scenario(core, "4.12")
        s.step("/_server test 1 smp://a2V5@127.0.0.1:1", "chatCmdError:noActiveUser")
        s.step('/_create user {"profile":{"displayName":"alice","fullName":""},"pastTimestamp":false}', "activeUser")
        s.step("/_server test 1 smp://a2V5@127.0.0.1:1", "chatCmdError:chatNotStarted")
        s.step("/_start", "chatStarted")
        s.step("/_server test 2 smp://a2V5@127.0.0.1:1", "chatCmdError:differentActiveUser")
        s.step("/_server test 1 xftp://a2V5@127.0.0.1:1", "chatCmdError:commandError",
               ("not served yet", lambda r: "not served" in r["chatError"]["errorType"]["message"]))
        s.step("/xftp test xftp://a2V5@127.0.0.1:1", "chatCmdError:commandError")

        outcomes(core, "smp-test-server", lambda *a: ours(server_binary, *a))
        outcomes(core, "independent Python server", lambda *a: independent(*a))

        fp = WRONG_FP
        port = closed_port()
        closed = f"smp://{fp}@127.0.0.1:{port}"
        expect(core, "closed port", f"/_server test 1 {closed}", closed,
               {"testStep": "connect", "testError": broker(closed, {"type": "NETWORK", "networkError": {
                   "type": "connectError", "connectError": "connection refused"}})})

        # A listener that accepts and never answers: the TLS handshake waits out the connect timeout (set to 1 s).
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        try:
            s.step('/_network {"tcpConnectTimeout":{"backgroundTimeout":3000000,"interactiveTimeout":1000000}}',
                   "cmdOk")
            quiet = f"smp://{fp}@127.0.0.1:{silent.getsockname()[1]}"
            expect(core, "silent listener", f"/_server test 1 {quiet}", quiet,
                   {"testStep": "connect", "testError": broker(quiet, {"type": "NETWORK",
                                                                       "networkError": {"type": "timeoutError"}})})
        finally:
            silent.close()

        core.run("/_stop")
        core.close()
        for event in core.events:
            for problem in schema.check_message(event):
                core.type_errors.append(f"event {event.get('type')}: {problem}")
    check("every line validates against the simplex-chat 7.0.2 types", not core.type_errors,
          "\n  " + "\n  ".join(core.type_errors[:40]))
    print(f"{core_scenarios.passed} passed, {core_scenarios.failed} failed")
    sys.exit(1 if core_scenarios.failed else 0)


if __name__ == "__main__":
    main()
