#!/usr/bin/env python3
"""End to end: remote control through libsimplex.so's C ABI (chat-api.md §9), driven from Python with ctypes as a C
program drives it, over 127.0.0.1 in real processes.

(a) The library as the host: the independent Python controller (Tests/Peers/xrcp_controller.py) pairs with it, a new
    pairing and then the known one; commands run on the library's core through the session, the core's events go to
    the controller meanwhile and the library's own commands are locked out; the controller's stop reaches the library
    as `remoteCtrlStopped`. The library is also the host of our own controller, `simplex-host controller --json`.
(b) The library as the controller: it pairs with the independent Python host (Tests/Peers/xrcp_host_stub.py) and with
    `simplex-host --json`, new and known pairings; `chat_send_remote_cmd` answers with the host's own answer and its
    `remoteHostId`, the host's events and the controller role's events (`remoteHostSessionCode`, `newRemoteHost`,
    `remoteHostConnected`, `remoteHostStopped`) arrive on `chat_recv_msg_wait`, and a file goes up and comes back down.
(c) The same two pairings with our own roles from a C program written against simplex.h alone
    (Tests/CLibSimplexChecks/abi_client.c, its `lines` mode): as the host of `simplex-host controller --json`, and as
    the controller of `simplex-host --json`.

usage: libsimplex_remote_control.py BUILD_DIR   (the folder holding libsimplex.so and simplex-host)
Prints one line per check and `N passed, M failed` last; exits non-zero on any failure.
"""
import ctypes
import hashlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from host_with_python_controller import Proc, first_match  # noqa: E402  (the JSON-lines child process)

CONTROLLER = os.path.join(ROOT, "Tests", "Peers", "xrcp_controller.py")
STUB = os.path.join(ROOT, "Tests", "Peers", "xrcp_host_stub.py")
C_CLIENT = os.path.join(ROOT, "Tests", "CLibSimplexChecks", "abi_client.c")
PY = sys.executable
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


class Library:
    """libsimplex.so through ctypes: every answer is a malloc'd string the caller frees (§9.1)."""

    def __init__(self, path):
        self.c = ctypes.CDLL(path)
        self.libc = ctypes.CDLL(None)
        self.libc.free.argtypes = [ctypes.c_void_p]
        c = self.c
        c.hs_init_with_rtsopts.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        c.chat_migrate_init.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        c.chat_send_cmd.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        c.chat_send_remote_cmd.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
        c.chat_recv_msg_wait.argtypes = [ctypes.c_void_p, ctypes.c_int]
        for f in (c.chat_migrate_init, c.chat_send_cmd, c.chat_send_remote_cmd, c.chat_recv_msg_wait):
            f.restype = ctypes.c_void_p
        c.hs_init_with_rtsopts(None, None)

    def take(self, pointer):
        try:
            return ctypes.string_at(pointer).decode()
        finally:
            self.libc.free(pointer)


class Events:
    """A core's events in order: `events` is filled by a thread, `seen` keeps those passed over for later."""

    def event(self, match, timeout=20):
        """The first event (in order) that `match` accepts, waiting up to `timeout` s; the others stay for later."""
        return first_match(self.seen, self.events, match, timeout)

    def drained(self, wait=0.5):
        """Every event that came, and comes within `wait` s."""
        time.sleep(wait)
        out = list(self.seen)
        self.seen = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out


class Core(Events):
    """One `chat_ctrl`, its events collected in order by a thread of its own that polls `chat_recv_msg_wait`."""

    def __init__(self, lib, prefix):
        self.lib = lib
        self.ctrl = ctypes.c_void_p()
        opened = json.loads(lib.take(lib.c.chat_migrate_init(prefix.encode(), b"", b"yesUp", ctypes.byref(self.ctrl))))
        check(f"chat_migrate_init {os.path.basename(prefix)}", opened == {"type": "ok"}, opened)
        self.events = queue.Queue()
        self.seen = []
        self.polling = True
        self.poller = threading.Thread(target=self._poll, daemon=True)
        self.poller.start()

    def _poll(self):
        while self.polling:
            text = self.lib.take(self.lib.c.chat_recv_msg_wait(self.ctrl, 100_000))
            if text:
                self.events.put(json.loads(text))

    def close(self):
        self.polling = False
        self.poller.join(2)

    def cmd(self, line):
        return json.loads(self.lib.take(self.lib.c.chat_send_cmd(self.ctrl, line.encode())))

    def remote(self, host_id, line):
        return json.loads(self.lib.take(self.lib.c.chat_send_remote_cmd(self.ctrl, host_id, line.encode())))



