#!/usr/bin/env python3
"""End to end: how sessions of the real `simplex-host --json` go and end, against the independent Python controller
on 127.0.0.1 — Desktop's first commands with a long poll beside them, a recorded file downloaded, every command of xrcp.md §15.4 refused remotely,
the local side locked out during a session and working after it, a controller that stops fetching events, a
controller killed mid-command and mid-file, and the host stopped by SIGTERM.

usage: host_session_ends.py PATH/TO/simplex-host [HOST OPTION...]
Options after the binary go to every host started, e.g. `--core-lib .build/debug/libsimplex.so` to run the same
sessions on a libsimplex loaded at run time.
"""
import glob, json, os, signal, sqlite3, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_with_python_controller import CONTROLLER, PY, Proc, check, prepare, resp_type  # noqa: E402
import host_with_python_controller as harness  # noqa: E402

# xrcp.md §15.4, one line per command (the catalog's and the older spellings the catalog does not hold).
NEVER_FORWARDED = [
    "/_start", "/_stop", "/_app activate restore=on", "/_app suspend 1",
    '/set file paths {"appFilesFolder":"/tmp/x","appTempFolder":"/tmp/x","appAssetsFolder":"/tmp/x"}',
    "/_files_encrypt on", "/_temp_folder /tmp/x", "/files_folder /tmp/x", "/remote_hosts_folder /tmp/x",
    '/_db export {"archivePath":"/tmp/x.zip"}', '/_db import {"archivePath":"/tmp/x.zip"}', "/_db delete",
    '/_db encryption {"currentKey":"","newKey":"k"}', "/db test key k", "/db export", "/sql chat select 1",
    "/sql agent select 1", "/sql slow", "/_network {}", "/network", "/set device name evil", "/quit",
    "/list remote hosts", "/start remote host new", "/switch remote host local", "/stop remote host new",
    "/delete remote host 1", "/store remote file 1 /etc/passwd", "/get remote file 1 {}",
    "/connect remote ctrl xrcp:/x", "/find remote ctrl", "/confirm remote ctrl 1", "/verify remote ctrl 1",
    "/list remote ctrls", "/stop remote ctrl", "/delete remote ctrl 1",
]


def start_controller(pairing, *extra):
    ctrl = Proc([PY, CONTROLLER, "--pairing", pairing, "--device-name", "Test Desktop", "--listen", "127.0.0.1",
                 "--timeout", "30", *extra])
    return ctrl, ctrl.wait(lambda m: m.get("event") == "invitation")


def connect(host, ctrl, inv, tag):
    host.send({"corrId": tag, "cmd": "/connect remote ctrl " + inv["uri"]})
    host.wait(lambda m: m.get("corrId") == tag)
    ev = host.wait(lambda m: resp_type(m) == "remoteCtrlSessionCode")
    if not ev:
        return False
    host.send({"corrId": tag + "v", "cmd": "/verify remote ctrl " + ev["resp"]["sessionCode"]})
    r = host.wait(lambda m: m.get("corrId") == tag + "v")
    return bool(r and resp_type(r) == "remoteCtrlConnected" and ctrl.wait(lambda m: m.get("event") == "connected"))


def send(ctrl, rid, cmd, timeout=20):
    ctrl.send({"id": rid, "send": cmd})
    return ctrl.wait(lambda m: m.get("id") == rid and m.get("event") in ("response", "error"), timeout)


def chat(r):
    return (r or {}).get("json", {}).get("chatResponse", {})


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def integrity(data):
    results = []
    for db in sorted(glob.glob(os.path.join(data, "*.db"))):
        with sqlite3.connect(db) as c:
            results.append(c.execute("PRAGMA integrity_check").fetchone()[0])
    return results


