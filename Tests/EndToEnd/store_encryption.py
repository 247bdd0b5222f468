#!/usr/bin/env python3
"""End to end: the embedded core on an encrypted store, through `simplex-host --json --data DIR` with the key in a
file (`--db-key-file`) or in SIMPLEX_DB_KEY (docs/storage-encryption.md, chat-api.md §4.11).

While the chat runs with a key, no file in the data folder (databases, -wal, -shm, anything else) holds a marker
written as notes; a wrong key, an old key and no key are refused at start (exit 3) and the key options refuse bad
input (exit 2); `/db test key` tells the right key from a wrong one; `/_db encryption` is refused while the chat runs,
then changes the key: the old key is refused and the new one opens every note. A plaintext store is encrypted by
`/_db encryption` (then opening it without a key is refused) and decrypted back; an archive of an encrypted store
holds no note in the clear and is imported under the same key. Every output line is validated against the official Python client's types (api_types.py).

usage: store_encryption.py PATH/TO/simplex-host [--core-lib PATH/TO/libsimplex.so]
(with --core-lib every host runs that library as its core, and keeps its pairings in files of its own, which follow
the key too)
Prints one line per check and `N passed, M failed` last; exits non-zero on any failure.
"""

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api_types  # noqa: E402

MARKER = "MARKER-0b7e-encrypted-at-rest"
NOTES = 300  # enough to fill WAL pages well past the first
SEALED_MAGIC = b"SimpleX-SealedDB"
PLAIN_MAGIC = b"SQLite format 3\0"

passed, failed = 0, 0
type_errors = []
CORE_ARGS = sys.argv[2:4]  # --core-lib PATH, or nothing


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


class Host:
    """`simplex-host --json` on a data folder, with extra arguments and environment; lines are validated as read."""

    def __init__(self, binary, data, schema, args=(), key_env=None):
        env = {k: v for k, v in os.environ.items() if k != "SIMPLEX_DB_KEY"}
        if key_env is not None:
            env["SIMPLEX_DB_KEY"] = key_env
        self.schema = schema
        self.p = subprocess.Popen([binary, "--json", "--data", data, *CORE_ARGS, *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
        self.lines = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line)

    def run(self, command, timeout=30):
        self.next_id += 1
        corr = str(self.next_id)
        self.p.stdin.write(json.dumps({"corrId": corr, "cmd": command}) + "\n")
        self.p.stdin.flush()
        deadline = time.time() + timeout
        while True:
            message = json.loads(self.lines.get(timeout=max(0.01, deadline - time.time())))
            resp = message.get("resp")
            for problem in self.schema.check_message(resp):
                type_errors.append(f"{(resp or {}).get('type')}: {problem}")
            if message.get("corrId") == corr:
                return resp

    def close(self):
        self.p.stdin.close()
        code = self.p.wait(timeout=30)
        self.p.stderr.close()
        return code


def refused_start(binary, data, args=(), key_env=None):
    """Runs the host that must not start: its exit code and standard error."""
    env = {k: v for k, v in os.environ.items() if k != "SIMPLEX_DB_KEY"}
    if key_env is not None:
        env["SIMPLEX_DB_KEY"] = key_env
    p = subprocess.run([binary, "--json", "--data", data, *CORE_ARGS, *args], input="", capture_output=True, text=True, env=env,
                       timeout=60)
    return p.returncode, p.stderr


def kind(r):
    """`type`, and for errors the tags down to the one that matters."""
    if r.get("type") != "chatCmdError":
        return r.get("type")
    e = r.get("chatError", {})
    if e.get("type") == "errorDatabase":
        d = e.get("databaseError", {})
        return "errorDatabase:" + d.get("type", "") + (":" + d["sqliteError"]["type"] if "sqliteError" in d else "")
    return e.get("errorType", e.get("storeError", {})).get("type")


def files_holding(folder, needle):
    found = []
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                if needle in f.read():
                    found.append(os.path.relpath(path, folder))
    return sorted(found)


def magic(path):
    with open(path, "rb") as f:
        return f.read(16)


def key_file(folder, name, text):
    path = os.path.join(folder, name)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text)
    return path


