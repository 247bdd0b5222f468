#!/usr/bin/env python3
"""End to end, negative: the real `simplex-host --json` against the independent Python controller misbehaving on
purpose (its --tamper modes). Each fault must be refused with its spec error, and the store left unchanged.

usage: host_refusals.py PATH/TO/simplex-host
"""
import json, os, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_with_python_controller import CONTROLLER, PY, Proc, check, prepare, resp_type  # noqa: E402
import host_with_python_controller as harness  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Peers"))
import xrcp_controller as peer  # noqa: E402  (the spec's encodings and signatures)


def controller(pairing, *tamper):
    args = [PY, CONTROLLER, "--pairing", pairing, "--listen", "127.0.0.1", "--timeout", "20"]
    for t in tamper:
        args += ["--tamper", t]
    ctrl = Proc(args)
    return ctrl, ctrl.wait(lambda m: m.get("event") == "invitation")


def stored(host, tag):
    host.send({"corrId": tag, "cmd": "/list remote ctrls"})
    r = host.wait(lambda m: m.get("corrId") == tag)
    return (r or {}).get("resp", {}).get("remoteCtrls")


def connect_and_code(host, inv, tag):
    host.send({"corrId": tag, "cmd": "/connect remote ctrl " + inv["uri"]})
    r = host.wait(lambda m: m.get("corrId") == tag)
    ev = host.wait(lambda m: resp_type(m) in ("remoteCtrlSessionCode", "remoteCtrlStopped"))
    return r, ev


