#!/usr/bin/env python3
"""End to end: `simplex-host` as a person uses it — subcommands, help, one-line errors with hints, exit codes (README),
pairing with `connect` against the independent Python controller on 127.0.0.1, the device name kept by `name`.

usage: cli_for_people.py PATH/TO/simplex-host
"""
import json, os, queue, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_with_python_controller import CONTROLLER, PY, Proc, check  # noqa: E402
import host_with_python_controller as harness  # noqa: E402

BINARY = None


def run(*args, data):
    p = subprocess.run([BINARY, *args, "--data", data], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class Person:
    """simplex-host running for a person: text lines out, answers typed in."""

    def __init__(self, args):
        self.p = subprocess.Popen([BINARY, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.text = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            chunk = self.p.stdout.read(1)
            if not chunk:
                return
            self.lines.put(chunk)

    def wait_for(self, fragment, timeout=20):
        deadline = time.time() + timeout
        while fragment not in self.text and time.time() < deadline:
            try:
                self.text += self.lines.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                break
        return fragment in self.text

    def type(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()


def controller(pairing):
    ctrl = Proc([PY, CONTROLLER, "--pairing", pairing, "--device-name", "Test Desktop", "--listen", "127.0.0.1",
                 "--timeout", "30"])
    return ctrl, ctrl.wait(lambda m: m.get("event") == "invitation")


def main():
    global BINARY
    BINARY = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "host")
        code, out, _ = run("--help", data=data)
        check("--help exits 0 and lists the subcommands",
              code == 0 and all(w in out for w in ("connect", "find", "controllers", "forget", "name", "status")), out)
        check("--help documents the exit codes", "exit codes" in out)
        for sub in ("connect", "find", "controllers", "forget", "name", "status"):
            code, out, _ = run(sub, "--help", data=data)
            check(f"{sub} --help exits 0 with its usage", code == 0 and f"usage: simplex-host {sub}" in out, out)
        code, _, err = run("frobnicate", data=data)
        check("an unknown subcommand: exit 2, one line with a hint",
              code == 2 and err.count("\n") == 1 and "--help" in err, (code, err))
        code, _, err = run("forget", "x", data=data)
        check("a bad argument: exit 2 naming the subcommand's help", code == 2 and "forget --help" in err, (code, err))
        code, _, err = run("status", "--core-lib", "/x/libsimplex.so", data=data)
        check("--core-lib with a missing library: exit 5, one line naming it",
              code == 5 and err.count("\n") == 1 and "/x/libsimplex.so" in err and "No such file" in err, (code, err))
        code, out, _ = run("status", data=data)
        check("status on a new folder: no profile yet", code == 0 and "none yet" in out, out)
        check("the data folder is made private (0700)", oct(os.stat(data).st_mode & 0o777) == "0o700")
        code, _, err = run("connect", "xrcp:/x", data=data)
        check("connect without a profile: exit 4 with the hint", code == 4 and "--profile" in err, (code, err))
        code, _, err = run("connect", "xrcp:/x", "--profile", "", data=data)
        check("an empty --profile (USER unset): exit 2, one line saying what to give instead",
              code == 2 and err.count("\n") == 1 and "--profile needs a name" in err and "{" not in err, (code, err))
        code, _, err = run("connect", "xrcp:/x", "--profile", "Alice Smith", data=data)
        check("a --profile of two words: exit 2 naming it", code == 2 and "Alice Smith" in err, (code, err))
        env = {k: v for k, v in os.environ.items() if k != "USER"}
        p = subprocess.run(["sh", "-c", f'exec "$0" find --data "$1" --profile "$(id -un)"', BINARY, data],
                           env=env, capture_output=True, text=True, timeout=60)
        check("the quick start's --profile \"$(id -un)\" with USER unset creates the profile (find: nothing paired)",
              p.returncode == 1 and "simplex-host connect" in p.stderr, (p.returncode, p.stderr))
        code, out, _ = run("status", "--json", data=data)
        login = subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
        check("the profile is named after the login", json.loads(out).get("profile") == login if code == 0 else False, out)
        data = os.path.join(tmp, "host2")
        code, _, err = run("find", "--profile", "host", data=data)
        check("find with nothing paired: exit 1 with the hint", code == 1 and "simplex-host connect" in err, (code, err))
        code, _, err = run("connect", "xrcp:/not-a-link", data=data)
        check("connect with a bad link: exit 1 with a hint", code == 1 and err.count("\n") == 1, (code, err))
        code, out, _ = run("name", "Office", "PC", data=data)
        check("name keeps the device name", code == 0 and "Office PC" in out, out)
        code, out, _ = run("status", "--json", data=data)
        status = json.loads(out) if code == 0 else {}
        check("status --json shows the kept name and the profile",
              status.get("deviceName") == "Office PC" and status.get("profile") == "host", out)

        # Pairing with connect: the person compares the codes and says yes.
        pairing = os.path.join(tmp, "pairing.json")
        ctrl, inv = controller(pairing)
        person = Person(["connect", inv["uri"], "--data", data])
        code_line = ctrl.wait(lambda m: m.get("event") == "sessionCode")
        shown = person.wait_for("Does SimpleX Desktop show the same code?")
        check("connect shows the session code and asks", shown and code_line and code_line["code"] in person.text,
              person.text)
        person.type("y")
        check("yes connects", person.wait_for("Connected to Test Desktop"), person.text)
        hello = ctrl.wait(lambda m: m.get("event") == "connected")
        check("the controller sees this machine under the kept name",
              hello and hello.get("hostApp", {}).get("deviceName") == "Office PC", hello)
        ctrl.send({"stop": True})
        check("the desktop's stop is told", person.wait_for("The session ended"), person.text)
        check("connect exits 0 after a session", person.p.wait(timeout=10) == 0)
        ctrl.close()

        # Codes that differ: no, exit 1, nothing stored.
        ctrl, inv = controller(os.path.join(tmp, "other.json"))
        person = Person(["connect", inv["uri"], "--data", data])
        person.wait_for("Does SimpleX Desktop show the same code?")
        person.type("n")
        code = person.p.wait(timeout=10)
        err = person.p.stderr.read()
        check("no: exit 1 with a one-line reason", code == 1 and "codes differ" in err, (code, err))
        ctrl.send({"stop": True})
        ctrl.close()

        code, out, _ = run("controllers", data=data)
        check("controllers lists the paired desktop only", code == 0 and out.strip() == "1  Test Desktop", out)
        code, out, _ = run("controllers", "--json", data=data)
        check("controllers --json answers remoteCtrlList", code == 0 and json.loads(out)["type"] == "remoteCtrlList", out)
        code, out, _ = run("forget", "1", data=data)
        check("forget 1", code == 0, out)
        code, _, err = run("forget", "1", data=data)
        check("forget an unknown desktop: exit 1 with a hint", code == 1 and "controllers" in err, (code, err))
        # An import at the prompt says where the replaced store was kept (the official answer has no field for it).
        archive = os.path.join(tmp, "backup.zip")
        person = Person(["--data", data])
        person.wait_for("Next:")
        person.type("/_stop")
        person.type("/_db export " + json.dumps({"archivePath": archive}))
        person.wait_for("archiveExported")
        person.type("/_db import " + json.dumps({"archivePath": archive}))
        prefix = os.path.join(data, "simplex_v1")
        check("an import at the prompt names the backups of the store it replaced",
              person.wait_for(f"The previous store is kept as {prefix}_chat.db.bak and {prefix}_agent.db.bak."),
              person.text[-400:])
        person.type("quit")
        check("and quits with 0", person.p.wait(timeout=20) == 0)
        modes = {n: oct(os.stat(os.path.join(data, n)).st_mode & 0o777) for n in os.listdir(data)}
        check("every file in the data folder is private", all(m in ("0o600", "0o700") for m in modes.values()), modes)
    print(f"{harness.passed} passed, {harness.failed} failed")
    sys.exit(1 if harness.failed else 0)


if __name__ == "__main__":
    main()
