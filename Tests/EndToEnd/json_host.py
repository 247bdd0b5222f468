"""What the store's end-to-end checks share: a `simplex-host --json` process driven by corrIds, and the pass/fail
counters with the closing line `N passed, M failed`."""

import json
import os
import signal
import subprocess
import sys

passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def finish():
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


class Host:
    """`simplex-host --json --data DATA [ARGS]`: commands with their own corrIds, answers read from its output."""

    def __init__(self, binary, data, args=(), env=None, stderr=subprocess.DEVNULL):
        self.p = subprocess.Popen([binary, "--json", "--data", data, *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr, text=True, bufsize=1, env=env)
        self.n = 0

    def send(self, command):
        self.n += 1
        corr = f"c{self.n}"
        self.p.stdin.write(json.dumps({"corrId": corr, "cmd": command}) + "\n")
        self.p.stdin.flush()
        return corr

    def answer(self, corr):
        """The response to `corr`, or None when the host ends without giving it."""
        for line in self.p.stdout:
            message = json.loads(line)
            if message.get("corrId") == corr:
                return message["resp"]
        return None

    def ask(self, command):
        resp = self.answer(self.send(command))
        if resp is None:
            raise SystemExit(f"the host ended before answering {command}")
        return resp

    def kill(self):
        """Kills the host; returns the corrIds it had answered (what it wrote is still in the pipe)."""
        os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait(timeout=10)
        answered = set()
        for line in self.p.stdout.read().splitlines():
            try:
                answered.add(json.loads(line).get("corrId"))
            except ValueError:
                pass
        return answered

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)
