#!/usr/bin/env python3
"""End to end in network namespaces this test creates (root only): multicast discovery of a known controller, and
the diagnostics of failed connections (refused, outside every local network, through a VPN-like interface).

Topology: namespace H (the host) and C (the controller) joined by a veth pair 10.231.0.2/24 ↔ 10.231.0.1/24, with the
multicast range routed over it. Nothing leaves these namespaces.

usage: netns_discovery_and_diagnostics.py PATH/TO/simplex-host
"""
import json, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_with_python_controller import CONTROLLER, PY, Proc, check, prepare, resp_type  # noqa: E402
import host_with_python_controller as harness  # noqa: E402

TAG = f"sxh{os.getpid() % 100000}"
H, C = f"{TAG}h", f"{TAG}c"


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
    # A VPN-like interface in H, named like WireGuard's (a veth whose other end is down), routing 10.234.0.0/24
    # nowhere.
    sh("ip", "-n", H, "link", "add", "wg-test0", "type", "veth", "peer", "name", f"{TAG}w")
    sh("ip", "-n", H, "addr", "add", "10.233.0.2/24", "dev", "wg-test0")
    sh("ip", "-n", H, "link", "set", "wg-test0", "up")
    sh("ip", "-n", H, "route", "add", "10.234.0.0/24", "dev", "wg-test0")


def teardown():
    for ns in (H, C):
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def in_ns(ns, args):
    return ["ip", "netns", "exec", ns] + args


def controller(pairing, *extra, env=None):
    ctrl = Proc(in_ns(C, [PY, CONTROLLER, "--pairing", pairing, "--listen", "10.231.0.1", "--timeout", "20", *extra]), env=env)
    return ctrl, ctrl.wait(lambda m: m.get("event") in ("invitation", "error"))


def pair(host, inv, tag):
    host.send({"corrId": tag, "cmd": "/connect remote ctrl " + inv["uri"]})
    host.wait(lambda m: m.get("corrId") == tag)
    ev = host.wait(lambda m: resp_type(m) == "remoteCtrlSessionCode")
    host.send({"corrId": tag + "v", "cmd": "/verify remote ctrl " + ev["resp"]["sessionCode"]})
    return host.wait(lambda m: m.get("corrId") == tag + "v")


def connection_failure(host, uri, tag):
    host.send({"corrId": tag, "cmd": "/connect remote ctrl " + uri})
    host.wait(lambda m: m.get("corrId") == tag)
    return host.wait(lambda m: resp_type(m) == "remoteCtrlStopped", timeout=15)


def main():
    if os.geteuid() != 0:
        print("needs root to create network namespaces")
        print("0 passed, 1 failed")
        sys.exit(1)
    host_binary = sys.argv[1]
    teardown()
    try:
        setup()
        with tempfile.TemporaryDirectory() as tmp:
            pairing = os.path.join(tmp, "pairing.json")
            host = Proc(in_ns(H, [host_binary, "--json", "--data", os.path.join(tmp, "host"), "--connect-timeout", "2",
                                  "--discovery-timeout", "20"]))
            prepare(host)
            # First pairing by invitation over the veth link.
            ctrl, inv = controller(pairing)
            r = pair(host, inv, "p")
            check("pairing across namespaces", r and resp_type(r) == "remoteCtrlConnected", r)
            ctrl.send({"stop": True})
            host.wait(lambda m: resp_type(m) == "remoteCtrlStopped")
            ctrl.close()

            # Discovery: the known controller announces on 224.0.0.251:5227 from its invitation address.
            ctrl, inv = controller(pairing, "--announce", "224.0.0.251:5227", "--announce-from", "10.231.0.1",
                                   "--announce-interval", "0.3")
            host.send({"corrId": "f", "cmd": "/find remote ctrl"})
            r = host.wait(lambda m: m.get("corrId") == "f")
            check("/find remote ctrl answers cmdOk", r and resp_type(r) == "cmdOk", r)
            found = host.wait(lambda m: resp_type(m) == "remoteCtrlFound", timeout=20)
            check("the announcement is found", found and found["resp"]["compatible"] is True, found)
            if found:
                rid = found["resp"]["remoteCtrl"]["remoteCtrlId"]
                host.send({"corrId": "c", "cmd": f"/confirm remote ctrl {rid}"})
                r = host.wait(lambda m: m.get("corrId") == "c")
                check("/confirm remote ctrl connects", r and resp_type(r) == "remoteCtrlConnecting", r)
                ev = host.wait(lambda m: resp_type(m) == "remoteCtrlSessionCode")
                if ev:
                    host.send({"corrId": "cv", "cmd": "/verify remote ctrl " + ev["resp"]["sessionCode"]})
                    r = host.wait(lambda m: m.get("corrId") == "cv")
                    check("the discovered session connects", r and resp_type(r) == "remoteCtrlConnected", r)
            ctrl.send({"stop": True})
            host.wait(lambda m: resp_type(m) == "remoteCtrlStopped")
            ctrl.close()

            # Diagnostics. Refused: the controller is gone, its address answers with RST.
            ctrl, inv = controller(os.path.join(tmp, "p2.json"))
            ctrl.send({"stop": True})
            ctrl.close()
            stop = connection_failure(host, inv["uri"], "d1")
            check("refused: says nothing listens there", stop and "connection refused" in json.dumps(stop), stop)

            # Outside every local network: an invitation naming an address H has no route to.
            ctrl, inv = controller(os.path.join(tmp, "p3.json"), "--address", "10.232.0.1")
            stop = connection_failure(host, inv["uri"], "d2")
            check("no route: says the address is outside every local network",
                  stop and "outside every local network" in json.dumps(stop), stop)
            ctrl.send({"stop": True})
            ctrl.close()

            # Through a VPN-like interface: the route to the address goes through wg-test0.
            ctrl, inv = controller(os.path.join(tmp, "p4.json"), "--address", "10.234.0.1")
            stop = connection_failure(host, inv["uri"], "d3")
            check("VPN route: names the interface", stop and "wg-test0" in json.dumps(stop) and "VPN" in json.dumps(stop), stop)
            ctrl.send({"stop": True})
            ctrl.close()
            # Clock skew: the controller's clock is 3 hours ahead, so its certificate is not valid yet for the host.
            ctrl, inv = controller(os.path.join(tmp, "p5.json"), env=dict(os.environ, XRCP_PEER_CLOCK_SKEW_HOURS="3"))
            stop = connection_failure(host, inv["uri"], "d4")
            check("clock skew: says the clocks differ", stop and "hours ahead" in json.dumps(stop), stop)
            ctrl.send({"stop": True})
            ctrl.close()

            # The CA does not match the invitation: identity.
            ctrl, inv = controller(os.path.join(tmp, "p6.json"), "--tamper", "wrong-ca-in-invitation")
            stop = connection_failure(host, inv["uri"], "d5")
            check("CA mismatch: RCP identity", stop and '"identity"' in json.dumps(stop), stop)
            ctrl.send({"stop": True})
            ctrl.close()
            host.close()
            time.sleep(0.5)
            hints = "\n".join(host.errors)
            check("the command line prints a hint for each failure", hints.count("could not connect") + hints.count("certificate") >= 5,
                  hints)
    finally:
        teardown()
    print(f"{harness.passed} passed, {harness.failed} failed")
    sys.exit(1 if harness.failed else 0)


if __name__ == "__main__":
    main()