class CCore(Events):
    """The same interface as `Core`, served by the C client's `lines` mode in a process of its own: each command a
    line in, each answer an `A` line out, each event from `chat_recv_msg_wait` an `E` line out."""

    def __init__(self, driver, prefix):
        self.p = subprocess.Popen([driver, "lines", prefix], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.answers = queue.Queue()
        self.events = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()
        opened = self._answer()
        check(f"C client: chat_migrate_init {os.path.basename(prefix)}", opened == {"type": "ok"}, opened)

    def _read(self):
        for line in self.p.stdout:
            kind, _, text = line.rstrip("\n").partition(" ")
            (self.answers if kind == "A" else self.events).put(json.loads(text))

    def _answer(self, timeout=30):
        try:
            return self.answers.get(timeout=timeout)
        except queue.Empty:
            return {"driverError": "no answer"}

    def cmd(self, line):
        self.p.stdin.write(f"cmd {line}\n")
        return self._answer()

    def remote(self, host_id, line):
        self.p.stdin.write(f"remote {host_id} {line}\n")
        return self._answer()

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def c_client(build, tmp):
    """The C client compiled against simplex.h and the built library, as scripts/check-libsimplex compiles it."""
    out = os.path.join(tmp, "abi_client")
    subprocess.run(["cc", "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread",
                    "-I", os.path.join(ROOT, "Sources", "CLibSimplex"), C_CLIENT, "-o", out, "-L", build, "-lsimplex",
                    f"-Wl,-rpath,{build}"], check=True)
    return out


def typed(kind):
    return lambda e: (e.get("result") or {}).get("type") == kind


def rtype(envelope):
    if "result" in envelope:
        return envelope["result"].get("type")
    error = envelope.get("error") or {}
    return (error.get("errorType") or {}).get("type") or error.get("type")


def started(lib, folder, name):
    """`lib` opens a core on a prefix: the ctypes `Library`, or the C client's path."""
    core = CCore(lib, os.path.join(folder, name)) if isinstance(lib, str) else Core(lib, os.path.join(folder, name))
    core.cmd(f"/create user {name}")
    r = core.cmd("/_start")
    check(f"{name}: the chat starts", rtype(r) == "chatStarted", r)
    files = os.path.join(folder, name + "-files")
    r = core.cmd("/set file paths " + json.dumps(
        {"appFilesFolder": files, "appTempFolder": os.path.join(folder, name + "-temp"),
         "appAssetsFolder": os.path.join(folder, name + "-assets")}))
    check(f"{name}: /set file paths", rtype(r) == "cmdOk", r)
    return core, files


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# MARK: (a) the library as the host

def host_session(lib_host, files, pairing, label, known):
    ctrl = Proc([PY, CONTROLLER, "--pairing", pairing, "--device-name", "Test Desktop", "--listen", "127.0.0.1",
                 "--timeout", "30", "--recv-wait", "500000"])
    inv = ctrl.wait(lambda m: m.get("event") == "invitation")
    if not check(f"host, {label}: the controller made an invitation", inv is not None, ctrl.errors):
        ctrl.close()
        return
    t0 = time.time()
    r = lib_host.cmd("/connect remote ctrl " + inv["uri"])
    check(f"host, {label}: /connect remote ctrl answers remoteCtrlConnecting", rtype(r) == "remoteCtrlConnecting", r)
    check(f"host, {label}: a {'known' if known else 'new'} controller {'has' if known else 'has no'} remoteCtrl_",
          ("remoteCtrl_" in r.get("result", {})) == known, r)
    ev = lib_host.event(typed("remoteCtrlSessionCode"))
    code = ctrl.wait(lambda m: m.get("event") == "sessionCode")
    check(f"host, {label}: the session code on chat_recv_msg_wait is the controller's",
          ev and code and ev["result"]["sessionCode"] == code["code"], (ev, code))
    if not (ev and code):
        ctrl.close()
        return
    r = lib_host.cmd("/verify remote ctrl " + ev["result"]["sessionCode"])
    check(f"host, {label}: /verify remote ctrl answers remoteCtrlConnected",
          rtype(r) == "remoteCtrlConnected" and r["result"]["remoteCtrl"]["ctrlDeviceName"] == "Test Desktop", r)
    connected = ctrl.wait(lambda m: m.get("event") == "connected")
    check(f"host, {label}: the controller is connected ({(time.time() - t0) * 1000:.0f} ms from /connect)",
          connected is not None and connected.get("newHost") is (not known), connected)

    ctrl.send({"id": "v", "send": "/v"})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "v")
    check(f"host, {label}: /v through the session reaches the library's core",
          r and r["json"].get("chatResponse", {}).get("result", {}).get("type") == "versionInfo", r)
    ctrl.send({"id": "u", "send": "/users"})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "u")
    users = r and r["json"].get("chatResponse", {}).get("result", {}).get("users") or []
    check(f"host, {label}: /users through the session lists the library's user",
          [u["user"]["profile"]["displayName"] for u in users] == ["phone"], r)
    ctrl.send({"id": "s", "send": "/_stop"})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "s")
    check(f"host, {label}: a lifecycle command is refused remotely", r and "not allowed remotely" in json.dumps(r), r)
    # A command run through the session raises core events (a local group's first items): they go to the
    # controller's long poll, not to the library's own queue.
    ctrl.send({"id": "g", "send": '/_group 1 {"displayName":"team' + label[0] + '","fullName":""}'})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "g")
    check(f"host, {label}: a group made through the session",
          r and r["json"].get("chatResponse", {}).get("result", {}).get("type") == "groupCreated", r)
    event = ctrl.wait(lambda m: m.get("event") == "chatEvent"
                      and (m.get("json", {}).get("result") or {}).get("type") == "newChatItems")
    check(f"host, {label}: the core's event goes to the controller's long poll", event is not None, ctrl.seen[-3:])
    r = lib_host.cmd("/users")
    check(f"host, {label}: the library's own commands are locked out while connected",
          "controlled remotely" in json.dumps(r), r)
    upload = os.path.join(os.path.dirname(files), f"upload-{label[0]}.bin")
    with open(upload, "wb") as f:
        f.write(os.urandom(200_000))
    ctrl.send({"id": "f", "storeFile": upload, "fileName": "photo.jpg"})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "f")
    stored = r and r["json"].get("filePath")
    check(f"host, {label}: storeFile lands in the folder /set file paths gave",
          stored and os.path.exists(os.path.join(files, stored))
          and sha256(os.path.join(files, stored)) == sha256(upload), r)

    r = lib_host.cmd("/list remote ctrls")
    ctrls = r.get("result", {}).get("remoteCtrls") or []
    check(f"host, {label}: /list remote ctrls shows the session connected",
          len(ctrls) == 1 and ctrls[0].get("sessionState", {}).get("type") == "connected", r)
    ctrl.send({"stop": True})
    stopped = lib_host.event(typed("remoteCtrlStopped"))
    check(f"host, {label}: the controller's stop is remoteCtrlStopped disconnected on chat_recv_msg_wait",
          stopped and stopped["result"]["rcStopReason"]["type"] == "disconnected", stopped)
    ctrl.close()
    local = [e for e in lib_host.drained() if typed("newChatItems")(e)]
    check(f"host, {label}: no core event of the session reached the library's own queue", local == [], local)
    r = lib_host.cmd("/users")
    check(f"host, {label}: the library's own side works again", rtype(r) == "usersList", r)