def main():
    host_binary, host_options = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "host")
        pairing = os.path.join(tmp, "pairing.json")
        host = Proc([host_binary, "--json", "--data", data, "--device-name", "e2e-host", "--event-queue", "8",
                     "--keepalive-idle", "2", "--keepalive-interval", "1", "--keepalive-probes", "2", *host_options])
        prepare(host)
        if "--core-lib" in host_options:
            library = os.path.realpath(host_options[host_options.index("--core-lib") + 1])
            with open(f"/proc/{host.p.pid}/maps") as f:
                check("the host runs on the library given with --core-lib", library in f.read(), library)

        # 1. Desktop's first commands, /get subs total polled as Desktop does, with the long poll running beside.
        ctrl, inv = start_controller(pairing, "--recv-wait", "300000")
        check("a session comes up", connect(host, ctrl, inv, "a"))
        expected = [("/u", "result", "activeUser"), ("/users", "result", "usersList"),
                    ("/_show_address 1", "error", "errorStore"), ("/_ttl 1", "result", "chatItemTTL"),
                    ("/_get chats 1 pcc=on", "result", "apiChats"), ("/_get tags 1", "result", "chatTags")]
        for i, (cmd, key, tag) in enumerate(expected):
            got = chat(send(ctrl, f"d{i}", cmd)).get(key, {}).get("type")
            check(f"Desktop's {cmd} answers {tag}", got == tag, got)
        polls = [chat(send(ctrl, f"p{i}", "/get subs total 1")).get("result", {}).get("type") for i in range(5)]
        check("/get subs total 1 polled five times answers agentSubsTotal each time",
              polls == ["agentSubsTotal"] * 5, polls)
        empty = ctrl.wait(lambda m: m.get("event") == "recvEmpty", timeout=5)
        check("the long poll beside them comes back empty after its wait", empty is not None)
        check("the long poll never failed", not [m for m in ctrl.seen if m.get("source") == "recv"],
              [m for m in ctrl.seen if m.get("source") == "recv"])

        # 1b. A file the core has a record of comes down with getFile (with --core-lib, the library's record, read
        # through its command API); one it has no record of is the core's fileNotFound.
        upload = os.path.join(tmp, "upload.bin")
        payload = os.urandom(200_000)
        with open(upload, "wb") as f:
            f.write(payload)
        ctrl.send({"id": "f1", "storeFile": upload, "fileName": "recorded.bin"})
        r = ctrl.wait(lambda m: m.get("id") == "f1" and m.get("event") in ("response", "error"))
        stored_name = (r or {}).get("json", {}).get("filePath")
        check("storeFile: the upload is stored", bool(stored_name), r)
        note = json.dumps([{"fileSource": {"filePath": stored_name}, "msgContent": {"type": "file", "text": "rec"}}])
        created = chat(send(ctrl, "f2", "/_create *1 json " + note)).get("result", {})
        item = ((created.get("chatItems") or [{}])[0]).get("chatItem", {})
        file_id = (item.get("file") or {}).get("fileId")
        user_id = created.get("user", {}).get("userId")
        check("a note records the uploaded file", file_id is not None and user_id is not None, created)
        remote = {"userId": user_id, "fileId": file_id, "sent": True, "fileSource": {"filePath": stored_name}}
        down = os.path.join(tmp, "downloaded.bin")
        ctrl.send({"id": "f3", "getFile": remote, "to": down})
        r = ctrl.wait(lambda m: m.get("id") == "f3" and m.get("event") in ("response", "error"), 30)
        got = open(down, "rb").read() if os.path.exists(down) else b""
        check("getFile downloads the recorded file, its digest checked", r and r.get("digestOk") and got == payload, r)
        ctrl.send({"id": "f4", "getFile": dict(remote, fileId=file_id + 1000)})
        r = ctrl.wait(lambda m: m.get("id") == "f4" and m.get("event") in ("response", "error"))
        err = (r or {}).get("json", {}).get("chatResponse", {}).get("error", {})
        check("getFile of a file without a record: fileNotFound",
              err.get("storeError", {}).get("type") == "fileNotFound", r)

        # 2. Every never-forwarded command is refused remotely, and the host is unchanged by them.
        for i, cmd in enumerate(NEVER_FORWARDED):
            r = send(ctrl, f"n{i}", cmd)
            msg = json.dumps(chat(r))
            check(f"refused remotely: {cmd.split(' {')[0]}", "not allowed remotely" in msg, r)
        check("the session survived the refusals", chat(send(ctrl, "alive", "/v")).get("result", {}).get("type")
              == "versionInfo")

        # 3. The local side is locked out during the session and works after it.
        host.send({"corrId": "l1", "cmd": "/users"})
        r = host.wait(lambda m: m.get("corrId") == "l1")
        check("locally refused while connected", r and "controlled remotely" in json.dumps(r), r)
        ctrl.send({"stop": True})
        stopped = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped")
        check("the controller's stop: remoteCtrlStopped disconnected",
              stopped and stopped["resp"]["rcStopReason"]["type"] == "disconnected", stopped)
        ctrl.close()
        host.send({"corrId": "l2", "cmd": "/users"})
        r = host.wait(lambda m: m.get("corrId") == "l2")
        check("locally served again after the session", r and resp_type(r) == "usersList", r)

        # 4. A controller that stops fetching events: the host keeps at most --event-queue of them, then ends the
        # session with remoteCtrlStopped disconnected and hands the events to the local side.
        ctrl, inv = start_controller(pairing, "--no-poll")
        check("a session without a long poll comes up", connect(host, ctrl, inv, "b"))
        rss_before = rss_kib(host.p.pid)
        stopped = None
        first = chat(send(ctrl, "u0", "/u")).get("result", {}).get("user", {}).get("userId")
        for i in range(12):  # each deleted user is one event (agentUserDeleted) for the controller
            new = json.dumps({"profile": {"displayName": f"spare{i}", "fullName": ""}, "pastTimestamp": False})
            spare = chat(send(ctrl, f"cu{i}", "/_create user " + new)).get("result", {}).get("user", {}).get("userId")
            send(ctrl, f"su{i}", f"/_user {first}")
            send(ctrl, f"du{i}", f"/_delete user {spare} del_smp=off")
            stopped = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped", timeout=0.1)
            if stopped:
                break
        stopped = stopped or host.wait(lambda m: resp_type(m) == "remoteCtrlStopped", timeout=5)
        check("falling behind ends the session as disconnected",
              stopped and stopped["resp"]["rcStopReason"]["type"] == "disconnected", stopped)
        local = host.wait(lambda m: resp_type(m) == "agentUserDeleted", timeout=5)
        check("the events it did not fetch reach the local side", local is not None)
        check("the host stayed within its memory bound", rss_kib(host.p.pid) - rss_before < 64 * 1024,
              (rss_before, rss_kib(host.p.pid)))
        ctrl.wait(lambda m: m.get("event") == "stopped", timeout=5)
        ctrl.close()

        # 5. The controller killed in the middle of a command, then of an upload.
        ctrl, inv = start_controller(pairing)
        check("a session comes up again", connect(host, ctrl, inv, "c"))
        ctrl.send({"id": "k1", "send": "/_get chats 1 pcc=on"})
        ctrl.p.kill()
        t0 = time.time()
        stopped = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped", timeout=10)
        check("a controller killed mid-command is noticed within the keep-alive time",
              stopped and stopped["resp"]["rcStopReason"]["type"] == "disconnected" and time.time() - t0 < 5, stopped)
        ctrl.close()

        ctrl, inv = start_controller(pairing)
        check("and again", connect(host, ctrl, inv, "d"))
        big = os.path.join(tmp, "big.bin")
        with open(big, "wb") as f:
            f.write(os.urandom(64 << 20))
        before = set(os.listdir(os.path.join(data, "files"))) if os.path.isdir(os.path.join(data, "files")) else set()
        ctrl.send({"id": "f1", "storeFile": big, "fileName": "big.bin"})
        time.sleep(0.5)
        ctrl.p.kill()
        stopped = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped", timeout=10)
        check("a controller killed mid-file is noticed", stopped is not None, stopped)
        time.sleep(0.5)
        after = set(os.listdir(os.path.join(data, "files"))) if os.path.isdir(os.path.join(data, "files")) else set()
        check("no partial file is left", after == before, after - before)
        ctrl.close()
        host.send({"corrId": "l3", "cmd": "/users"})
        r = host.wait(lambda m: m.get("corrId") == "l3")
        check("the host serves locally after the kills", r and resp_type(r) == "usersList", r)

        # 6. The host stopped by SIGTERM in a session: the controller sees the connection end, the host exits 0.
        ctrl, inv = start_controller(pairing)
        check("a last session comes up", connect(host, ctrl, inv, "e"))
        host.p.send_signal(signal.SIGTERM)
        code = host.p.wait(timeout=10)
        check("SIGTERM: the host exits 0", code == 0, code)
        gone = ctrl.wait(lambda m: m.get("event") == "stopped", timeout=10)
        check("SIGTERM: the controller sees the session end", gone and gone.get("reason") == "disconnected", gone)
        ctrl.close()
        check("PRAGMA integrity_check is ok on every database", len(integrity(data)) >= 2 and set(integrity(data)) == {"ok"}, integrity(data))
        modes = {os.path.basename(p): oct(os.stat(p).st_mode & 0o777) for p in glob.glob(os.path.join(data, "*"))}
        check("the data folder is private (0700)", oct(os.stat(data).st_mode & 0o777) == "0o700")
        check("the databases are private (0600)",
              all(m == "0o600" for n, m in modes.items() if n.endswith(".db")) and modes, modes)
    print(f"{harness.passed} passed, {harness.failed} failed")
    sys.exit(1 if harness.failed else 0)


if __name__ == "__main__":
    main()
