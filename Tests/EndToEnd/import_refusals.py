#!/usr/bin/env python3
"""`/_db import` refuses archives that would leave a store the host does not open, before anything is replaced.
Archives made with Python's zipfile from a real export of `simplex-host --json`: a duplicated database entry, a
database entry that is a symbolic link, random bytes as the chat database, a database entry that expands past the
size it declares, and a zip bomb (200 MB of zeros in 200 KB) with the temporary folder on a 32 MB tmpfs. Each is
refused with its reason, the store keeps every note, and the host starts again on it; a good archive is imported
and the previous databases are kept as `.bak`.

usage: import_refusals.py PATH/TO/simplex-host   (root, for the tmpfs)
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_host import Host, check, finish  # noqa: E402

NOTES = 20


def notes(host):
    chat = host.ask(f"/_get chat *1 count={NOTES * 2}")
    return [i["meta"]["itemText"] for i in chat.get("chat", {}).get("chatItems", [])]


def reason(resp):
    """The error's words: an exception's message, or the databaseError tag with its sqliteError."""
    error = resp.get("chatError", resp)
    if error.get("type") == "errorDatabase":
        db = error.get("databaseError", {})
        return "errorDatabase " + db.get("type", "") + " " + json.dumps(db.get("sqliteError", {}))
    return json.dumps(error)


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as root:
        data = os.path.join(root, "data")
        host = Host(binary, data)
        host.ask('/_create user {"profile":{"displayName":"importer","fullName":""},"pastTimestamp":false}')
        host.ask("/_start")
        for i in range(NOTES):
            host.ask(f"/_create *1 text note {i}")
        before = notes(host)
        host.ask("/_stop")
        good = os.path.join(root, "good.zip")
        exported = host.ask("/_db export " + json.dumps({"archivePath": good}))
        check("the store exports", exported.get("type") == "archiveExported", json.dumps(exported)[:200])
        with zipfile.ZipFile(good) as z:
            chat_db = z.read("simplex_v1_chat.db")
            agent_db = z.read("simplex_v1_agent.db")

        def archive(name, build):
            path = os.path.join(root, name)
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                build(z)
            return path

        def symlink(z):
            info = zipfile.ZipInfo("simplex_v1_chat.db")
            info.create_system = 3
            info.external_attr = (0o120777 << 16)
            z.writestr(info, "/etc/passwd")
            z.writestr("simplex_v1_agent.db", agent_db)

        def duplicate(z):
            z.writestr("simplex_v1_chat.db", chat_db)
            z.writestr("simplex_v1_agent.db", agent_db)
            z.writestr("simplex_v1_chat.db", os.urandom(len(chat_db)))

        def random_chat(z):
            z.writestr("simplex_v1_chat.db", os.urandom(len(chat_db)))
            z.writestr("simplex_v1_agent.db", agent_db)

        import warnings
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it is told to write
        cases = [
            ("a database entry that is a symbolic link", archive("symlink.zip", symlink), "symbolic link"),
            ("a database entry given twice", archive("duplicate.zip", duplicate), "more than once"),
            ("random bytes as the chat database", archive("random.zip", random_chat),
             'errorDatabase errorOpen {"type": "errorNotADatabase"}'),
        ]

        # A chat database entry that declares 4096 bytes and expands to all of its own: the central directory's
        # uncompressed size is rewritten (zipfile writes it honestly), the local header's too.
        lying = archive("lying.zip", lambda z: (z.writestr("simplex_v1_chat.db", chat_db),
                                               z.writestr("simplex_v1_agent.db", agent_db)))
        raw = bytearray(open(lying, "rb").read())
        for signature, size_at in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
            at = raw.find(signature)
            while at >= 0:
                name_at = at + (46 if signature == b"PK\x01\x02" else 30)
                if raw[name_at:name_at + 18] == b"simplex_v1_chat.db":
                    struct.pack_into("<I", raw, at + size_at, 4096)
                at = raw.find(signature, at + 4)
        open(lying, "wb").write(raw)
        cases.append(("a database entry that expands past its declared size", lying, "more data than the declared"))

        bomb = os.path.join(root, "bomb.zip")
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("simplex_v1_chat.db", chat_db)
            z.writestr("simplex_v1_agent.db", agent_db)
            with z.open("simplex_v1_files/zeros.bin", "w", force_zip64=True) as f:
                block = bytes(1 << 20)
                for _ in range(200):
                    f.write(block)
        small = os.path.join(root, "small")
        os.makedirs(small)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", small]).returncode == 0
        check("a 32 MB tmpfs for the bomb's temporary folder", mounted)
        try:
            for what, path, expected in cases + [("a zip bomb of 200 MB with 32 MB free", bomb, "importing needs")]:
                config = {"archivePath": path}
                if path == bomb:
                    config["parentTempDirectory"] = small
                resp = host.ask("/_db import " + json.dumps(config))
                why = reason(resp)
                check(f"{what} is refused with its reason", resp.get("type") == "chatCmdError" and expected in why,
                      f"{resp.get('type')}: {why[:300]}")
                users = host.ask("/users").get("users", [])
                check(f"{what}: the store is still open with its user", len(users) == 1, str(users)[:200])
                check(f"{what}: nothing is replaced",
                      not any(n.endswith(".bak") for n in os.listdir(data)), str(os.listdir(data)))
            if mounted:
                left = os.listdir(small)
                check("the bomb left nothing in the temporary folder", left == [], str(left))
        finally:
            if mounted:
                subprocess.run(["umount", small])
        started = host.ask("/_start")
        check("the host's chat starts on its store after the refusals", started.get("type") == "chatStarted",
              json.dumps(started)[:200])
        check("and every note is there", notes(host) == before)
        host.close()

        host = Host(binary, data)
        host.ask("/_start")
        check("a restarted host opens the store with every note", notes(host) == before)
        host.ask("/_stop")
        imported = host.ask("/_db import " + json.dumps({"archivePath": good}))
        kept = [n for n in ("simplex_v1_chat.db.bak", "simplex_v1_agent.db.bak") if os.path.exists(os.path.join(data, n))]
        check("a good archive is imported, as the official core answers it, the previous databases kept as .bak",
              imported == {"type": "archiveImported", "archiveErrors": []} and len(kept) == 2,
              f"{json.dumps(imported)[:300]} {kept}")
        host.close()
    finish()


if __name__ == "__main__":
    main()