def as_host(lib, tmp):
    lib_host, files = started(lib, tmp, "phone")
    r = lib_host.cmd("/set device name Library Phone")
    check("host: /set device name", rtype(r) == "cmdOk", r)
    r = lib_host.cmd("/find remote ctrl")
    check("host: /find remote ctrl with nothing paired is noKnownControllers",
          (r.get("error") or {}).get("remoteCtrlError", {}).get("type") == "noKnownControllers", r)
    pairing = os.path.join(tmp, "controller-pairing.json")
    host_session(lib_host, files, pairing, "first pairing", known=False)
    host_session(lib_host, files, pairing, "known pairing", known=True)
    r = lib_host.cmd("/list remote ctrls")
    ctrls = r.get("result", {}).get("remoteCtrls") or []
    check("host: one stored pairing, named as the controller calls itself",
          [c.get("ctrlDeviceName") for c in ctrls] == ["Test Desktop"] and "sessionState" not in ctrls[0], r)
    r = lib_host.cmd(f"/delete remote ctrl {ctrls[0]['remoteCtrlId'] if ctrls else 1}")
    check("host: /delete remote ctrl", rtype(r) == "cmdOk", r)
    lib_host.close()


def host_of_our_controller(lib, tmp, binary, label="host of simplex-host controller"):
    """The library as the host of `simplex-host controller --json`: our own two roles, across the C ABI."""
    lib_host, _ = started(lib, tmp, "phone2")
    ctrl = Proc([binary, "controller", "--json", "--data", os.path.join(tmp, "our-controller"),
                 "--device-name", "E2E Laptop", "--poll-wait", "1"])
    ctrl.send({"corrId": "s", "cmd": "/start remote host new" + LOOPBACK})
    r = ctrl.wait(lambda m: m.get("corrId") == "s")
    invitation = ((r or {}).get("resp") or {}).get("invitation", "")
    r = lib_host.cmd("/connect remote ctrl " + invitation)
    check(f"{label}: remoteCtrlConnecting", rtype(r) == "remoteCtrlConnecting", r)
    ev = lib_host.event(typed("remoteCtrlSessionCode"))
    theirs = ctrl.wait(lambda m: (m.get("resp") or {}).get("type") == "remoteHostSessionCode")
    code = (ev or {}).get("result", {}).get("sessionCode")
    check(f"{label}: the same session code",
          code and code == ((theirs or {}).get("resp") or {}).get("sessionCode"), (ev, theirs))
    r = lib_host.cmd(f"/verify remote ctrl {code}")
    check(f"{label}: remoteCtrlConnected", rtype(r) == "remoteCtrlConnected", r)
    conn = ctrl.wait(lambda m: (m.get("resp") or {}).get("type") == "remoteHostConnected")
    check(f"{label}: the controller is connected", conn is not None, conn)
    ctrl.send({"corrId": "u", "cmd": "/users"})
    r = ctrl.wait(lambda m: m.get("corrId") == "u")
    users = ((r or {}).get("resp") or {}).get("users") or []
    check(f"{label}: the controller's /users runs on the library's core",
          r and r.get("remoteHostId") == 1 and [u["user"]["profile"]["displayName"] for u in users] == ["phone2"], r)
    ctrl.send({"corrId": "t", "cmd": "/stop remote host 1"})
    ctrl.wait(lambda m: m.get("corrId") == "t")
    stopped = lib_host.event(typed("remoteCtrlStopped"))
    check(f"{label}: its stop is remoteCtrlStopped on chat_recv_msg_wait", stopped is not None,
          stopped)
    ctrl.close()
    lib_host.close()


