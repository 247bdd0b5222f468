#!/usr/bin/env python3
"""End to end in network namespaces this test creates (root only): `simplex-host controller` announcing its invitation
by multicast to known hosts — the independent Python host and our own host discover it and connect. Every datagram
on the group is watched by a listener of the test's own: each is a sealed 985-byte announcement, never the invitation
in clear; announcing stops once a host connects and starts again for the next session.

Topology: namespace H (hosts) and C (our controller) joined by a veth pair 10.231.0.2/24 ↔ 10.231.0.1/24, with the
multicast range routed over it. Nothing leaves these namespaces.

usage: netns_controller_multicast.py PATH/TO/simplex-host
"""
import os, subprocess, sys, tempfile, time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from host_with_python_controller import PY, Proc  # noqa: E402

STUB = os.path.join(ROOT, "Tests", "Peers", "xrcp_host_stub.py")
TAG = f"sxm{os.getpid() % 100000}"
H, C = f"{TAG}h", f"{TAG}c"
GROUP = "224.0.0.251:5227"
passed, failed = 0, 0

# Joins the group beside the host and reports every datagram: its size, source, and whether it holds the invitation's
# text in clear.
LISTENER = r"""
import json, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("224.0.0.251", 5227))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton("224.0.0.251") + socket.inet_aton(sys.argv[1]))
s.settimeout(0.2)
end = time.time() + float(sys.argv[2])
while time.time() < end:
    try:
        data, src = s.recvfrom(4096)
    except socket.timeout:
        continue
    clear = any(marker in data for marker in (b"xrcp", b"ssig", b"appVersionRange", b"%7B"))
    print(json.dumps({"size": len(data), "src": src[0], "t": time.time(), "clear": clear}), flush=True)
"""


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {str(detail)[:600]}")
    return ok


def sh(*args):
    subprocess.run(args, check=True)


def setup():
    sh("ip", "netns", "add", H)
    sh("ip", "netns", "add", C)
    sh("ip", "link", "add", f"{TAG}a", "type", "veth", "peer", "name", f"{TAG}b")
    sh("ip", "link", "set", f"{TAG}a", "netns", H)
    sh("ip", "link", "set", f"{TAG}b", "netns", C)
    for ns, dev, addr in ((H, f"{TAG}a", "10.231.0.2/24"), (C, f"{TAG}b", "10.231.0.1/24")):
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", ns, "addr", "add", addr, "dev", dev)
        sh("ip", "-n", ns, "link", "set", dev, "up", "multicast", "on")
        sh("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", dev)


def teardown():
    for ns in (H, C):
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def in_ns(ns, args):
    return ["ip", "netns", "exec", ns] + args


def resp(m):
    return (m or {}).get("resp") or {}


class Controller(Proc):
    def __init__(self, binary, data):
        super().__init__(in_ns(C, [binary, "controller", "--json", "--data", data, "--device-name", "NS Laptop",
                                   "--poll-wait", "1", "--multicast", GROUP, "--announce-interval", "0.3",
                                   "--announce-count", "100"]))
        self.n = 0

    def run(self, cmd, timeout=30):
        self.n += 1
        corr = f"c{self.n}"
        self.send({"corrId": corr, "cmd": cmd})
        return self.wait(lambda m: m.get("corrId") == corr, timeout)

    def event(self, kind, timeout=30):
        return self.wait(lambda m: "corrId" not in m and resp(m).get("type") == kind, timeout)


EVERY_DATAGRAM = []


def datagrams(listener):
    """The datagrams reported since the last call (all of them are kept for the final check)."""
    out = []
    while not listener.lines.empty():
        out.append(listener.lines.get())
    EVERY_DATAGRAM.extend(out)
    return out


