#!/usr/bin/env python3
"""End to end: the real `simplex-host --json` process paired with the independent Python controller
(Tests/Peers/xrcp_controller.py) over 127.0.0.1, in real processes.

usage: host_with_python_controller.py PATH/TO/simplex-host
Prints one line per check and `N passed, M failed` last; exits non-zero on any failure.
"""
import json, os, queue, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONTROLLER = os.path.join(ROOT, "Tests", "Peers", "xrcp_controller.py")
PY = sys.executable
passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def first_match(seen, incoming, match, timeout):
    """The first message (in order) that `match` accepts: from `seen` (kept earlier), else from the queue `incoming`,
    waiting up to `timeout` s; the others stay in `seen` for later."""
    for m in seen:
        if match(m):
            seen.remove(m)
            return m
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            m = incoming.get(timeout=max(0.01, deadline - time.time()))
        except queue.Empty:
            break
        if match(m):
            return m
        seen.append(m)
    return None


class Proc:
    """A child process speaking JSON lines; its stdout lines are collected by a thread."""

    def __init__(self, args, env=None):
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, bufsize=1, env=env)
        self.lines = queue.Queue()
        self.seen = []
        self.errors = []  # standard error's lines, as they come
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read_errors(self):
        for line in self.p.stderr:
            self.errors.append(line.rstrip("\n"))

    def error_line(self, needle, timeout=10):
        """The first standard-error line containing `needle`, waiting up to `timeout` seconds for it."""
        deadline = time.time() + timeout
        while True:
            for line in list(self.errors):
                if needle in line:
                    return line
            if time.time() >= deadline:
                return None
            time.sleep(0.05)

    def _read(self):
        for line in self.p.stdout:
            try:
                self.lines.put(json.loads(line))
            except json.JSONDecodeError:
                self.lines.put({"unparsed": line})

    def send(self, obj):
        self.p.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
        self.p.stdin.flush()

    def wait(self, match, timeout=20):
        return first_match(self.seen, self.lines, match, timeout)

    def close(self):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def resp_type(m):
    return (m.get("resp") or {}).get("type")


def listening_ports(pid):
    """TCP sockets in LISTEN state owned by `pid` (from /proc, as `ss -ltn` shows them)."""
    inodes = set()
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for row in f.readlines()[1:]:
                cols = row.split()
                if cols[3] == "0A" and cols[9] in inodes:  # 0A = LISTEN
                    ports.append(int(cols[1].split(":")[1], 16))
    return ports


def prepare(host):
    """The remote-control commands need an active user and a started chat, as on a phone."""
    host.send({"corrId": "u", "cmd": "/connect remote ctrl xrcp:/x"})
    r = host.wait(lambda m: m.get("corrId") == "u")
    check("before a user exists: noActiveUser", r and "noActiveUser" in json.dumps(r), r)
    host.send({"corrId": "u1", "cmd": "/create user host"})
    host.wait(lambda m: m.get("corrId") == "u1")
    host.send({"corrId": "u2", "cmd": "/list remote ctrls"})
    r = host.wait(lambda m: m.get("corrId") == "u2")
    check("before the chat is started: chatNotStarted", r and "chatNotStarted" in json.dumps(r), r)
    host.send({"corrId": "u3", "cmd": "/_start"})
    r = host.wait(lambda m: m.get("corrId") == "u3")
    check("the chat starts", r and resp_type(r) == "chatStarted", r)


