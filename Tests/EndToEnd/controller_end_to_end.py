#!/usr/bin/env python3
"""End to end: `simplex-host controller --json` (the controller role) in a real process, with the independent Python
host (Tests/Peers/xrcp_host_stub.py) and with our own host (`simplex-host --json`), over 127.0.0.1.

Checks the first and the known pairing, commands and events both ways, compression on and off, a 50 MB file each way
with its hash, a host speaking the Swift encoding, and the refusals: a second host on a used invitation, and a known
host presenting another CA.

usage: controller_end_to_end.py PATH/TO/simplex-host
Prints one line per check and `N passed, M failed` last; exits non-zero on any failure.
"""
import hashlib, json, os, socket, sys, tempfile, time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from host_with_python_controller import Proc  # noqa: E402  (the JSON-lines child process)

STUB = os.path.join(ROOT, "Tests", "Peers", "xrcp_host_stub.py")
PY = sys.executable
FILE_SIZE = 50 * 1000 * 1000
# Listen on loopback only, whatever other addresses this machine has.
LOOPBACK = " addr=127.0.0.1 iface=lo"
passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {str(detail)[:600]}")
    return ok


def resp(m):
    return (m or {}).get("resp") or {}


class Controller(Proc):
    def __init__(self, binary, data, *extra):
        super().__init__([binary, "controller", "--json", "--data", data, "--device-name", "E2E Laptop",
                          "--poll-wait", "1", *extra])
        self.n = 0

    def run(self, cmd, timeout=60):
        self.n += 1
        corr = f"c{self.n}"
        self.send({"corrId": corr, "cmd": cmd})
        return self.wait(lambda m: m.get("corrId") == corr, timeout)

    def event(self, kind, timeout=30):
        return self.wait(lambda m: "corrId" not in m and resp(m).get("type") == kind, timeout)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def refused(port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=3)
    except ConnectionRefusedError:
        return True
    s.close()
    return False


def stub(pairing, uri, files, *extra):
    return Proc([PY, STUB, "--pairing", pairing, "--uri", uri, "--files", files, "--max-wait-ms", "500", *extra])


