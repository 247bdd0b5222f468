#!/usr/bin/env python3
"""An interrupted `/_db export` onto an existing backup leaves that backup whole. `simplex-host --json` exports a store
of 50,000 notes with a large files folder to a path that already holds a good archive, and is killed with SIGKILL
at 20 seeded moments spread over the export; after each kill the old archive is still there byte for byte and opens
as a zip with every entry's CRC right, and the store opens with every note. An export that runs to its end then
replaces it with the new archive and leaves no partial file behind.

usage: export_crash_safety.py PATH/TO/simplex-host
"""

import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_host import Host, check, finish  # noqa: E402
from switch_crash_safety import CHAT, NOTES, build_store, notes_in  # noqa: E402

KILLS = 20
SEED = 0x5AFE
BIG_FILE_MB = 12  # random bytes do not deflate: the export takes seconds


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def whole_zip(path):
    """None when the archive opens and every entry's CRC is right, else why not."""
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            return None if bad is None else f"bad entry {bad}"
    except Exception as e:  # noqa: BLE001 - any failure to open is the finding
        return repr(e)


def export(host, archive):
    return host.ask("/_db export " + json.dumps({"archivePath": archive}))


def partials(folder):
    return [n for n in os.listdir(folder) if ".export-" in n]


def main():
    binary = sys.argv[1]
    print(f"   kill moments from random.Random({SEED:#x})")
    rng = random.Random(SEED)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as root:
        data = os.path.join(root, "data")
        files = os.path.join(data, "files")
        backups = os.path.join(root, "backups")
        os.makedirs(files)
        os.makedirs(backups)
        archive = os.path.join(backups, "simplex-chat.zip")

        build_store(binary, data, "note")
        host = Host(binary, data)
        host.ask(f"/_files_folder {files}")
        first = export(host, archive)
        check("the first export answers archiveExported", first.get("type") == "archiveExported", json.dumps(first)[:300])
        host.close()
        check("the first backup is a whole zip", whole_zip(archive) is None, str(whole_zip(archive)))
        backup_digest = digest(archive)
        good_copy = os.path.join(root, "first-backup.zip")
        shutil.copyfile(archive, good_copy)

        with open(os.path.join(files, "big.bin"), "wb") as f:
            for _ in range(BIG_FILE_MB):
                f.write(os.urandom(1 << 20))

        # How long a whole export takes, onto a scratch path, to spread the kills over it.
        host = Host(binary, data)
        host.ask(f"/_files_folder {files}")
        t0 = time.monotonic()
        timed = export(host, os.path.join(root, "timed.zip"))
        duration = time.monotonic() - t0
        host.close()
        check("a whole export of the large store answers archiveExported", timed.get("type") == "archiveExported",
              json.dumps(timed)[:300])
        print(f"   a whole export takes {duration:.2f} s")

        interrupted, intact, finished_whole, store_whole = 0, 0, True, 0
        for k in range(KILLS):
            host = Host(binary, data)
            host.ask(f"/_files_folder {files}")
            delay = duration * (0.05 + 0.8 * (k + rng.random()) / KILLS)
            corr = host.send("/_db export " + json.dumps({"archivePath": archive}))
            time.sleep(delay)
            finished = corr in host.kill()
            tags, ok = notes_in(os.path.join(data, CHAT))
            host = Host(binary, data)
            started_again = host.ask("/_start").get("type") == "chatStarted"
            host.close()
            if tags == {"note": NOTES} and ok == "ok" and started_again:
                store_whole += 1
            else:
                print(f"   kill {k} at {delay:.2f} s: the store holds {tags}, {ok}, started: {started_again}")
            same = os.path.exists(archive) and digest(archive) == backup_digest
            problem = whole_zip(archive) if os.path.exists(archive) else "missing"
            if not finished and not same and problem is None and partials(backups) == []:
                # The kill came after the rename that commits the export and before its answer was written: the
                # backup is the new whole archive, as if the answer had come.
                print(f"   kill {k} at {delay:.2f} s: after the export's rename, before its answer")
                finished = True
            if finished:
                # The export ran to its end before the kill (a loaded machine is faster or slower than the timed
                # run): the backup is the new whole archive; the old one goes back for the next kill.
                finished_whole = finished_whole and problem is None
                shutil.copyfile(good_copy, archive)
                continue
            interrupted += 1
            if same and problem is None:
                intact += 1
            else:
                print(f"   kill {k} at {delay:.2f} s: backup {'changed' if os.path.exists(archive) else 'gone'}, {problem}")
        print(f"   {interrupted} of {KILLS} kills came before the export answered")
        check("most kills interrupt an export", interrupted >= KILLS // 2, f"{interrupted} of {KILLS}")
        check("the old backup is intact after each kill that interrupted an export onto it", intact == interrupted,
              f"{intact} of {interrupted}")
        check("an export the kill came too late for left a whole archive", finished_whole)
        check(f"after each of {KILLS} kills the store starts again with all {NOTES} notes", store_whole == KILLS,
              f"{store_whole} of {KILLS}")

        host = Host(binary, data)
        host.ask(f"/_files_folder {files}")
        last = export(host, archive)
        host.close()
        check("an export that runs to its end answers archiveExported", last.get("type") == "archiveExported",
              json.dumps(last)[:300])
        check("and replaces the backup with a whole zip", whole_zip(archive) is None, str(whole_zip(archive)))
        with zipfile.ZipFile(archive) as z:
            names = set(z.namelist())
        check("the new backup holds the large file", "simplex_v1_files/big.bin" in names, str(sorted(names)[:5]))
        check("no partial export is left beside it", partials(backups) == [], str(partials(backups)))
    print(f"   {time.monotonic() - started:.1f} s in all")
    finish()


if __name__ == "__main__":
    main()