# MARK: (b) the library as the controller

def with_stub(lib_ctrl, tmp, stub_files):
    pairing = os.path.join(tmp, "stub-pairing.json")
    r = lib_ctrl.cmd("/start remote host new" + LOOPBACK)
    check("controller: /start remote host new answers remoteHostStarted",
          rtype(r) == "remoteHostStarted" and r["result"]["invitation"].startswith("xrcp:/"), r)
    host = Proc([PY, STUB, "--pairing", pairing, "--uri", r.get("result", {}).get("invitation", ""), "--files", stub_files,
                 "--max-wait-ms", "500"])
    code = lib_ctrl.event(typed("remoteHostSessionCode"))
    stub_code = host.wait(lambda m: m.get("event") == "sessionCode")
    check("controller, python host: the same session code on chat_recv_msg_wait",
          code and stub_code and code["result"]["sessionCode"] == stub_code["code"], (code, stub_code))
    new = lib_ctrl.event(typed("newRemoteHost"))
    check("controller, python host: newRemoteHost stores host 1",
          new and new["result"]["remoteHost"]["remoteHostId"] == 1, new)
    conn = lib_ctrl.event(typed("remoteHostConnected"))
    check("controller, python host: remoteHostConnected", conn is not None, conn)
    r = lib_ctrl.remote(1, "/_stub event")
    check("controller, python host: chat_send_remote_cmd answers the host's cmdOk with remoteHostId 1",
          r == {"remoteHostId": 1, "result": {"type": "cmdOk"}}, r)
    ev = lib_ctrl.event(lambda e: e.get("remoteHostId") == 1 and (e.get("result") or {}).get("type") == "stubEvent")
    check("controller, python host: the host's event arrives on chat_recv_msg_wait with remoteHostId 1", ev is not None,
          lib_ctrl.seen[-3:])
    r = lib_ctrl.remote(1, "/_stop")
    check("controller, python host: a local-only command is localCommand, not sent",
          (r.get("error") or {}).get("remoteHostError", {}).get("type") == "localCommand", r)
    r = lib_ctrl.remote(2, "/v")
    check("controller: a host without a session is missing",
          (r.get("error") or {}).get("remoteHostError", {}).get("type") == "missing" and r.get("remoteHostId") == 2, r)
    host.send({"stop": True})
    stopped = lib_ctrl.event(typed("remoteHostStopped"))
    check("controller, python host: the host's stop is remoteHostStopped disconnected",
          stopped and stopped["result"]["rhStopReason"]["type"] == "disconnected"
          and stopped["result"].get("remoteHostId_") == 1, stopped)
    host.close()


