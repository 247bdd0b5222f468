#!/usr/bin/env python3
"""Nothing is lost when a key change or an import is killed (docs/storage-encryption.md, "Switching files").

key-change: a store of 50,000 notes sealed with one key; a real `simplex-host --json` runs
`/_db encryption {"currentKey":"old…","newKey":"new…"}` and is killed with SIGKILL at seeded moments spread over the
change, 20 times (every fourth the moment its journal appears), each on a fresh copy of the store. After each kill the host opens the store with the old key or,
that refused (exit 3), with the new one, the last note is there, and after it closes both files decrypt under that key
(Tests/Peers/unseal_db.py, written from the format's description) to a chat database holding every note and an agent
database of the same store that passes integrity_check.

import: a plaintext store of 50,000 notes (tagged "current") and an archive of another one (tagged "archived"); the
host runs `/_db import` and is killed 20 times: 15 the moment its switch is seen to begin (the journal
`simplex_v1_store.switch` or `simplex_v1_chat.db.bak` appears) plus a seeded 0-3 ms, 5 at seeded moments of the
import's first half. After each kill the host opens the store, which is wholly one of the two
(every note of one tag, none of the other, both files with integrity_check ok); when it is the archive's, the
`.bak` files are the whole previous store.

The 50,000-note stores are built once per run and copied for each kill.

usage: switch_crash_safety.py PATH/TO/simplex-host key-change|import [KILLS] [--core-lib PATH/TO/libsimplex.so]
(with --core-lib every host runs that library as its core, whose chat_migrate_init finishes an interrupted switch,
and keeps its pairings in files of its own, which follow the key: the host must start with one key every time)
"""

import contextlib
import io
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Peers"))
import json_host  # noqa: E402
from json_host import check, finish  # noqa: E402
import unseal_db  # noqa: E402

NOTES = 50_000
BATCH = 1_000
OLD_KEY, NEW_KEY = "old passphrase 6c1d", "new passphrase 93fa"
SEEDS = {"key-change": 0x19C4A, "import": 0x19B0B}
CHAT, AGENT = "simplex_v1_chat.db", "simplex_v1_agent.db"
CORE_ARGS = []  # --core-lib PATH, or nothing


class Host(json_host.Host):
    """`simplex-host --json --data DATA` with the key in SIMPLEX_DB_KEY (none: plaintext)."""

    def __init__(self, binary, data, key=None):
        env = {k: v for k, v in os.environ.items() if k != "SIMPLEX_DB_KEY"}
        if key is not None:
            env["SIMPLEX_DB_KEY"] = key
        super().__init__(binary, data, CORE_ARGS, env=env, stderr=subprocess.PIPE)

    def ask(self, command):
        try:
            corr = self.send(command)
        except BrokenPipeError:
            return None
        return self.answer(corr)  # None: ended without answering, a refused start

    def kill(self):
        os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait(timeout=10)

    def close(self):
        with contextlib.suppress(BrokenPipeError):
            self.p.stdin.close()
        self.p.wait(timeout=60)
        self.p.stderr.read()