def session(host, data, pairing, files, label, known, compression=True):
    ctrl = Proc([PY, CONTROLLER, "--pairing", pairing, "--device-name", "Test Desktop", "--listen", "127.0.0.1",
                 "--timeout", "30", "--compression", "on" if compression else "off"])
    inv = ctrl.wait(lambda m: m.get("event") == "invitation")
    check(f"{label}: controller made an invitation", inv is not None)
    if inv is None:
        ctrl.close()
        return
    host.send({"corrId": "c1", "cmd": "/connect remote ctrl " + inv["uri"]})
    r = host.wait(lambda m: m.get("corrId") == "c1")
    check(f"{label}: /connect answers remoteCtrlConnecting", r and resp_type(r) == "remoteCtrlConnecting", r)
    check(f"{label}: a {'known' if known else 'new'} controller {'has' if known else 'has no'} remoteCtrl_",
          r and (("remoteCtrl_" in r["resp"]) == known), r)
    ev = host.wait(lambda m: resp_type(m) == "remoteCtrlSessionCode")
    code = ctrl.wait(lambda m: m.get("event") == "sessionCode")
    check(f"{label}: both sides show the same session code", ev and code and ev["resp"]["sessionCode"] == code["code"],
          (ev, code))
    check(f"{label}: the host never listens on TCP", listening_ports(host.p.pid) == [], listening_ports(host.p.pid))
    if not (ev and code):
        ctrl.close()
        return
    host.send({"corrId": "c2", "cmd": "/verify remote ctrl " + ev["resp"]["sessionCode"]})
    r = host.wait(lambda m: m.get("corrId") == "c2")
    check(f"{label}: /verify answers remoteCtrlConnected", r and resp_type(r) == "remoteCtrlConnected", r)
    connected = ctrl.wait(lambda m: m.get("event") == "connected")
    check(f"{label}: the controller is connected, compression {'on' if compression else 'off'}",
          connected and connected.get("compression") is compression, connected)
    check(f"{label}: the host reports the same compression", r and r["resp"].get("compression") is compression, r)

    ctrl.send({"id": "s1", "send": "/v"})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "s1")
    check(f"{label}: a command reaches the core through the session",
          r and r["json"].get("chatResponse", {}).get("result", {}).get("type") == "versionInfo", r)
    # SimpleX Desktop's first commands after connecting, each answered as the real core answers it.
    expected = [("/u", "result", "activeUser"), ("/users", "result", "usersList"),
                ("/_show_address 1", "error", "errorStore"), ("/_ttl 1", "result", "chatItemTTL"),
                ("/_get chats 1 pcc=on", "result", "apiChats"), ("/_get tags 1", "result", "chatTags"),
                ("/get subs total 1", "result", "agentSubsTotal")]
    for i, (cmd, key, tag) in enumerate(expected):
        ctrl.send({"id": f"d{i}", "send": cmd})
        r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == f"d{i}")
        got = r and r["json"].get("chatResponse", {}).get(key, {}).get("type")
        check(f"{label}: Desktop's {cmd} answers {tag}", got == tag, r)
    ctrl.send({"id": "s2", "send": "/_start"})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "s2")
    msg = json.dumps(r)
    check(f"{label}: a lifecycle command is refused remotely", r and "not allowed remotely" in msg, r)
    upload = os.path.join(files, f"upload-{label}.bin")
    with open(upload, "wb") as f:
        f.write(os.urandom(300_000))
    ctrl.send({"id": "s3", "storeFile": upload, "fileName": "../../photo.jpg"})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "s3")
    stored = r and r["json"].get("filePath")
    check(f"{label}: storeFile stores under a base name in the files folder",
          stored and "/" not in stored and os.path.exists(os.path.join(data, "files", stored)), r)
    ctrl.send({"id": "s3l", "storeFile": upload, "fileName": "n" * 5000 + ".jpg"})
    r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "s3l")
    leftovers = [n for n in os.listdir(os.path.join(data, "files")) if n.startswith(".upload-")]
    check(f"{label}: storeFile with a 5,004-byte name answers why, and leaves no .upload- file",
          r and "a file name may have at most 255" in json.dumps(r) and not leftovers, (r, leftovers))
    if stored:
        with open(upload, "rb") as a, open(os.path.join(data, "files", stored), "rb") as b:
            check(f"{label}: the stored file is byte-identical", a.read() == b.read())
        # Desktop saves an attachment to the notes folder: the upload, then a note that references it.
        note = json.dumps([{"fileSource": {"filePath": stored}, "msgContent": {"type": "file", "text": label}}])
        ctrl.send({"id": "s4", "send": "/_create *1 json " + note})
        r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "s4")
        result = r and r["json"].get("chatResponse", {}).get("result", {})
        items = result and result.get("chatItems") or []
        file = items and items[0]["chatItem"].get("file") or {}
        check(f"{label}: a note references the uploaded file",
              result and result.get("type") == "newChatItems" and file.get("fileName") == stored
              and file.get("fileSize") == 300_000 and file.get("fileProtocol") == "local", r)
        ctrl.send({"id": "s5", "send": "/_get chat *1 count=1"})
        r = ctrl.wait(lambda m: m.get("event") == "response" and m.get("id") == "s5")
        chat = r and r["json"].get("chatResponse", {}).get("result", {}).get("chat", {})
        last = chat and chat.get("chatItems") or []
        check(f"{label}: the note is the notes folder's last item",
              len(last) == 1 and last[0]["meta"]["itemText"] == label, r)

    host.send({"corrId": "c3", "cmd": "/list remote ctrls"})
    r = host.wait(lambda m: m.get("corrId") == "c3")
    ctrls = r and r["resp"].get("remoteCtrls") or []
    check(f"{label}: /list remote ctrls shows the connected controller",
          len(ctrls) == 1 and ctrls[0].get("sessionState", {}).get("type") == "connected", r)
    host.send({"corrId": "c4", "cmd": "/users"})
    r = host.wait(lambda m: m.get("corrId") == "c4")
    check(f"{label}: the local side is locked out while connected", r and "controlled remotely" in json.dumps(r), r)

    ctrl.send({"stop": True})
    stopped = host.wait(lambda m: resp_type(m) == "remoteCtrlStopped")
    check(f"{label}: the controller's stop reaches the host as remoteCtrlStopped disconnected",
          stopped and stopped["resp"]["rcStopReason"]["type"] == "disconnected", stopped)
    ctrl.close()


def main():
    host_binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "host")
        files = os.path.join(tmp, "files")
        os.makedirs(files)
        pairing = os.path.join(tmp, "controller-pairing.json")
        host = Proc([host_binary, "--json", "--data", data, "--device-name", "e2e-host"])
        prepare(host)
        session(host, data, pairing, files, "first pairing", known=False)
        session(host, data, pairing, files, "second session", known=True)
        session(host, data, pairing, files, "third session, no compression", known=True, compression=False)
        host.send({"corrId": "c9", "cmd": "/list remote ctrls"})
        r = host.wait(lambda m: m.get("corrId") == "c9")
        ctrls = r and r["resp"].get("remoteCtrls") or []
        check("one stored pairing after three sessions", len(ctrls) == 1 and "sessionState" not in ctrls[0], r)
        host.close()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