def with_our_host(lib_ctrl, tmp, binary, hosts_before=("Stub Phone",)):
    host_data = os.path.join(tmp, "host")
    host = Proc([binary, "--json", "--data", host_data, "--device-name", "e2e-host"])
    for i, cmd in enumerate(["/create user host", "/_start"]):
        host.send({"corrId": f"h{i}", "cmd": cmd})
        host.wait(lambda m: m.get("corrId") == f"h{i}")

    def pair(label, key):
        r = lib_ctrl.cmd(f"/start remote host {key}" + LOOPBACK)
        check(f"controller, simplex-host, {label}: remoteHostStarted", rtype(r) == "remoteHostStarted", r)
        host.send({"corrId": "hc", "cmd": "/connect remote ctrl " + r.get("result", {}).get("invitation", "")})
        r = host.wait(lambda m: m.get("corrId") == "hc")
        check(f"controller, simplex-host, {label}: remoteCtrlConnecting",
              (r or {}).get("resp", {}).get("type") == "remoteCtrlConnecting", r)
        ours = lib_ctrl.event(typed("remoteHostSessionCode"))
        theirs = host.wait(lambda m: (m.get("resp") or {}).get("type") == "remoteCtrlSessionCode")
        code = (theirs or {}).get("resp", {}).get("sessionCode")
        check(f"controller, simplex-host, {label}: the same session code",
              code and ours and ours["result"]["sessionCode"] == code, (ours, theirs))
        host.send({"corrId": "hv", "cmd": f"/verify remote ctrl {code}"})
        host.wait(lambda m: m.get("corrId") == "hv")
        conn = lib_ctrl.event(typed("remoteHostConnected"))
        check(f"controller, simplex-host, {label}: remoteHostConnected names the host",
              conn and conn["result"]["remoteHost"]["hostDeviceName"] == "e2e-host", conn)
        return conn and conn["result"]["remoteHost"]["remoteHostId"]

    host_id = pair("new pairing", "new")
    new = lib_ctrl.drained(0)
    r = lib_ctrl.remote(host_id or 0, "/users")
    users = r.get("result", {}).get("users") or []
    check("controller, simplex-host: chat_send_remote_cmd /users answers the host's user",
          r.get("remoteHostId") == host_id and [u["user"]["profile"]["displayName"] for u in users] == ["host"], r)
    r = lib_ctrl.remote(host_id or 0, '/_group 1 {"displayName":"remote","fullName":""}')
    check("controller, simplex-host: a group made on the host", rtype(r) == "groupCreated", r)
    ev = lib_ctrl.event(lambda e: e.get("remoteHostId") == host_id and typed("newChatItems")(e))
    check("controller, simplex-host: the host core's events arrive with its remoteHostId", ev is not None,
          lib_ctrl.seen[-3:])
    big = os.path.join(tmp, "big.bin")
    with open(big, "wb") as f:
        f.write(os.urandom(3_000_000))
    r = lib_ctrl.cmd(f"/store remote file {host_id} {big}")
    stored = r.get("result", {}).get("remoteFileSource", {}).get("filePath")
    check("controller, simplex-host: /store remote file uploads to the host's files folder",
          stored and sha256(os.path.join(host_data, "files", stored)) == sha256(big), r)
    note = [{"fileSource": {"filePath": stored or "x"}, "msgContent": {"type": "file", "text": "big"}, "mentions": {}}]
    r = lib_ctrl.remote(host_id or 0, "/_create *1 json " + json.dumps(note))
    file_id = ((r.get("result", {}).get("chatItems") or [{}])[0].get("chatItem", {}).get("file") or {}).get("fileId")
    remote_hosts = os.path.join(tmp, "desk-remote-hosts")
    r = lib_ctrl.cmd("/remote_hosts_folder " + remote_hosts)
    check("controller: /remote_hosts_folder", rtype(r) == "cmdOk", r)
    request = {"userId": 1, "fileId": file_id or 0, "sent": True, "fileSource": {"filePath": stored or "x"}}
    r = lib_ctrl.cmd(f"/get remote file {host_id} " + json.dumps(request))
    store_path = next((h.get("storePath") for h in lib_ctrl.cmd("/list remote hosts").get("result", {})
                       .get("remoteHosts", []) if h.get("remoteHostId") == host_id), "?")
    cached = os.path.join(remote_hosts, store_path, "simplex_v1_files", stored or "x")
    check("controller, simplex-host: /get remote file downloads into the remote hosts folder",
          rtype(r) == "cmdOk" and os.path.exists(cached) and sha256(cached) == sha256(big), r)
    host.send({"corrId": "hs", "cmd": "/stop remote ctrl"})
    host.wait(lambda m: m.get("corrId") == "hs")
    stopped = lib_ctrl.event(typed("remoteHostStopped"))
    check("controller, simplex-host: the host's stop is remoteHostStopped",
          stopped and stopped["result"]["rhStopReason"]["type"] == "disconnected", stopped)

    again = pair("known pairing", str(host_id))
    check("controller, simplex-host: the known host keeps its id", again == host_id, again)
    check("controller, simplex-host: no newRemoteHost for a known host",
          not any(typed("newRemoteHost")(e) for e in lib_ctrl.drained()), new)
    r = lib_ctrl.remote(host_id or 0, "/v")
    check("controller, simplex-host, known pairing: commands run", rtype(r) == "versionInfo", r)
    r = lib_ctrl.cmd(f"/stop remote host {host_id}")
    check("controller: /stop remote host answers cmdOk", rtype(r) == "cmdOk", r)
    stopped = host.wait(lambda m: (m.get("resp") or {}).get("type") == "remoteCtrlStopped")
    check("controller: the library's stop reaches simplex-host", stopped is not None, stopped)
    r = lib_ctrl.cmd("/list remote hosts")
    check("controller: /list remote hosts lists both hosts, none connected",
          [h.get("hostDeviceName") for h in r.get("result", {}).get("remoteHosts", [])] == [*hosts_before, "e2e-host"]
          and all("sessionState" not in h for h in r["result"]["remoteHosts"]), r)
    host.close()