def note_texts(host):
    r = host.run(f"/_get chat *1 count={NOTES + 10}")
    return sorted(item["content"]["msgContent"]["text"] for item in r["chat"]["chatItems"])


def running_with_a_key(binary, schema, keys):
    """Notes while the chat runs with a key; the key changed; the old key refused, the new one opening the notes."""
    with tempfile.TemporaryDirectory() as data:
        old = key_file(keys, "old.key", "k3y-one\n")
        host = Host(binary, data, schema, ["--db-key-file", old])
        check("key file: a new data folder is made", host.run(
            '/_create user {"profile":{"displayName":"alice","fullName":""},"pastTimestamp":false}')["type"]
            == "activeUser")
        check("key file: chat started", host.run("/_start")["type"] == "chatStarted")
        for i in range(NOTES):
            r = host.run(f"/_create *1 text {i} {MARKER}")
            if r["type"] != "newChatItems":
                check("notes written", False, r)
                break
        written = note_texts(host)
        check(f"{NOTES} notes written and read back", len(written) == NOTES and all(MARKER in t for t in written))
        names = sorted(os.listdir(data))
        check("while the chat runs: the WAL and wal-index are there",
              "simplex_v1_chat.db-wal" in names and "simplex_v1_chat.db-shm" in names, names)
        check("while the chat runs: no file in the data folder holds the marker",
              files_holding(data, MARKER.encode()) == [], files_holding(data, MARKER.encode()))
        check("the databases are sealed", all(magic(os.path.join(data, f"simplex_v1_{n}.db")) == SEALED_MAGIC
                                              for n in ["chat", "agent"]))

        check("/db test key with the right key", kind(host.run("/db test key k3y-one")) == "cmdOk")
        check("/db test key with a wrong key", kind(host.run("/db test key k3y-bad")) == "errorDatabase:errorOpen:errorNotADatabase")
        check("/db key refused while the chat runs", kind(host.run("/db key k3y-one k3y-two")) == "chatNotStopped")
        check("chat stopped", host.run("/_stop")["type"] == "chatStopped")
        check("/db key with a wrong current key", kind(host.run("/db key k3y-bad k3y-two"))
              == "errorDatabase:errorOpen:errorNotADatabase")
        check("/_db encryption without the current key",
              kind(host.run('/_db encryption {"currentKey":"","newKey":"k3y-two"}')) == "errorDatabase:errorEncrypted")
        check("/db key changes the key", kind(host.run("/db key k3y-one k3y-two")) == "cmdOk")
        check("after the change: /_start says the store changed", kind(host.run("/_start")) == "chatStoreChanged")
        check("after the change: the old key fails /db test key",
              kind(host.run("/db test key k3y-one")) == "errorDatabase:errorOpen:errorNotADatabase")
        check("after the change: the new key passes /db test key", kind(host.run("/db test key k3y-two")) == "cmdOk")
        check("the host ends cleanly", host.close() == 0)
        check("after the change: no file holds the marker", files_holding(data, MARKER.encode()) == [])
        leftovers = [n for n in os.listdir(data) if n.endswith("-rekey") or n.endswith(".bak")]
        check("after the change: no staging file is left", leftovers == [], leftovers)

        code, err = refused_start(binary, data, ["--db-key-file", old])
        check("the old key is refused at start (exit 3, a hint)", code == 3 and "SIMPLEX_DB_KEY" in err, (code, err))
        code, err = refused_start(binary, data, key_env="k3y-wrong")
        check("a wrong key is refused at start (exit 3)", code == 3, (code, err))
        code, err = refused_start(binary, data)
        check("no key is refused at start (exit 3, a hint)", code == 3 and "SIMPLEX_DB_KEY" in err, (code, err))

        host = Host(binary, data, schema, key_env="k3y-two")
        check("the new key (SIMPLEX_DB_KEY) opens the store", host.run("/_start")["type"] == "chatStarted")
        check("the new key opens every note", note_texts(host) == written)
        check("the host ends cleanly", host.close() == 0)