def main():
    host_binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        host = Proc([host_binary, "--json", "--data", os.path.join(tmp, "host")])
        prepare(host)

        # A legacy idsig (signature over standard base64): badInvitation, nothing stored.
        ctrl, inv = controller(os.path.join(tmp, "p1.json"), "legacy-idsig")
        host.send({"corrId": "a", "cmd": "/connect remote ctrl " + inv["uri"]})
        r = host.wait(lambda m: m.get("corrId") == "a")
        check("legacy idsig: badInvitation", r and "badInvitation" in json.dumps(r), r)
        line = host.error_line("signed the way", timeout=5) or ""
        check("legacy idsig: stderr names the old signing and the version to update the desktop to",
              "signed the way SimpleX apps before 6.5.0.12" in line and "update SimpleX on the controller" in line
              and "changed" not in line, host.errors)
        ctrl.close()

        # Invitations signed here from the spec's rules (Tests/Peers), to a port nothing listens on: each refusal
        # keeps the reference's tag on stdout and names its own reason on stderr.
        def refuse(tag, uri, tagged, reason):
            before = len(host.errors)
            host.send({"corrId": tag, "cmd": "/connect remote ctrl " + uri})
            r = host.wait(lambda m: m.get("corrId") == tag)
            got = (r or {}).get("resp", {}).get("chatError", {}).get("remoteCtrlError", {})
            deadline = time.time() + 5
            while len(host.errors) == before and time.time() < deadline:
                time.sleep(0.05)
            said = host.errors[before:]
            check(f"{tag}: {tagged} on the wire", got == tagged, r)
            check(f"{tag}: stderr says {reason!r}", any(reason in line for line in said), said)

        seeds = [bytes([i]) * 32 for i in range(1, 4)]
        def signed(app, legacy=False):
            ts = int(time.time())
            while True:
                uri = peer.render_invitation(bytes(range(32)), "127.0.0.1", 9, app, ts, seeds[0], seeds[1],
                                             peer.x25519_pub(seeds[2]), legacy_idsig=legacy)
                if not legacy or not peer.legacy_equals_current(uri):
                    return uri
                ts += 1
        old = peer.controller_app_info("Old Desktop", True, "6.4.0", "6.4.5.1")
        newer = peer.controller_app_info("New Desktop", True, "6.6.0.1", "6.6.2")
        refuse("v1", signed(old, legacy=True), {"type": "badInvitation"},
               "apps before 6.5.0.12 sign it (it accepts up to 6.4.5.1): update SimpleX on the controller (desktop) to 6.5.0.12")
        refuse("v2", signed(old), {"type": "badVersion", "appVersion": "6.4.5.1"},
               "update SimpleX on the controller (desktop) to 6.5.0.12 or newer")
        refuse("v3", signed(newer), {"type": "badVersion", "appVersion": "6.6.2"}, "update simplex-host")
        good = signed(peer.controller_app_info("Desktop", True))
        refuse("v4", good.replace("&ts=", "&tz="), {"type": "badInvitation"}, "invitation has no ts")
        refuse("v5", good.replace("Desktop", "Laptop"), {"type": "badInvitation"}, "ssig) does not verify")
        refuse("v6", good[:good.index("&idsig=") + 7] + peer.b64u(bytes(64)), {"type": "badInvitation"},
               "idsig) does not verify")

        # A tampered invitation: badInvitation.
        ctrl, inv = controller(os.path.join(tmp, "p2.json"))
        bad = inv["uri"].replace("Test%20Desktop", "Evil%20Desktop")
        host.send({"corrId": "b", "cmd": "/connect remote ctrl " + bad})
        r = host.wait(lambda m: m.get("corrId") == "b")
        check("tampered invitation: badInvitation", r and "badInvitation" in json.dumps(r), r)
        ctrl.close()

        # The invitation names a CA the controller does not present: TLS identity, connectionFailed.
        ctrl, inv = controller(os.path.join(tmp, "p3.json"), "wrong-ca-in-invitation")
        r, ev = connect_and_code(host, inv, "c")
        check("wrong CA: remoteCtrlStopped connectionFailed with RCP identity",
              ev and resp_type(ev) == "remoteCtrlStopped" and '"identity"' in json.dumps(ev)
              and ev["resp"]["rcStopReason"]["type"] == "connectionFailed", ev)
        ctrl.close()

        # A wrong session code: pRESessionCode, setupFailed, no HELLO, nothing stored.
        ctrl, inv = controller(os.path.join(tmp, "p4.json"))
        r, ev = connect_and_code(host, inv, "d")
        host.send({"corrId": "d2", "cmd": "/verify remote ctrl 12345"})
        r = host.wait(lambda m: m.get("corrId") == "d2")
        check("wrong session code: pRESessionCode", r and "pRESessionCode" in json.dumps(r), r)
        stop = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped")
        check("wrong session code: remoteCtrlStopped setupFailed", stop and stop["resp"]["rcStopReason"]["type"] == "setupFailed", stop)
        ctrl.close()
        check("nothing stored after the failed pairings", stored(host, "s1") == [], stored(host, "s1x"))

        # An oversized controller HELLO: the session fails, nothing stored.
        ctrl, inv = controller(os.path.join(tmp, "p5.json"), "oversized-block")
        r, ev = connect_and_code(host, inv, "e")
        host.send({"corrId": "e2", "cmd": "/verify remote ctrl " + ev["resp"]["sessionCode"]})
        r = host.wait(lambda m: m.get("corrId") == "e2")
        stop = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped", timeout=5)
        # The extra byte is the start of the HTTP/2 stream as far as the host can tell: the preface check fails
        # before the session counts as up, so /verify fails and nothing is stored.
        check("oversized controller HELLO: /verify fails", r is not None and resp_type(r) == "chatCmdError", r)
        check("oversized controller HELLO: setupFailed", stop is not None and stop["resp"]["rcStopReason"]["type"] == "setupFailed", stop)
        check("oversized controller HELLO: nothing stored", stored(host, "e4") == [], None)
        ctrl.close()
        host.send({"corrId": "e3", "cmd": "/stop remote ctrl"})
        host.wait(lambda m: m.get("corrId") == "e3")

        # A good session, then misbehaving commands: each answered with its protocol error, the session goes on.
        ctrl, inv = controller(os.path.join(tmp, "p6.json"))
        r, ev = connect_and_code(host, inv, "f")
        host.send({"corrId": "f2", "cmd": "/verify remote ctrl " + ev["resp"]["sessionCode"]})
        r = host.wait(lambda m: m.get("corrId") == "f2")
        check("good session connects", r and resp_type(r) == "remoteCtrlConnected", r)
        ctrl.wait(lambda m: m.get("event") == "connected")
        cases = [
            ("wrong-session-key-signature", "ctrlAuth"), ("wrong-id-key-signature", "ctrlAuth"),
            # The ciphertext is flipped before signing: the signatures hold and decryption fails.
            ("corrupt-body", "decrypt"), ("replay", "pREDuplicateId"),
            ("wrong-session-code", "pRESessionCode"), ("uncompressed", "invalidBody"),
        ]
        for i, (mode, expected) in enumerate(cases):
            ctrl.send({"id": f"t{i}", "send": "/v", "tamper": mode})
            replies = []
            for _ in range(2):
                m = ctrl.wait(lambda m: m.get("event") in ("response", "error") and str(m.get("id", "")).startswith(f"t{i}"), timeout=5)
                if m:
                    replies.append(m)
            check(f"{mode}: refused with {expected}", any(expected in json.dumps(m) for m in replies), replies)
        ctrl.send({"id": "ok", "send": "/v"})
        r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "ok")
        check("the session goes on after the refusals", r and r["json"].get("type") == "chatResponse", r)
        ctrl.send({"id": "ro", "send": "/v", "tamper": "reorder"})
        got = [ctrl.wait(lambda m: m.get("event") == "response" and str(m.get("id", "")).startswith("ro"), timeout=5) for _ in range(2)]
        check("reordered commands are both served", all(g and g["json"].get("type") == "chatResponse" for g in got), got)
        # Last, since a jump past the window leaves the controller's counter out of reach for good (as with the
        # reference host, which does not advance its counter either).
        ctrl.send({"id": "sk", "send": "/v", "tamper": "skip-ids"})
        m = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "sk", timeout=5)
        check("skip-ids: refused with manySkippedIds", m and "manySkippedIds" in json.dumps(m), m)
        ctrl.send({"stop": True})
        ctrl.close()
        host.close()
    print(f"{harness.passed} passed, {harness.failed} failed")
    sys.exit(1 if harness.failed else 0)


if __name__ == "__main__":
    main()
