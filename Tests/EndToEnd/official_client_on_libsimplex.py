#!/usr/bin/env python3
"""End to end: the official Python client (`simplex-chat` from PyPI, pinned in requirements.txt, unmodified) on our
libsimplex.so, found through SIMPLEX_LIBS_DIR as the package documents. Its ChatApi initialises, creates a user,
starts, lists users, creates and lists groups (once the core serves them), gets chats, polls events, writes and reads
encrypted files with the package's file functions, stops, closes and reopens the same database; a wrong key and an
unconfirmed migration come back as the package's ChatInitError. A store made with a key holds no note in the clear,
opens with that key, and refuses another key or none. Encrypted files are also opened with PyNaCl
(scripts/fixtures/cryptofile.py), an implementation of simplexmq's format independent of ours.

usage: official_client_on_libsimplex.py BUILD_DIR   (the folder holding libsimplex.so)
Prints one line per check and `N passed, M failed` last; exits non-zero on any failure.
"""

import asyncio
import base64
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parents[2]
libs = pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) == 2 else None
if libs is None or not (libs / "libsimplex.so").exists():
    sys.exit("usage: official_client_on_libsimplex.py BUILD_DIR (with libsimplex.so in it)")
os.environ["SIMPLEX_LIBS_DIR"] = str(libs)
sys.path.insert(0, str(root / "scripts" / "fixtures"))

import cryptofile  # noqa: E402
from simplex_chat import core  # noqa: E402
from simplex_chat.api import ChatApi, SqliteDb  # noqa: E402
from simplex_chat.core import ChatAPIError, ChatInitError, MigrationConfirmation  # noqa: E402

passed, failed = 0, 0

# What the core answers for groups until it serves them; anything else fails the test.
GROUPS_NOT_SERVED = "not served by the embedded core yet: apiNewGroup"


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


async def groups(api, user_id):
    try:
        group = await api.api_new_group(user_id, {"displayName": "team", "fullName": ""})
    except ChatAPIError as e:
        error = e.chat_error or {}
        message = error.get("errorType", {}).get("message")
        check("groups: /_group answers only groupCreated or 'not served yet'", message == GROUPS_NOT_SERVED, error)
        print("     (groups are not served by this core yet: creating and listing them is skipped)")
        return
    check("groups: created", group.get("groupProfile", {}).get("displayName") == "team", group)
    # The group's first items come as events, one newChatItems each (the official core's `APINewGroup`).
    events = [await api.recv_chat_event(2_000_000) for _ in range(11)]
    contents = [e["chatItems"][0]["chatItem"]["content"]["type"] if e and e.get("type") == "newChatItems" else e
                for e in events]
    check("groups: banner, encryption notice and nine feature items polled",
          contents == ["chatBanner", "sndGroupE2EEInfo"] + ["sndGroupFeature"] * 9, contents)
    listed = await api.api_list_groups(user_id)
    check("groups: listed", [g["groupProfile"]["displayName"] for g in listed] == ["team"], listed)


async def files(api, folder):
    path = os.path.join(folder, "written")
    data = bytes(range(256)) * 300
    args = await core.chat_write_file(api.ctrl, path, data)
    check("files: chat_write_file gives base64url key and nonce",
          len(base64.urlsafe_b64decode(args["fileKey"])) == 32 and len(base64.urlsafe_b64decode(args["fileNonce"])) == 24,
          args)
    check("files: chat_read_file", await core.chat_read_file(path, args) == data)
    with open(path, "rb") as f:
        opened = cryptofile.open_file(base64.urlsafe_b64decode(args["fileKey"]),
                                      base64.urlsafe_b64decode(args["fileNonce"]), f.read())
    check("files: PyNaCl opens what chat_write_file wrote", opened == data)

    plain = os.path.join(folder, "plain")
    with open(plain, "wb") as f:
        f.write(data[:1000])
    encrypted = os.path.join(folder, "encrypted")
    args = await core.chat_encrypt_file(api.ctrl, plain, encrypted)
    decrypted = os.path.join(folder, "decrypted")
    await core.chat_decrypt_file(encrypted, args, decrypted)
    with open(decrypted, "rb") as f:
        check("files: chat_encrypt_file then chat_decrypt_file", f.read() == data[:1000])

    key, nonce = os.urandom(32), os.urandom(24)
    sealed = os.path.join(folder, "sealed-by-pynacl")
    with open(sealed, "wb") as f:
        f.write(cryptofile.seal(key, nonce, b"made elsewhere"))
    theirs = {"fileKey": base64.urlsafe_b64encode(key).decode(), "fileNonce": base64.urlsafe_b64encode(nonce).decode()}
    check("files: chat_read_file opens what PyNaCl sealed", await core.chat_read_file(sealed, theirs) == b"made elsewhere")

    wrong = dict(theirs, fileKey=base64.urlsafe_b64encode(os.urandom(32)).decode())
    for name, call in [("chat_read_file", core.chat_read_file(sealed, wrong)),
                       ("chat_decrypt_file", core.chat_decrypt_file(sealed, wrong, decrypted))]:
        try:
            await call
            check(f"files: {name} refuses a wrong key", False)
        except RuntimeError as e:
            check(f"files: {name} refuses a wrong key", str(e) == "FTCEInvalidAuthTag", e)
    try:
        await core.chat_read_file(os.path.join(folder, "missing"), theirs)
        check("files: a missing file is an error", False)
    except RuntimeError as e:
        check("files: a missing file is an error", "No such file or directory" in str(e), e)