def main():
    if os.geteuid() != 0:
        print("needs root to create network namespaces")
        print("0 passed, 1 failed")
        sys.exit(1)
    binary = sys.argv[1]
    teardown()
    try:
        setup()
        with tempfile.TemporaryDirectory() as tmp:
            pairing = os.path.join(tmp, "stub.json")
            files = os.path.join(tmp, "files")
            os.makedirs(files)
            ctrl = Controller(binary, os.path.join(tmp, "controller"))
            listener = Proc(in_ns(H, [PY, "-c", LISTENER, "10.231.0.2", "120"]))

            # A new host cannot be announced to.
            r = ctrl.run("/start remote host new")
            check("the invitation names the controller's veth address", "@10.231.0.1:" in resp(r).get("invitation", ""), r)
            stub = Proc(in_ns(H, [PY, STUB, "--pairing", pairing, "--uri", resp(r).get("invitation", ""), "--files", files]))
            check("first pairing across namespaces", ctrl.event("remoteHostConnected") is not None, stub.seen)
            ctrl.run("/stop remote host 1")
            stub.close()
            time.sleep(0.5)
            check("no announcement for a session started by invitation", datagrams(listener) == [])

            # The known Python host discovers the announcement and connects; announcing then stops.
            r = ctrl.run("/start remote host 1 multicast=on")
            check("/start remote host 1 multicast=on", resp(r).get("type") == "remoteHostStarted", r)
            stub = Proc(in_ns(H, [PY, STUB, "--pairing", pairing, "--discover", GROUP, "--discover-iface", "10.231.0.2",
                                  "--discover-timeout", "20", "--files", files]))
            found = stub.wait(lambda m: m.get("event") in ("found", "stopped"), 25)
            check("the Python host finds the announcement, 985 bytes from the invitation's address",
                  found and found.get("event") == "found" and found.get("packetSize") == 985
                  and found.get("from") == "10.231.0.1", found)
            check("it carries the invitation of this session", found and found.get("uri") == resp(r).get("invitation"),
                  found)
            conn = ctrl.event("remoteHostConnected")
            check("the discovered host connects", conn and resp(conn).get("remoteHost", {}).get("remoteHostId") == 1, conn)
            time.sleep(0.2)
            before = len(datagrams(listener))
            time.sleep(1.5)
            after = datagrams(listener)
            check("announcing stops once the host is connected", len(after) == 0, after)
            r = ctrl.run("/_stub event")
            check("the discovered session runs commands", resp(r).get("type") == "cmdOk", r)
            ctrl.run("/stop remote host 1")
            stub.close()
            check("packets were sent while waiting", before >= 1, before)

            # Our own host: paired by invitation first, then found by multicast in a new session.
            host = Proc(in_ns(H, [binary, "--json", "--data", os.path.join(tmp, "host"), "--device-name", "ns-host",
                                  "--discovery-timeout", "20"]))
            for i, cmd in enumerate(["/create user host", "/_start"]):
                host.send({"corrId": f"h{i}", "cmd": cmd})
                host.wait(lambda m: m.get("corrId") == f"h{i}")

            def verify_on_host():
                ev = host.wait(lambda m: resp(m).get("type") == "remoteCtrlSessionCode")
                host.send({"corrId": "v", "cmd": "/verify remote ctrl " + resp(ev).get("sessionCode", "")})
                return host.wait(lambda m: m.get("corrId") == "v")

            r = ctrl.run("/start remote host new")
            host.send({"corrId": "c", "cmd": "/connect remote ctrl " + resp(r).get("invitation", "")})
            host.wait(lambda m: m.get("corrId") == "c")
            verify_on_host()
            conn = ctrl.event("remoteHostConnected")
            check("our host pairs by invitation as host 2", resp(conn).get("remoteHost", {}).get("remoteHostId") == 2, conn)
            ctrl.run("/stop remote host 2")
            host.wait(lambda m: resp(m).get("type") == "remoteCtrlStopped")
            datagrams(listener)

            r = ctrl.run("/start remote host 2 multicast=on")
            host.send({"corrId": "f", "cmd": "/find remote ctrl"})
            host.wait(lambda m: m.get("corrId") == "f")
            found = host.wait(lambda m: resp(m).get("type") == "remoteCtrlFound", 20)
            check("our host finds the announcement", found is not None, found)
            if found:
                rid = resp(found)["remoteCtrl"]["remoteCtrlId"]
                host.send({"corrId": "k", "cmd": f"/confirm remote ctrl {rid}"})
                host.wait(lambda m: m.get("corrId") == "k")
                r = verify_on_host()
                check("our host connects to the announcing controller", resp(r).get("type") == "remoteCtrlConnected", r)
                conn = ctrl.event("remoteHostConnected")
                check("the controller sees host 2 connected", conn is not None, conn)
                r = ctrl.run("/users")
                check("and runs commands on it", resp(r).get("type") == "usersList", r)
            seen = datagrams(listener)
            check("announcing started again for the new session", len(seen) >= 1, seen)
            ctrl.close()
            host.close()
            listener.close()
            datagrams(listener)
            check("no announcement is ever sent in clear: every datagram is a sealed 985-byte packet",
                  EVERY_DATAGRAM and all(d.get("size") == 985 and d.get("clear") is False and d.get("src") == "10.231.0.1"
                                         for d in EVERY_DATAGRAM), EVERY_DATAGRAM)
    finally:
        teardown()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