def encrypting_a_plaintext_store(binary, schema, keys):
    """`/_db encryption` on a plaintext store, the plain store then refused; an archive of it; decrypting back."""
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as other:
        host = Host(binary, data, schema)
        host.run('/_create user {"profile":{"displayName":"bob","fullName":""},"pastTimestamp":false}')
        host.run("/_start")
        host.run(f"/_create *1 text plain {MARKER}")
        written = note_texts(host)
        host.run("/_stop")
        check("a plaintext store holds the marker (the scan works)", files_holding(data, MARKER.encode()) != [])
        check("/db test key on a plaintext store", kind(host.run("/db test key p4ss")) == "errorDatabase:errorOpen:errorNotADatabase")
        check("/_db encryption encrypts a plaintext store",
              kind(host.run('/_db encryption {"currentKey":"","newKey":"p4ss","keepKey":true}')) == "cmdOk")
        archive = os.path.join(data, "export.zip")
        check("/_db export of the encrypted store", host.run(
            "/_db export " + json.dumps({"archivePath": archive}))["type"] == "archiveExported")
        check("the host ends cleanly", host.close() == 0)
        check("encrypted: no database file holds the marker",
              [f for f in files_holding(data, MARKER.encode()) if f != "export.zip"] == [])
        with zipfile.ZipFile(archive) as z:
            entries = {name: z.read(name) for name in z.namelist()}
        check("the archive holds the databases sealed, no note in the clear",
              all(entries[f"simplex_v1_{n}.db"][:16] == SEALED_MAGIC for n in ["chat", "agent"])
              and not any(MARKER.encode() in data_ for data_ in entries.values()), sorted(entries))
        code, err = refused_start(binary, data)
        check("the plain store is refused once encrypted (exit 3)", code == 3, (code, err))

        importer = Host(binary, other, schema, key_env="p4ss")
        check("/_db import into a store under the same key", importer.run(
            "/_db import " + json.dumps({"archivePath": archive}))["type"] == "archiveImported")
        check("the importing host ends cleanly", importer.close() == 0)
        importer = Host(binary, other, schema, key_env="p4ss")
        importer.run("/_start")
        check("the imported store opens with the key, every note there", note_texts(importer) == written)
        importer.close()

        host = Host(binary, data, schema, ["--db-key-file", key_file(keys, "p.key", "p4ss")])
        check("/db decrypt", kind(host.run("/db decrypt p4ss")) == "cmdOk")
        check("the host ends cleanly", host.close() == 0)
        check("decrypted: plaintext files", all(magic(os.path.join(data, f"simplex_v1_{n}.db")) == PLAIN_MAGIC
                                                for n in ["chat", "agent"]))
        code, err = refused_start(binary, data, key_env="p4ss")
        check("decrypted: the key is refused (exit 3)", code == 3, (code, err))
        host = Host(binary, data, schema)
        host.run("/_start")
        check("decrypted: opens without a key, every note there", note_texts(host) == written)
        host.close()