async def encrypted_store(folder):
    """A store made with a key is sealed: nothing of a note is in its files, the key opens it again, `/db test key`
    tells the key, and another key or none is the package's ChatInitError errorNotADatabase."""
    prefix = os.path.join(folder, "sealed")
    marker = "marker-of-a-sealed-note-31c7"
    api = await ChatApi.init(SqliteDb(file_prefix=prefix, encryption_key="r1ght-k3y"))
    user = await api.api_create_active_user({"displayName": "bob", "fullName": ""})
    await api.start_chat()
    r = await api.send_chat_cmd(f"/_create *{user['userId']} text {marker}")
    check("key: a note written", r["type"] == "newChatItems", r)
    files = sorted(name for name in os.listdir(folder) if name.startswith("sealed"))
    holding = [name for name in files if marker.encode() in open(os.path.join(folder, name), "rb").read()]
    check("key: no file holds the note while the chat runs", holding == [] and "sealed_chat.db-wal" in files, files)
    r = await api.send_chat_cmd("/db test key r1ght-k3y")
    check("key: /db test key with the right key", r["type"] == "cmdOk", r)
    try:
        r = await api.send_chat_cmd("/db test key wr0ng-k3y")
        check("key: /db test key with a wrong key is errorDatabase", False, r)
    except ChatAPIError as e:
        check("key: /db test key with a wrong key is errorDatabase",
              e.chat_error == {"type": "errorDatabase",
                               "databaseError": {"type": "errorOpen", "sqliteError": {"type": "errorNotADatabase"}}},
              e.chat_error)
    await api.stop_chat()
    await api.close()

    again = await ChatApi.init(SqliteDb(file_prefix=prefix, encryption_key="r1ght-k3y"))
    reopened = await again.api_get_active_user()
    check("key: the right key opens the store", reopened is not None and reopened["userId"] == user["userId"], reopened)
    await again.close()
    for name, key in [("a wrong key", "wr0ng key"), ("no key", "")]:
        try:
            await ChatApi.init(SqliteDb(file_prefix=prefix, encryption_key=key))
            check(f"key: {name} on a sealed store: ChatInitError", False)
        except ChatInitError as e:
            check(f"key: {name} on a sealed store: ChatInitError errorNotADatabase",
                  e.db_migration_error == {"type": "errorNotADatabase", "dbFile": prefix + "_chat.db"},
                  e.db_migration_error)