def main():
    if len(sys.argv) != 2 or not os.path.exists(os.path.join(sys.argv[1], "libsimplex.so")):
        sys.exit("usage: libsimplex_remote_control.py BUILD_DIR (with libsimplex.so and simplex-host in it)")
    build = os.path.abspath(sys.argv[1])
    lib = Library(os.path.join(build, "libsimplex.so"))
    with tempfile.TemporaryDirectory() as tmp:
        as_host(lib, tmp)
        host_of_our_controller(lib, tmp, os.path.join(build, "simplex-host"))
        lib_ctrl, _ = started(lib, tmp, "desk")
        r = lib_ctrl.cmd("/set device name Library Desk")
        check("controller: /set device name", rtype(r) == "cmdOk", r)
        stub_files = os.path.join(tmp, "stub-files")
        os.makedirs(stub_files)
        with_stub(lib_ctrl, tmp, stub_files)
        with_our_host(lib_ctrl, tmp, os.path.join(build, "simplex-host"))
        lib_ctrl.close()
    with tempfile.TemporaryDirectory() as tmp:
        driver = c_client(build, tmp)
        host_of_our_controller(driver, tmp, os.path.join(build, "simplex-host"),
                               label="C client, host of simplex-host controller")
        c_ctrl, _ = started(driver, tmp, "c-desk")
        with_our_host(c_ctrl, tmp, os.path.join(build, "simplex-host"), hosts_before=())
        c_ctrl.close()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