def with_python_host(binary, tmp, big):
    data = os.path.join(tmp, "controller")
    files = os.path.join(tmp, "stub-files")
    os.makedirs(files)
    pairing = os.path.join(tmp, "stub-pairing.json")
    ctrl = Controller(binary, data)

    # First pairing.
    r = ctrl.run("/start remote host new" + LOOPBACK)
    started = resp(r)
    check("python host: /start remote host new answers remoteHostStarted without remoteHost_",
          started.get("type") == "remoteHostStarted" and "remoteHost_" not in started, r)
    uri = started.get("invitation", "")
    check("python host: the invitation is xrcp:/ with one slash, on loopback",
          uri.startswith("xrcp:/") and uri[6] != "/" and "@127.0.0.1:" in uri, uri)
    host = stub(pairing, uri, files)
    code = ctrl.event("remoteHostSessionCode")
    stub_code = host.wait(lambda m: m.get("event") == "sessionCode")
    check("python host: both sides show the same session code",
          code and stub_code and resp(code).get("sessionCode") == stub_code.get("code"), (code, stub_code))
    new = ctrl.event("newRemoteHost")
    check("python host: newRemoteHost stores host 1", resp(new).get("remoteHost", {}).get("remoteHostId") == 1, new)
    store_path = resp(new).get("remoteHost", {}).get("storePath", "")
    conn = ctrl.event("remoteHostConnected")
    check("python host: remoteHostConnected with compression", resp(conn).get("compression") is True, conn)
    check("python host: a second host on the same invitation is refused", refused(int(started.get("ctrlPort", "0"))))

    # Commands and events both ways.
    r = ctrl.run("/_stub event")
    check("python host: a command runs on the host, answered with its remoteHostId",
          r and r.get("remoteHostId") == 1 and resp(r).get("type") == "cmdOk", r)
    ev = ctrl.event("stubEvent")
    check("python host: the host's event arrives with its remoteHostId", ev and ev.get("remoteHostId") == 1, ev)
    r = ctrl.run("/_stop")
    check("python host: a local-only command is refused with localCommand",
          "localCommand" in json.dumps(r) and resp(r).get("type") == "chatCmdError", r)

    # 50 MB each way, hashes checked.
    t0 = time.time()
    r = ctrl.run(f"/store remote file 1 encrypt=off {big}", timeout=300)
    up = time.time() - t0
    stored = resp(r).get("remoteFileSource", {}).get("filePath")
    check("python host: 50 MB upload answers remoteFileStored", resp(r).get("type") == "remoteFileStored" and stored, r)
    check(f"python host: the uploaded file has the same hash ({FILE_SIZE / up / 1e6:.0f} MB/s)",
          stored and sha256(os.path.join(files, stored)) == sha256(big))
    t0 = time.time()
    request = {"userId": 1, "fileId": 1, "sent": False, "fileSource": {"filePath": stored or "x"}}
    r = ctrl.run("/get remote file 1 " + json.dumps(request), timeout=300)
    down = time.time() - t0
    check("python host: 50 MB download answers cmdOk", resp(r).get("type") == "cmdOk", r)
    cached = os.path.join(data, "remote_hosts", store_path, "simplex_v1_files", stored or "x")
    check(f"python host: the downloaded file has the same hash ({FILE_SIZE / down / 1e6:.0f} MB/s)",
          os.path.exists(cached) and sha256(cached) == sha256(big))

    r = ctrl.run("/stop remote host 1")
    check("python host: /stop remote host answers cmdOk", resp(r).get("type") == "cmdOk", r)
    stopped = host.wait(lambda m: m.get("event") == "stopped")
    check("python host: the host sees the session end", stopped is not None)
    check("python host: no remoteHostStopped after the user's stop", ctrl.event("remoteHostStopped", 2) is None)
    host.close()

    # The known host again, compression off; then the host ends the session.
    r = ctrl.run("/start remote host 1" + LOOPBACK)
    check("python host: a known host's start carries remoteHost_ starting",
          resp(r).get("remoteHost_", {}).get("sessionState", {}).get("type") == "starting", r)
    host = stub(pairing, resp(r).get("invitation", ""), files, "--compression", "off")
    code = ctrl.event("remoteHostSessionCode")
    check("python host: the known host's session code names it", resp(code).get("remoteHost_", {}).get("remoteHostId") == 1,
          code)
    conn = ctrl.event("remoteHostConnected")
    check("python host: connected again without compression", resp(conn).get("compression") is False, conn)
    check("python host: no second newRemoteHost", ctrl.event("newRemoteHost", 1) is None)
    r = ctrl.run("/_stub event")
    check("python host: commands work without compression", resp(r).get("type") == "cmdOk", r)
    check("python host: events too", ctrl.event("stubEvent") is not None)
    host.send({"stop": True})
    stopped = ctrl.event("remoteHostStopped")
    check("python host: the host's stop is remoteHostStopped disconnected",
          resp(stopped).get("rhStopReason", {}).get("type") == "disconnected" and resp(stopped).get("remoteHostId_") == 1,
          stopped)
    host.close()

    # A host presenting another CA than the known one is refused.
    r = ctrl.run("/start remote host 1" + LOOPBACK)
    impostor = stub(os.path.join(tmp, "other-pairing.json"), resp(r).get("invitation", ""), files)
    stopped = ctrl.event("remoteHostStopped")
    check("python host: another CA than the known one is refused (identity)",
          resp(stopped).get("rhStopReason", {}).get("chatError", {}).get("agentError", {}).get("rcpErr", {})
          .get("type") == "identity", stopped)
    check("python host: the impostor did not connect", impostor.wait(lambda m: m.get("event") == "connected", 2) is None)
    impostor.close()

    # A host on an older app (its HELLO negotiates 6.4.0.0): badVersion with its version, and standard error says
    # which side to update and to what.
    r = ctrl.run("/start remote host new" + LOOPBACK)
    old = stub(os.path.join(tmp, "old-pairing.json"), resp(r).get("invitation", ""), files, "--tamper", "old-app-version")
    stopped = ctrl.event("remoteHostStopped")
    check("old host: remoteHostStopped with badVersion 6.4.0.0",
          resp(stopped).get("rhStopReason", {}).get("chatError", {}).get("remoteHostError")
          == {"type": "badVersion", "appVersion": "6.4.0.0"}, stopped)
    line = ctrl.error_line("app version 6.4.0.0", timeout=5)
    check("old host: stderr says to update SimpleX on the host to 6.5.0.12",
          line and "6.4.0.0" in line and "update SimpleX on the host (phone) to 6.5.0.12 or newer" in line, ctrl.errors)
    old.close()

    # A host speaking the Swift encoding (an iPhone): responses and events arrive in the tagged style.
    r = ctrl.run("/start remote host new" + LOOPBACK)
    phone = stub(os.path.join(tmp, "phone-pairing.json"), resp(r).get("invitation", ""), files,
                 "--tamper", "swift-encoding", "--device-name", "iPhone")
    conn = ctrl.event("remoteHostConnected")
    check("swift host: connected as host 2", resp(conn).get("remoteHost", {}).get("remoteHostId") == 2, conn)
    r = ctrl.run("/_stub event")
    check("swift host: the response is converted to the tagged style",
          r and resp(r) == {"type": "cmdOk"} and r.get("remoteHostId") == 2, r)
    ev = ctrl.event("stubEvent")
    check("swift host: the event is converted too", resp(ev) == {"type": "stubEvent", "n": 1}, ev)
    r = ctrl.run("/list remote hosts")
    hosts = resp(r).get("remoteHosts", [])
    check("python host: /list remote hosts shows both, the phone connected",
          [h.get("hostDeviceName") for h in hosts] == ["Stub Phone", "iPhone"]
          and hosts[1].get("sessionState", {}).get("type") == "connected", r)
    ctrl.close()
    phone.close()