async def unusable_prefixes(folder):
    """A prefix whose files could not be a store's is the package's ChatInitError, and nothing is made beside it:
    an existing non-database `_agent.db` (errorNotADatabase, no `_chat.db` made), and a folder the process cannot
    write (a read-only tmpfs, which stops root too: errorSQL)."""
    prefix = os.path.join(folder, "taken")
    with open(prefix + "_agent.db", "wb") as f:
        f.write(b"root:x:0:0:root:/root:/bin/bash\n" * 8)
    try:
        await ChatApi.init(SqliteDb(file_prefix=prefix))
        check("prefix: an existing non-database file: ChatInitError", False)
    except ChatInitError as e:
        check("prefix: an existing non-database file: ChatInitError errorNotADatabase",
              e.db_migration_error == {"type": "errorNotADatabase", "dbFile": prefix + "_agent.db"}, e.db_migration_error)
    check("prefix: nothing made beside the non-database file", not os.path.exists(prefix + "_chat.db"),
          sorted(os.listdir(folder)))
    readonly = os.path.join(folder, "readonly")
    os.mkdir(readonly)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", readonly]).returncode != 0:
        check("prefix: a read-only tmpfs (needs root)", False)
        return
    try:
        await ChatApi.init(SqliteDb(file_prefix=os.path.join(readonly, "x")))
        check("prefix: a folder that cannot be written: ChatInitError", False)
    except ChatInitError as e:
        error = e.db_migration_error
        check("prefix: a folder that cannot be written: ChatInitError errorSQL",
              error.get("type") == "errorSQL" and error.get("dbFile") == os.path.join(readonly, "x_chat.db")
              and "not writable" in error.get("migrationSQLError", ""), error)
    finally:
        subprocess.run(["umount", readonly])


async def main():
    folder = tempfile.mkdtemp(prefix="simplex-libsimplex-")
    prefix = os.path.join(folder, "simplex_v1")

    api = await ChatApi.init(SqliteDb(file_prefix=prefix))
    check("init: files named as the official core names them",
          os.path.exists(prefix + "_chat.db") and os.path.exists(prefix + "_agent.db"))
    check("no active user yet", await api.api_get_active_user() is None)
    user = await api.api_create_active_user({"displayName": "alice", "fullName": "Alice"})
    check("user created", user["localDisplayName"] == "alice" and user["profile"]["fullName"] == "Alice", user)
    user_id = user["userId"]
    await api.start_chat()
    check("chat started", api.started)
    users = await api.api_list_users()
    check("users listed", [u["user"]["localDisplayName"] for u in users] == ["alice"], users)

    await groups(api, user_id)

    chats = await api.api_get_chats(user_id, {"type": "last", "count": 20})
    kinds = sorted(c["chatInfo"]["type"] for c in chats)
    check("chats: the note folder, and groups when served", "local" in kinds and set(kinds) <= {"local", "group"}, kinds)

    r = await api.send_chat_cmd("/_app suspend 0")
    check("events: a command that raises one", r["type"] == "cmdOk", r)
    event = await api.recv_chat_event(2_000_000)
    check("events: chatSuspended polled", event is not None and event["type"] == "chatSuspended", event)
    check("events: nothing more (empty string on timeout)", await api.recv_chat_event(100_000) is None)
    r = await api.send_chat_cmd("/_app activate")
    check("events: activated again", r["type"] == "cmdOk", r)

    await files(api, folder)

    await api.stop_chat()
    check("chat stopped", not api.started)
    await api.close()
    check("store closed", not api.initialized)

    again = await ChatApi.init(SqliteDb(file_prefix=prefix))
    user = await again.api_get_active_user()
    check("reopened: the same user", user is not None and user["userId"] == user_id, user)
    check("reopened: users listed", len(await again.api_list_users()) == 1)
    await again.start_chat()
    await again.stop_chat()
    await again.close()

    try:
        await ChatApi.init(SqliteDb(file_prefix=prefix, encryption_key="a wrong key"))
        check("wrong key: ChatInitError", False)
    except ChatInitError as e:
        check("wrong key: ChatInitError errorNotADatabase",
              e.db_migration_error == {"type": "errorNotADatabase", "dbFile": prefix + "_chat.db"}, e.db_migration_error)

    await encrypted_store(folder)
    await unusable_prefixes(folder)

    try:
        await ChatApi.init(SqliteDb(file_prefix=os.path.join(folder, "fresh")), MigrationConfirmation.ERROR)
        check("unconfirmed migrations: ChatInitError", False)
    except ChatInitError as e:
        error = e.db_migration_error
        check("unconfirmed migrations: ChatInitError errorMigration upgrade",
              error.get("type") == "errorMigration" and error["migrationError"]["type"] == "upgrade"
              and len(error["migrationError"]["upMigrations"]) > 0, error)

    shutil.rmtree(folder, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


asyncio.run(main())
