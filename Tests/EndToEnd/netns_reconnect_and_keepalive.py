#!/usr/bin/env python3
"""End to end in network namespaces this test creates (root only): `--reconnect` (the controller restarts and
announces itself again: the host reconnects within 10 s with no input) and keep-alive silence (the link between
them goes dead without a FIN or RST: the host notices within its keep-alive settings and searches again).

Topology as in netns_discovery_and_diagnostics.py: H (host) 10.231.0.2/24 ↔ C (controller) 10.231.0.1/24 over a veth
pair, multicast routed over it. Nothing leaves these namespaces.

usage: netns_reconnect_and_keepalive.py PATH/TO/simplex-host
"""
import os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_with_python_controller import Proc, check, prepare, resp_type  # noqa: E402
import host_with_python_controller as harness  # noqa: E402
import netns_discovery_and_diagnostics as ns  # noqa: E402


def connected_response(m):
    return resp_type(m) == "remoteCtrlConnected" and "corrId" not in m


def main():
    if os.geteuid() != 0:
        print("needs root to create network namespaces")
        print("0 passed, 1 failed")
        sys.exit(1)
    host_binary = sys.argv[1]
    ns.teardown()
    try:
        ns.setup()
        with tempfile.TemporaryDirectory() as tmp:
            pairing = os.path.join(tmp, "pairing.json")
            host = Proc(ns.in_ns(ns.H, [host_binary, "--json", "--reconnect", "--data", os.path.join(tmp, "host"),
                                        "--discovery-timeout", "5", "--keepalive-idle", "2", "--keepalive-interval",
                                        "1", "--keepalive-probes", "2"]))
            prepare(host)
            ctrl, inv = ns.controller(pairing)
            r = ns.pair(host, inv, "p")
            check("first pairing by link", r and resp_type(r) == "remoteCtrlConnected", r)

            # The controller stops and comes back announcing itself: the host reconnects on its own.
            ctrl.send({"stop": True})
            stopped = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped")
            check("the controller's stop ends the session", stopped is not None, stopped)
            ctrl.close()
            time.sleep(2)  # the host is back to listening for announcements by now
            t0 = time.time()
            ctrl, inv = ns.controller(pairing, "--announce", "224.0.0.251:5227", "--announce-from", "10.231.0.1",
                                      "--announce-interval", "0.5")
            r = host.wait(connected_response, timeout=10)
            elapsed = time.time() - t0
            check("a restarted, announcing controller is reconnected within 10 s with no input",
                  r is not None and elapsed < 10, (r, round(elapsed, 1)))
            up = ctrl.wait(lambda m: m.get("event") == "connected", timeout=5)
            check("the controller sees the session up", up is not None, up)
            ctrl.send({"id": "v", "send": "/v"})
            v = ctrl.wait(lambda m: m.get("id") == "v", timeout=10)
            check("the reconnected session serves commands",
                  v and v.get("json", {}).get("chatResponse", {}).get("result", {}).get("type") == "versionInfo", v)

            # Keep-alive: the link goes dead silently (no FIN, no RST).
            subprocess.run(["ip", "-n", ns.C, "link", "set", f"{ns.TAG}b", "down"], check=True)
            t0 = time.time()
            stopped = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped", timeout=20)
            elapsed = time.time() - t0
            check("a dead link is noticed within the keep-alive settings (2 + 1 × 2 s, with margin)",
                  stopped and stopped["resp"]["rcStopReason"]["type"] == "disconnected" and elapsed < 10,
                  (stopped, round(elapsed, 1)))
            subprocess.run(["ip", "-n", ns.C, "link", "set", f"{ns.TAG}b", "up"], check=True)
            ctrl.p.kill()
            ctrl.close()

            # After the silence, too, it reconnects to the controller announcing again.
            time.sleep(2)
            ctrl, inv = ns.controller(pairing, "--announce", "224.0.0.251:5227", "--announce-from", "10.231.0.1",
                                      "--announce-interval", "0.5")
            r = host.wait(connected_response, timeout=10)
            check("and reconnects after it when the controller announces again", r is not None, r)
            ctrl.send({"stop": True})
            ctrl.close()
            host.send({"corrId": "s", "cmd": "/stop remote ctrl"})
            r = host.wait(lambda m: m.get("corrId") == "s")
            check("the user's /stop pauses reconnecting", r and resp_type(r) == "cmdOk", r)
            host.close()
    finally:
        ns.teardown()
    print(f"{harness.passed} passed, {harness.failed} failed")
    sys.exit(1 if harness.failed else 0)


if __name__ == "__main__":
    main()