def with_our_host(binary, tmp, big):
    data = os.path.join(tmp, "controller2")
    host_data = os.path.join(tmp, "host")
    ctrl = Controller(binary, data)
    host = Proc([binary, "--json", "--data", host_data, "--device-name", "e2e-host"])
    for i, cmd in enumerate(["/create user host", "/_start"]):
        host.send({"corrId": f"h{i}", "cmd": cmd})
        host.wait(lambda m: m.get("corrId") == f"h{i}")

    def pair(label, known):
        r = ctrl.run(("/start remote host 1" if known else "/start remote host new") + LOOPBACK)
        host.send({"corrId": "hc", "cmd": "/connect remote ctrl " + resp(r).get("invitation", "")})
        r = host.wait(lambda m: m.get("corrId") == "hc")
        check(f"our host, {label}: remoteCtrlConnecting", resp(r).get("type") == "remoteCtrlConnecting", r)
        ours = ctrl.event("remoteHostSessionCode")
        theirs = host.wait(lambda m: resp(m).get("type") == "remoteCtrlSessionCode")
        code = resp(theirs).get("sessionCode")
        check(f"our host, {label}: the same session code on both sides", code and resp(ours).get("sessionCode") == code,
              (ours, theirs))
        host.send({"corrId": "hv", "cmd": f"/verify remote ctrl {code}"})
        r = host.wait(lambda m: m.get("corrId") == "hv")
        check(f"our host, {label}: remoteCtrlConnected", resp(r).get("type") == "remoteCtrlConnected", r)
        conn = ctrl.event("remoteHostConnected")
        check(f"our host, {label}: remoteHostConnected", resp(conn).get("remoteHost", {}).get("hostDeviceName")
              == "e2e-host", conn)
        return resp(conn).get("remoteHost", {}).get("storePath", "")

    store_path = pair("first pairing", known=False)
    r = ctrl.run("/users")
    check("our host: /users runs on the host's core",
          resp(r).get("type") == "usersList" and r.get("remoteHostId") == 1, r)
    r = ctrl.run("/_start")
    check("our host: /_start stays local (localCommand)", "localCommand" in json.dumps(r), r)
    t0 = time.time()
    r = ctrl.run(f"/store remote file 1 {big}", timeout=300)
    up = time.time() - t0
    stored = resp(r).get("remoteFileSource", {}).get("filePath")
    check("our host: 50 MB upload stored", stored and "cryptoArgs" not in resp(r).get("remoteFileSource", {}), r)
    check(f"our host: the uploaded file has the same hash ({FILE_SIZE / up / 1e6:.0f} MB/s)",
          stored and sha256(os.path.join(host_data, "files", stored)) == sha256(big))
    # Downloads are served against the core's file records: the uploaded file becomes a note's file first.
    request = {"userId": 1, "fileId": 1, "sent": True, "fileSource": {"filePath": stored or "x"}}
    r = ctrl.run("/get remote file 1 " + json.dumps(request))
    check("our host: a download of a file the core has no record of is its store error",
          resp(r).get("chatError", {}).get("storeError", {}).get("type") == "fileNotFound", r)
    note = [{"fileSource": {"filePath": stored or "x"}, "msgContent": {"type": "file", "text": "big"}, "mentions": {}}]
    r = ctrl.run("/_create *1 json " + json.dumps(note))
    file_id = ((resp(r).get("chatItems") or [{}])[0].get("chatItem", {}).get("file") or {}).get("fileId")
    check("our host: the uploaded file is a note's file", resp(r).get("type") == "newChatItems" and file_id, r)
    request["fileId"] = file_id
    # The upload left a copy in the controller's cache: gone, so that what is checked is what was downloaded.
    cached = os.path.join(data, "remote_hosts", store_path, "simplex_v1_files", stored or "x")
    if os.path.exists(cached):
        os.remove(cached)
    t0 = time.time()
    r = ctrl.run("/get remote file 1 " + json.dumps(request), timeout=300)
    down = time.time() - t0
    check("our host: 50 MB download of the note's file answers cmdOk", resp(r).get("type") == "cmdOk", r)
    check(f"our host: the downloaded file has the same hash ({FILE_SIZE / down / 1e6:.0f} MB/s)",
          os.path.exists(cached) and sha256(cached) == sha256(big))
    r = ctrl.run("/get remote file 1 " + json.dumps({**request, "sent": False}))
    check("our host: the record must match the request (sent) or it is fileNotFound",
          resp(r).get("chatError", {}).get("storeError", {}).get("type") == "fileNotFound", r)
    host.send({"corrId": "hs", "cmd": "/stop remote ctrl"})
    host.wait(lambda m: m.get("corrId") == "hs")
    stopped = ctrl.event("remoteHostStopped")
    check("our host: the host's stop is remoteHostStopped disconnected",
          resp(stopped).get("rhStopReason", {}).get("type") == "disconnected", stopped)

    pair("known pairing", known=True)
    r = ctrl.run("/v")
    check("our host, known pairing: commands run", resp(r).get("type") == "versionInfo", r)
    r = ctrl.run("/stop remote host 1")
    stopped = host.wait(lambda m: resp(m).get("type") == "remoteCtrlStopped")
    check("our host: the controller's stop reaches the host", stopped is not None, stopped)
    ctrl.close()
    host.close()


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big.bin")
        with open(big, "wb") as f:
            for _ in range(FILE_SIZE // 1_000_000):
                f.write(os.urandom(1_000_000))
        with_python_host(binary, tmp, big)
        with_our_host(binary, tmp, big)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