def build_store(binary, data, tag, key=None):
    """A data folder whose note folder holds NOTES notes `"{tag} {i} n…"`: the core writes the first BATCH
    (`/_create *1 json`), and SQL copies those rows, with the numbers in their texts moved on, up to NOTES, so the
    store takes seconds to build. Sealed with `key` afterwards by the host's own `/_db encryption`."""
    host = Host(binary, data)
    host.ask('/_create user {"profile":{"displayName":"switch","fullName":""},"pastTimestamp":false}')
    host.ask("/_start")
    batch = [{"msgContent": {"type": "text", "text": f"{tag} {i} " + "n" * 8}} for i in range(BATCH)]
    resp = host.ask("/_create *1 json " + json.dumps(batch))
    if (resp or {}).get("type") != "newChatItems":
        raise SystemExit(f"filling the store failed: {json.dumps(resp)[:300]}")
    host.ask("/_stop")
    host.close()
    db = sqlite3.connect(os.path.join(data, CHAT))
    columns = [r[1] for r in db.execute("PRAGMA table_info(chat_items)") if r[1] != "chat_item_id"]
    first = db.execute("SELECT min(chat_item_id) FROM chat_items WHERE item_text LIKE ?", (f"{tag} 0 n%",)).fetchone()[0]
    texts = ("item_text", "msg_content", "item_content")
    with db:
        for r in range(1, NOTES // BATCH):
            # Row `first + i` holds note i: its number in each text column becomes i + r·BATCH.
            moved = [f"replace({c}, '{tag} ' || (chat_item_id - {first}) || ' ', '{tag} ' || (chat_item_id - {first} + "
                     f"{r * BATCH}) || ' ')" if c in texts else c for c in columns]
            db.execute(f"INSERT INTO chat_items ({', '.join(columns)}) SELECT {', '.join(moved)} FROM chat_items "
                       f"WHERE chat_item_id BETWEEN {first} AND {first + BATCH - 1} ORDER BY chat_item_id")
    db.close()
    # The agent database holds no notes: a row of its own says which store it belongs to.
    db = sqlite3.connect(os.path.join(data, AGENT))
    with db:
        db.execute("CREATE TABLE switch_marker (tag TEXT NOT NULL)")
        db.execute("INSERT INTO switch_marker VALUES (?)", (tag,))
    db.close()
    if key is not None:
        host = Host(binary, data)
        resp = host.ask("/_db encryption " + json.dumps({"currentKey": "", "newKey": key}))
        host.close()
        if (resp or {}).get("type") != "cmdOk":
            raise SystemExit(f"sealing the store failed: {json.dumps(resp)[:300]}")


def last_note(host):
    if (host.ask("/_start") or {}).get("type") != "chatStarted":
        return None
    resp = host.ask("/_get chat *1 count=1") or {}
    items = resp.get("chat", {}).get("chatItems", [])
    return items[-1]["meta"]["itemText"].split(" ")[:2] if items else None


def open_with(binary, data, key):
    """Starts the host on the store with `key`: (the last note's [tag, index], None) when it opens, (None, exit code)
    when it is refused."""
    host = Host(binary, data, key)
    note = last_note(host)
    if note is None:
        try:
            code = host.p.wait(timeout=10)
        except subprocess.TimeoutExpired:  # running, but the notes did not read
            host.close()
            return None, "running"
        host.p.stderr.read()
        return None, code
    host.close()
    return note, None


def notes_in(path, query_tag=None):
    """(count of notes by tag, integrity_check) of a plaintext chat database."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tags = dict(db.execute("SELECT substr(item_text, 1, instr(item_text, ' ') - 1) AS t, count(DISTINCT item_text) "
                               "FROM chat_items WHERE item_text LIKE '% % n%' GROUP BY t").fetchall())
        return tags, db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


def integrity(path):
    """integrity_check of an agent database, with the tag of the store it was built for."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        marker = db.execute("SELECT tag FROM switch_marker").fetchone()[0]
        return db.execute("PRAGMA integrity_check").fetchone()[0] + " " + marker
    finally:
        db.close()


def unseal(sealed, key, plain):
    """The plaintext copy of a closed sealed file (Tests/Peers/unseal_db.py)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            unseal_db.main(sealed, key, plain, "SELECT 1")
    except SystemExit as e:  # not under this key, or not sealed
        raise ValueError(f"{os.path.basename(sealed)}: {e}") from None
    return plain


def key_change(binary, root, kills, rng):
    template = os.path.join(root, "template")
    t0 = time.monotonic()
    build_store(binary, template, "note", OLD_KEY)
    size = sum(os.path.getsize(os.path.join(template, n)) for n in (CHAT, AGENT))
    print(f"   the store of {NOTES} notes sealed with the old key: {size / 1e6:.1f} MB, built in "
          f"{time.monotonic() - t0:.1f} s")
    change = "/_db encryption " + json.dumps({"currentKey": OLD_KEY, "newKey": NEW_KEY})

    timed = os.path.join(root, "timed")
    shutil.copytree(template, timed)
    host = Host(binary, timed, OLD_KEY)
    host.ask("/_stop")
    t0 = time.monotonic()
    resp = host.ask(change)
    duration = time.monotonic() - t0
    host.close()
    check("a whole key change answers cmdOk", (resp or {}).get("type") == "cmdOk", json.dumps(resp)[:300])
    print(f"   a whole key change takes {duration:.2f} s")

    outcomes = {"old": 0, "new": 0}
    whole, inside_switch = 0, 0
    for k in range(kills):
        work = os.path.join(root, f"kill{k}")
        shutil.copytree(template, work)
        host = Host(binary, work, OLD_KEY)
        host.ask("/_stop")  # opened and answering
        # Seeded moments spread over the change; every fourth kill instead the moment its journal appears (the
        # commit) plus a seeded 0-3 ms, inside the switch.
        journal = os.path.join(work, "simplex_v1_store.switch")
        aimed = k % 4 == 3
        delay = rng.uniform(0, 0.003) if aimed else duration * (0.02 + 1.05 * (k + rng.random()) / kills)
        t0 = time.monotonic()
        host.send(change)
        while aimed and not os.path.exists(journal) and time.monotonic() - t0 < 10 * duration + 5:
            time.sleep(0.0002)
        time.sleep(delay)
        delay = time.monotonic() - t0
        host.kill()
        inside = os.path.exists(journal)
        inside_switch += inside
        # The old key first, the new one only when the old is refused (exit 3); both files then decrypt under the
        # key that opened them, so the store is wholly under it.
        opened, note, codes = [], None, []
        for name, key in (("old", OLD_KEY), ("new", NEW_KEY)):
            note, code = open_with(binary, work, key)
            codes.append(code)
            if note is not None:
                opened.append(name)
                break
        problem = None
        if len(opened) != 1:
            problem = f"opened with neither key (exit codes {codes})"
        else:
            key = OLD_KEY if opened[0] == "old" else NEW_KEY
            try:
                tags, ok = notes_in(unseal(os.path.join(work, CHAT), key, os.path.join(work, "chat.plain")))
                agent_ok = integrity(unseal(os.path.join(work, AGENT), key, os.path.join(work, "agent.plain")))
            except ValueError as e:
                tags, ok, agent_ok = {}, str(e), "unread"
            if codes[:-1] not in ([], [3]):
                problem = f"the old key was not refused with exit 3 ({codes})"
            elif note != ["note", str(NOTES - 1)]:
                problem = f"the last note is {note}"
            elif tags != {"note": NOTES} or ok != "ok" or agent_ok != "ok note":
                problem = f"notes {tags}, chat {ok}, agent {agent_ok}"
            else:
                outcomes[opened[0]] += 1
                whole += 1
        print(f"   kill {k} at {delay:.3f} s{' (inside the switch: journal left)' if inside else ''}: "
              + (problem or f"opens with the {opened[0]} key, all {NOTES} notes"))
        shutil.rmtree(work)
    print(f"   {outcomes['old']} kills left the old key, {outcomes['new']} the new one; {inside_switch} came inside the "
          "switch (its journal left for the next start)")
    check(f"after each of {kills} kills the store opens with one of the two keys, with every note", whole == kills,
          f"{whole} of {kills}")
    check("the kills fell both before and after the switch", outcomes["old"] > 0 and outcomes["new"] > 0, str(outcomes))


def import_archive(binary, root, kills, rng):
    template = os.path.join(root, "template")
    other = os.path.join(root, "other")
    archive = os.path.join(root, "archive.zip")
    t0 = time.monotonic()
    build_store(binary, template, "current")
    build_store(binary, other, "archived")
    host = Host(binary, other)
    resp = host.ask("/_db export " + json.dumps({"archivePath": archive}))
    host.close()
    check("the archive is exported", (resp or {}).get("type") == "archiveExported", json.dumps(resp)[:300])
    shutil.rmtree(other)
    print(f"   two stores of {NOTES} notes and the archive of one ({os.path.getsize(archive) / 1e6:.1f} MB) built in "
          f"{time.monotonic() - t0:.1f} s")
    command = "/_db import " + json.dumps({"archivePath": archive})

    # A timed run: when the first backup appears, the switch is under way.
    timed = os.path.join(root, "timed")
    shutil.copytree(template, timed)
    host = Host(binary, timed)
    host.ask("/_stop")
    seen = {}
    done = threading.Event()

    def watch():
        while not done.is_set():
            if "bak" not in seen and os.path.exists(os.path.join(timed, CHAT + ".bak")):
                seen["bak"] = time.monotonic()
            time.sleep(0.0005)

    watcher = threading.Thread(target=watch)
    t0 = time.monotonic()
    watcher.start()
    resp = host.ask(command)
    duration = time.monotonic() - t0
    done.set()
    watcher.join()
    host.close()
    check("a whole import answers archiveImported", (resp or {}).get("type") == "archiveImported",
          json.dumps(resp)[:300])
    swap = seen.get("bak", t0 + duration) - t0
    print(f"   a whole import takes {duration:.3f} s; {CHAT}.bak appears at {swap:.3f} s")
    shutil.rmtree(timed)

    outcomes = {"current": 0, "archived": 0}
    whole, inside_switch = 0, 0
    for k in range(kills):
        work = os.path.join(root, f"kill{k}")
        shutil.copytree(template, work)
        host = Host(binary, work)
        host.ask("/_stop")
        # Three kills in four the moment the switch is seen to begin (its journal, or the first `.bak`), plus a
        # seeded 0-3 ms; the fourth at a seeded moment of the import's first half, before its switch.
        journal = os.path.join(work, "simplex_v1_store.switch")
        backup = os.path.join(work, CHAT + ".bak")
        aimed = k % 4 != 3
        offset = rng.uniform(0, 0.003) if aimed else duration * rng.uniform(0.05, 0.5)
        t0 = time.monotonic()
        host.send(command)
        if aimed:
            while time.monotonic() - t0 < 10 * duration + 5:
                if os.path.exists(journal) or os.path.exists(backup):
                    break
                time.sleep(0.0002)
        time.sleep(offset)
        delay = time.monotonic() - t0
        host.kill()
        inside = os.path.exists(journal)  # killed after the commit, before the switch was finished
        inside_switch += inside
        note, code = open_with(binary, work, None)
        tags, ok = notes_in(os.path.join(work, CHAT))
        agent_ok = integrity(os.path.join(work, AGENT))
        problem = None
        if note is None:
            problem = f"the host does not open the store (exit {code})"
        elif len(tags) != 1 or list(tags.values()) != [NOTES] or ok != "ok" or agent_ok != "ok " + next(iter(tags)):
            problem = f"notes {tags}, chat {ok}, agent {agent_ok}"
        elif note != [next(iter(tags)), str(NOTES - 1)]:
            problem = f"the last note is {note}, the file holds {tags}"
        elif "archived" in tags:
            backup_tags, backup_ok = notes_in(os.path.join(work, CHAT + ".bak"))
            backup_agent = integrity(os.path.join(work, AGENT + ".bak"))
            if backup_tags != {"current": NOTES} or backup_ok != "ok" or backup_agent != "ok current":
                problem = f"the backup holds {backup_tags}, chat {backup_ok}, agent {backup_agent}"
        leftovers = [n for n in os.listdir(work) if n.endswith(("-import", ".switch", ".switch-new"))]
        if problem is None and leftovers:
            problem = f"left {leftovers}"
        if problem is None:
            outcomes[next(iter(tags))] += 1
            whole += 1
        print(f"   kill {k} at {delay:.3f} s{' (inside the switch: journal left)' if inside else ''}: "
              + (problem or f"the {next(iter(tags))} store, all {NOTES} notes"))
        shutil.rmtree(work)
    print(f"   {outcomes['current']} kills left the previous store, {outcomes['archived']} the archive's; "
          f"{inside_switch} came inside the switch (its journal left for the next start)")
    check(f"after each of {kills} kills the store is wholly the previous one or the archive's", whole == kills,
          f"{whole} of {kills}")
    check("the kills fell both before and after the switch", outcomes["current"] > 0 and outcomes["archived"] > 0,
          str(outcomes))


def main():
    args = sys.argv[1:]
    if "--core-lib" in args:
        i = args.index("--core-lib")
        CORE_ARGS.extend(args[i:i + 2])
        del args[i:i + 2]
    binary, mode = args[0], args[1]
    kills = int(args[2]) if len(args) > 2 else 20
    seed = SEEDS[mode]
    print(f"   kill moments from random.Random({seed:#x})")
    rng = random.Random(seed)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as root:
        (key_change if mode == "key-change" else import_archive)(binary, root, kills, rng)
    print(f"   {time.monotonic() - t0:.1f} s in all")
    finish()


if __name__ == "__main__":
    main()
