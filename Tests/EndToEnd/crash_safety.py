#!/usr/bin/env python3
"""Crash safety of the embedded core's store: `simplex-host --json` is killed with SIGKILL in the middle of 10,000
note inserts (`/_create *1 text …`, written to its input without waiting). On reopen the chat database passes
`PRAGMA integrity_check`, every note whose command had answered is there exactly once, and the host starts again
on the same data and lists them.

usage: crash_safety.py PATH/TO/simplex-host
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

TOTAL = 10_000
KILL_AFTER = 4_000  # answered inserts before the kill: well inside the stream

passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def start(binary, data):
    return subprocess.Popen([binary, "--json", "--data", data], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)


def ask(p, command):
    p.stdin.write(json.dumps({"corrId": "setup", "cmd": command}) + "\n")
    p.stdin.flush()
    for line in p.stdout:
        message = json.loads(line)
        if message.get("corrId") == "setup":
            return message["resp"]
    raise SystemExit(f"the host ended before answering {command}")


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as data:
        p = start(binary, data)
        ask(p, '/_create user {"profile":{"displayName":"crash","fullName":""},"pastTimestamp":false}')
        ask(p, "/_start")

        answered = set()
        killed = threading.Event()

        def writer():
            try:
                for i in range(TOTAL):
                    if killed.is_set():
                        return
                    p.stdin.write(json.dumps({"corrId": str(i), "cmd": f"/_create *1 text note {i}"}) + "\n")
                p.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

        threading.Thread(target=writer, daemon=True).start()
        errors = []
        for line in p.stdout:
            message = json.loads(line)
            resp = message.get("resp", {})
            if "corrId" not in message:
                continue
            if resp.get("type") != "newChatItems":
                errors.append(resp)
                continue
            answered.add(int(message["corrId"]))
            if len(answered) == KILL_AFTER:
                os.kill(p.pid, signal.SIGKILL)
                killed.set()
                break
        p.wait(timeout=10)
        check("every insert before the kill answered newChatItems", not errors, json.dumps(errors[:3])[:300])
        check(f"killed with SIGKILL after {KILL_AFTER} of {TOTAL} inserts", p.returncode == -signal.SIGKILL,
              f"exit {p.returncode}")

        db = sqlite3.connect(os.path.join(data, "simplex_v1_chat.db"))
        integrity = db.execute("PRAGMA integrity_check").fetchall()
        check("PRAGMA integrity_check is ok after the kill", integrity == [("ok",)], str(integrity[:5]))
        texts = [row[0] for row in db.execute("SELECT item_text FROM chat_items WHERE note_folder_id IS NOT NULL")]
        db.close()
        stored = {int(t.split()[1]) for t in texts if t.startswith("note ")}
        check("every answered insert is stored", answered <= stored, f"missing {sorted(answered - stored)[:10]}")
        check("no insert is stored twice", len(texts) == len(set(texts)), f"{len(texts)} rows, {len(set(texts))} distinct")
        check("nothing beyond what was sent", stored <= set(range(TOTAL)))
        print(f"   answered {len(answered)}, stored {len(stored)} (commands in flight at the kill may or may not be)")

        p = start(binary, data)
        ask(p, "/_start")
        chat = ask(p, f"/_get chat *1 count={TOTAL}")
        items = chat.get("chat", {}).get("chatItems", [])
        check("the host reopens the data and lists the stored notes", len(items) == len(stored),
              f"{chat.get('type')}: {len(items)} items")
        p.stdin.close()
        p.wait(timeout=10)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