def key_change_on_a_full_disk(binary, schema):
    """`/_db encryption` that runs out of space is the official core's errorExport (Archive.hs maps a failed export
    to DBErrorExport with SQLite's error), names the full disk, leaves no partial copy taking the space, and keeps
    the store under its old key; with room again the same change succeeds."""
    with tempfile.TemporaryDirectory() as mount:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount]).returncode != 0:
            check("full disk: an 8 MB tmpfs (needs root)", False)
            return
        try:
            data = os.path.join(mount, "data")
            os.mkdir(data)
            host = Host(binary, data, schema)
            host.run('/_create user {"profile":{"displayName":"dan","fullName":""},"pastTimestamp":false}')
            host.run("/_start")
            for i in range(40):
                host.run(f"/_create *1 text full-{i} " + "x" * 20_000)
            written = host.run("/_get chat *1 count=100")["chat"]["chatItems"]
            host.run("/_stop")
            filler = os.path.join(mount, "filler")
            with open(filler, "wb", buffering=0) as f:  # unbuffered: a failed write leaves nothing for close
                try:
                    while True:
                        f.write(b"\0" * 65_536)
                        f.flush()
                except OSError:
                    pass
            os.truncate(filler, max(0, os.path.getsize(filler) - 200_000))
            r = host.run('/_db encryption {"currentKey":"","newKey":"full-k3y"}')
            check("full disk: the key change is errorDatabase errorExport", kind(r) == "errorDatabase:errorExport:error", r)
            message = r.get("chatError", {}).get("databaseError", {}).get("sqliteError", {}).get("dbError", "")
            check("full disk: the error names the full disk", "full" in message, message)
            check("full disk: no partial copy is left", [n for n in os.listdir(data) if "rekey" in n] == [],
                  sorted(os.listdir(data)))
            os.remove(filler)
            host.run("/_start")
            kept = host.run("/_get chat *1 count=100")["chat"]["chatItems"]
            check("full disk: every note is kept under the old key", len(kept) == len(written) == 40, len(kept))
            host.run("/_stop")
            check("full disk: with room again the change succeeds",
                  kind(host.run('/_db encryption {"currentKey":"","newKey":"full-k3y"}')) == "cmdOk")
            check("full disk: the host ends cleanly", host.close() == 0)
        finally:
            subprocess.run(["umount", "-l", mount])


def key_options(binary, keys):
    """The key options refuse what cannot be a key, before anything is made; --help lists them."""
    with tempfile.TemporaryDirectory() as data:
        both = refused_start(binary, data, ["--db-key-file", key_file(keys, "k", "x")], key_env="y")
        check("a key file and SIMPLEX_DB_KEY together are refused (exit 2)", both[0] == 2, both)
        empty_env = refused_start(binary, data, key_env="")
        check("an empty SIMPLEX_DB_KEY is refused (exit 2)", empty_env[0] == 2, empty_env)
        empty_file = refused_start(binary, data, ["--db-key-file", key_file(keys, "empty", "\n")])
        check("an empty key file is refused (exit 2)", empty_file[0] == 2, empty_file)
        missing = refused_start(binary, data, ["--db-key-file", os.path.join(keys, "missing")])
        check("a missing key file is refused (exit 2)", missing[0] == 2 and "missing" in missing[1], missing)
        check("nothing was made in the data folder", not any(n.startswith("simplex_v1") for n in os.listdir(data)))
    with tempfile.TemporaryDirectory() as data:
        readable = os.path.join(keys, "readable")
        with open(readable, "w") as f:
            f.write("r3adable")
        os.chmod(readable, 0o644)
        host = subprocess.run([binary, "status", "--data", data, *CORE_ARGS, "--db-key-file", readable], capture_output=True,
                              text=True, timeout=60)
        check("a key file others can read works, with a warning",
              host.returncode == 0 and "chmod 600" in host.stderr, (host.returncode, host.stderr))
    usage = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30).stdout
    check("--help lists --db-key-file and SIMPLEX_DB_KEY", "--db-key-file" in usage and "SIMPLEX_DB_KEY" in usage)


def main():
    binary = sys.argv[1]
    schema = api_types.Schema.installed()
    with tempfile.TemporaryDirectory() as keys:
        running_with_a_key(binary, schema, keys)
        encrypting_a_plaintext_store(binary, schema, keys)
        key_options(binary, keys)
    key_change_on_a_full_disk(binary, schema)
    check("every line validates against the simplex-chat 7.0.2 types", not type_errors,
          "\n  " + "\n  ".join(type_errors[:40]))
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
