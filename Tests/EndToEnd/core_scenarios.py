#!/usr/bin/env python3
"""End to end: the embedded core through the scripting mode (`simplex-host --json`), one scenario per section of
the API (chat-api.md §4), in a real process. Every line the process writes, responses and events, is checked
against the types of the official Python client (api_types.py); each step also checks the response's type and the
fields the spec gives it.

usage: core_scenarios.py PATH/TO/simplex-host
Prints one line per check and `N passed, M failed` last; exits non-zero on any failure.
"""

import base64
import binascii
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

import api_types

passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


class Core:
    """`simplex-host --json` on its own data folder; every output line is validated as it is read."""

    def __init__(self, binary, data, schema):
        self.schema, self.data = schema, data
        self.p = subprocess.Popen([binary, "--json", "--data", data], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.events = []
        self.type_errors = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line)

    def _take(self, timeout):
        line = self.lines.get(timeout=timeout)
        message = json.loads(line)
        resp = message.get("resp")
        # Record order, as the official core writes it: the envelope's corrId first, the response's `type` first.
        if "corrId" in message and next(iter(message)) != "corrId":
            self.type_errors.append(f"envelope keys out of order: {line[:120]}")
        if isinstance(resp, dict) and next(iter(resp), None) != "type":
            self.type_errors.append(f"response not `type` first: {line[:120]}")
        for problem in self.schema.check_message(resp):
            self.type_errors.append(f"{(resp or {}).get('type')}: {problem}")
        return message

    def run(self, command, timeout=15):
        """Sends one command; returns its response (events seen meanwhile go to `events`)."""
        self.next_id += 1
        corr = str(self.next_id)
        self.p.stdin.write(json.dumps({"corrId": corr, "cmd": command}) + "\n")
        self.p.stdin.flush()
        deadline = time.time() + timeout
        while True:
            message = self._take(max(0.01, deadline - time.time()))
            if message.get("corrId") == corr:
                return message["resp"]
            self.events.append(message["resp"])

    def raw(self, line, timeout=15):
        """Writes `line` (bytes) as it is; returns the next command error that carries no corrId."""
        self.p.stdin.flush()
        self.p.stdin.buffer.write(line)
        self.p.stdin.buffer.flush()
        deadline = time.time() + timeout
        while True:
            message = self._take(max(0.01, deadline - time.time()))
            if "corrId" not in message and (message.get("resp") or {}).get("type") == "chatCmdError":
                return message
            self.events.append(message["resp"])

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=15)
        while not self.lines.empty():
            message = json.loads(self.lines.get())
            self.events.append(message.get("resp"))


class Scenario:
    def __init__(self, core, section):
        self.core, self.section = core, section

    def step(self, command, expect, *checks):
        """Runs `command`; its response type must be `expect` (for `chatCmdError`, `expect` may be
        `chatCmdError:<errorType tag>` or `chatCmdError:errorStore:<storeError tag>`)."""
        r = self.core.run(command)
        got = r.get("type")
        if got == "chatCmdError":
            e = r.get("chatError", {})
            got += ":" + str(e.get("errorType", e.get("storeError", {})).get("type", e.get("type")))
            if e.get("type") == "errorStore":
                got = "chatCmdError:errorStore:" + str(e.get("storeError", {}).get("type"))
        ok = got == expect or (expect == "chatCmdError" and got.startswith("chatCmdError"))
        detail = "" if ok else f"got {got}: {json.dumps(r)[:300]}"
        for name, predicate in checks:
            try:
                good = predicate(r)
            except Exception as error:  # a missing key fails the check, with its name
                good, name = False, f"{name} ({error!r})"
            if not good:
                ok, detail = False, detail + f" [{name}] {json.dumps(r)[:300]}"
        check(f"§{self.section} {command[:70]} → {expect}", ok, detail)
        return r


def official_random_id(text):
    """A SharedMsgId or MemberId as the official core writes it (`strToJSON` of `encodedRandomBytes 12`): base64url,
    padded, of the standard base64 text of 12 random bytes."""
    try:
        inner = base64.urlsafe_b64decode(text.encode("ascii"))
        return len(text) == 24 and len(base64.b64decode(inner, validate=True)) == 12
    except (binascii.Error, UnicodeError, AttributeError):
        return False


def new_items(core, since, group_id):
    """The items of a group's `newChatItems` events seen since event number `since` (events go out beside the
    responses, so some come while the next command runs)."""
    return [ci["chatItem"] for e in core.events[since:] if e and e.get("type") == "newChatItems"
            for ci in e["chatItems"] if ci["chatInfo"].get("groupInfo", {}).get("groupId") == group_id]


def wait_items(core, since, group_id, count):
    """A group's items from `newChatItems` events since `since`, once `count` of them came (or after 5 s)."""
    deadline = time.time() + 5
    while len(new_items(core, since, group_id)) < count and time.time() < deadline:
        core.run(f"/_info #{group_id}")
        time.sleep(0.05)
    return new_items(core, since, group_id)


GROUP_FEATURES = ["timedMessages", "directMessages", "fullDelete", "reactions", "voice", "files", "simplexLinks",
                  "reports", "history"]


def users_and_lifecycle(core):
    s = Scenario(core, "4.1/4.2")
    s.step("/u", "chatCmdError:noActiveUser")
    s.step("/_start", "chatCmdError:noActiveUser")
    s.step('/_create user {"profile":{"displayName":"alice","fullName":"Alice A"},"pastTimestamp":false}',
           "activeUser", ("displayName", lambda r: r["user"]["profile"]["displayName"] == "alice"))
    s.step("/_start", "chatStarted")
    s.step("/_start", "chatRunning")
    s.step("/_check running", "chatRunning")
    s.step("/users", "usersList", ("one user", lambda r: len(r["users"]) == 1))
    s.step('/_create user {"profile":{"displayName":"bob","fullName":""},"pastTimestamp":false}', "activeUser")
    s.step("/_user 1", "activeUser", ("switched", lambda r: r["user"]["userId"] == 1))
    s.step("/_mute user 2", "userPrivacy")
    s.step("/_unmute user 2", "userPrivacy")
    s.step('/_hide user 2 "pw"', "userPrivacy", ("hidden", lambda r: "viewPwdHash" in r["updatedUser"]))
    s.step('/_unhide user 2 "pw"', "userPrivacy")
    s.step('/_profile 1 {"displayName":"alice","fullName":"Alice B"}', "userProfileUpdated")
    s.step('/_profile 1 {"displayName":"alice","fullName":"Alice B"}', "userProfileNoChange")
    s.step("/_set receipts contacts 1 on", "cmdOk")
    s.step("/_set receipts groups 1 off", "cmdOk")
    s.step("/_delete user 2 del_smp=off", "cmdOk")
    s.step("/_app activate", "cmdOk")
    s.step("/_ttl 1", "chatItemTTL")


def desktop_sequence(core):
    """What SimpleX Desktop sends first to a host (core part 1, point 6): each must answer as the real core."""
    s = Scenario(core, "desktop")
    s.step("/u", "activeUser")
    s.step("/users", "usersList")
    s.step("/_show_address 1", "chatCmdError:errorStore:userContactLinkNotFound")
    s.step("/_ttl 1", "chatItemTTL")
    s.step("/_get chats 1 pcc=on", "apiChats")
    s.step("/_get tags 1", "chatTags")
    s.step("/get subs total 1", "agentSubsTotal",
           ("zeros", lambda r: r["subsTotal"]["ssActive"] == 0))


def settings_and_diagnostics(core):
    s = Scenario(core, "4.10/4.13/4.15")
    s.step('/_save app settings {"networkConfig":null}', "cmdOk")
    s.step("/_get app settings", "appSettings")
    s.step('/_network info {"networkType":"wifi","online":true}', "cmdOk")
    s.step("/_set theme user 1", "cmdOk")
    s.step("/v", "versionInfo", ("version", lambda r: "version" in r["versionInfo"]))
    s.step("/get servers summary 1", "agentServersSummary")
    s.step("/_call get", "callInvitations", ("empty", lambda r: r["callInvitations"] == []))
    s.step("/_contacts 1", "contactsList", ("empty", lambda r: r["contacts"] == []))


def notes(core, data):
    s = Scenario(core, "4.3")
    files = os.path.join(data, "files")
    os.makedirs(files, exist_ok=True)
    with open(os.path.join(files, "report.pdf"), "wb") as f:
        f.write(b"%PDF-1.4 " + b"x" * 1000)
    first = s.step("/_create *1 text hello notes", "newChatItems",
                   ("one item", lambda r: len(r["chatItems"]) == 1),
                   ("localSnd", lambda r: r["chatItems"][0]["chatItem"]["chatDir"]["type"] == "localSnd"))
    item = first["chatItems"][0]["chatItem"]["meta"]["itemId"]
    s.step('/_create *1 json [{"msgContent":{"type":"link","text":"see https://simplex.chat","preview":'
           '{"uri":"https://simplex.chat","title":"SimpleX","description":"","image":"data:image/png;base64,AA=="}}},'
           '{"msgContent":{"type":"file","text":""},"fileSource":{"filePath":"report.pdf"}}]',
           "newChatItems", ("two items", lambda r: len(r["chatItems"]) == 2),
           ("file", lambda r: r["chatItems"][1]["chatItem"]["file"]["fileName"] == "report.pdf"))
    for i in range(20):
        core.run(f"/_create *1 text note {i}")
    s.step("/_get chat *1 count=5", "apiChat", ("five", lambda r: len(r["chat"]["chatItems"]) == 5))
    s.step(f"/_get chat *1 around={item} count=3", "apiChat", ("navInfo", lambda r: "navInfo" in r))
    s.step("/_get chat *1 count=50 search=note 1", "apiChat",
           ("matches", lambda r: all("note 1" in i["meta"]["itemText"] for i in r["chat"]["chatItems"])))
    s.step("/_get chat *1 content=file count=10", "apiChat", ("one file", lambda r: len(r["chat"]["chatItems"]) == 1))
    s.step("/_get content types *1", "chatContentTypes")
    s.step(f"/_get item info *1 {item}", "chatItemInfo")
    s.step(f'/_update item *1 {item} json {{"msgContent":{{"type":"text","text":"hello, edited"}}}}', "chatItemUpdated")
    s.step(f'/_update item *1 {item} json {{"msgContent":{{"type":"text","text":"hello, edited"}}}}', "chatItemNotChanged")
    s.step(f"/_forward plan *1 {item}", "forwardPlan")
    s.step(f"/_forward *1 *1 {item}", "newChatItems")
    s.step("/_read chat *1", "cmdOk")
    s.step("/_unread chat *1 on", "cmdOk")
    s.step(f'/_reaction *1 {item} on {{"type":"emoji","emoji":"👍"}}', "chatCmdError:commandError")
    s.step(f"/_delete item *1 {item} internal", "chatItemsDeleted")
    s.step("/_get chats 1", "apiChats", ("preview", lambda r: any(len(c["chatItems"]) == 1 for c in r["chats"])))
    s.step("/* a human note", "newChatItems")
    s.step("/_clear chat *1", "chatCleared")
    s.step("/_create *999 text x", "chatCmdError:errorStore:noteFolderNotFound")


def groups_and_tags(core):
    s = Scenario(core, "4.5/4.6")
    since = len(core.events)
    g = s.step('/_group 1 {"displayName":"team","fullName":"The team"}', "groupCreated",
               ("owner", lambda r: r["groupInfo"]["membership"]["memberRole"] == "owner"),
               ("member id", lambda r: official_random_id(r["groupInfo"]["membership"]["memberId"])))
    gid = g["groupInfo"]["groupId"]
    # The group's first items come as events (the official core's `APINewGroup`): its banner, dated at the epoch, the
    # encryption notice and one item per group feature, each in its own `newChatItems`.
    s.step(f"/_info #{gid}", "groupInfo")
    created = wait_items(core, since, gid, 11)
    check("§4.5 a new group's items: banner, encryption notice, features",
          [i["content"]["type"] for i in created] == ["chatBanner", "sndGroupE2EEInfo"] + ["sndGroupFeature"] * 9
          and created[0]["meta"]["itemTs"] == "1970-01-01T00:00:00Z"
          and created[1]["content"]["e2eeInfo"] == {"pqEnabled": False}
          and [i["content"]["groupFeature"] for i in created[2:]] == GROUP_FEATURES
          and created[6]["meta"]["itemText"] == "Voice messages: on"
          and len(created) == 11,
          json.dumps([(i["meta"]["itemId"], i["content"], i["meta"]["itemText"]) for i in created])[:1500])
    s.step(f"/_get chat #{gid} count=20", "apiChat",
           ("the same items", lambda r: r["chat"]["chatItems"] == created))
    since = len(core.events)
    s.step(f'/_group_profile #{gid} {{"displayName":"team","fullName":"Our team","groupPreferences":{{"voice":{{"enable":"off"}}}}}}',
           "groupUpdated")
    s.step(f"/_info #{gid}", "groupInfo")
    updated = wait_items(core, since, gid, 2)
    check("§4.5 a profile update's items: groupUpdated, the changed feature",
          [i["content"]["type"] for i in updated] == ["sndGroupEvent", "sndGroupFeature"]
          and updated[0]["content"]["sndGroupEvent"]["type"] == "groupUpdated"
          and updated[0]["content"]["sndGroupEvent"]["groupProfile"]["fullName"] == "Our team"
          and official_random_id(updated[0]["meta"]["itemSharedMsgId"])
          and updated[1]["content"] == {"type": "sndGroupFeature", "groupFeature": "voice", "preference": {"enable": "off"}},
          json.dumps(updated)[:400])
    s.step(f"/_forward *1 #{gid} {created[1]['meta']['itemId']}", "chatCmdError:invalidForward")
    s.step(f"/_get chat #{gid} content=text count=20", "apiChat", ("no messages", lambda r: r["chat"]["chatItems"] == []))
    s.step(f"/_set alias #{gid} work", "groupAliasUpdated")
    s.step(f"/_members #{gid}", "groupMembers")
    s.step(f"/_info #{gid}", "groupInfo")
    s.step(f'/_settings #{gid} {{"enableNtfs":"mentions","favorite":true}}', "cmdOk")
    s.step("/_groups 1", "groupsList", ("one group", lambda r: len(r["groups"]) == 1))
    s.step("/_get chats 1 pcc=on", "apiChats",
           ("group listed", lambda r: any(c["chatInfo"]["type"] == "group" for c in r["chats"])))
    s.step('/_create tag {"emoji":"🏠","text":"Family"}', "chatTags")
    s.step('/_create tag {"text":"Family"}', "chatCmdError:errorStore:dBException")
    tags = s.step("/_get tags 1", "chatTags", ("one tag", lambda r: len(r["userTags"]) == 1))
    tag = tags["userTags"][0]["chatTagId"]
    s.step(f"/_tags #{gid} {tag}", "tagsUpdated")
    s.step(f'/_update tag {tag} {{"text":"Home"}}', "cmdOk")
    s.step(f"/_reorder tags {tag}", "cmdOk")
    s.step(f"/_ttl 1 #{gid} 86400", "cmdOk")
    s.step(f"/_set theme #{gid}", "cmdOk")
    s.step("/_members #999", "chatCmdError:errorStore:groupNotFound")
    s.step(f"/_delete tag {tag}", "cmdOk")
    s.step("/g second", "groupCreated")
    s.step("/ms #second", "groupMembers")
    since = len(core.events)
    s.step("/_leave #2", "leftMemberUser", ("left", lambda r: r["groupInfo"]["membership"]["memberStatus"] == "left"))
    s.step("/_info #2", "groupInfo")
    left = [i for i in wait_items(core, since, 2, 12) if i["content"]["type"] == "sndGroupEvent"]
    check("§4.5 leaving's item: userLeft",
          [i["content"] for i in left] == [{"type": "sndGroupEvent", "sndGroupEvent": {"type": "userLeft"}}]
          and left[0]["meta"]["itemText"] == "left", json.dumps(left)[:400])
    s.step("/_delete #2", "groupDeletedUser")


def group_items(core):
    """A local group's items: the user is the only member, so everything is `groupSnd` and reaches nobody."""
    s = Scenario(core, "4.3 groups")
    files = os.path.join(core.data, "files")
    os.makedirs(files, exist_ok=True)
    with open(os.path.join(files, "report.txt"), "w") as f:
        f.write("quarterly")
    s.step(f"/_files_folder {files}", "cmdOk")
    first = s.step("/_send #1 text hello", "newChatItems",
                   ("groupSnd", lambda r: r["chatItems"][0]["chatItem"]["chatDir"]["type"] == "groupSnd"),
                   ("shared id", lambda r: official_random_id(r["chatItems"][0]["chatItem"]["meta"]["itemSharedMsgId"])))
    item = first["chatItems"][0]["chatItem"]["meta"]["itemId"]
    reply = s.step(
        "/_send #1 live=off ttl=default json " + json.dumps(
            [{"quotedItemId": item, "msgContent": {"type": "text", "text": "re"}, "mentions": {}},
             {"fileSource": {"filePath": "report.txt"}, "msgContent": {"type": "file", "text": "the report"}, "mentions": {}}]),
        "newChatItems",
        ("quote", lambda r: r["chatItems"][0]["chatItem"]["quotedItem"]["itemId"] == item),
        ("file", lambda r: r["chatItems"][1]["chatItem"]["file"]["fileSource"]["filePath"] == "report.txt"))
    second = reply["chatItems"][0]["chatItem"]["meta"]["itemId"]
    s.step(f"/_update item #1 {item} text hello!", "chatItemUpdated",
           ("edited", lambda r: r["chatItem"]["chatItem"]["meta"]["itemEdited"]))
    s.step(f'/_reaction #1 {item} on {{"type":"emoji","emoji":"👍"}}', "chatItemReaction",
           ("counted", lambda r: r["reaction"]["chatReaction"]["chatItem"]["reactions"][0]["totalReacted"] == 1))
    s.step(f'/_reaction #1 {item} on {{"type":"emoji","emoji":"👍"}}', "chatCmdError:commandError")
    s.step(f"/_read chat items #1 {item}", "itemsReadForChat")
    s.step(f"/_forward plan #1 {item}", "forwardPlan", ("all", lambda r: r["chatItemIds"] == [item]))
    s.step(f"/_forward *1 #1 {item}", "newChatItems",
           ("from the group", lambda r: r["chatItems"][0]["chatItem"]["meta"]["itemForwarded"]["type"] == "group"))
    s.step(f"/_delete item #1 {second} internalMark", "chatItemsDeleted",
           ("marked", lambda r: r["chatItemDeletions"][0]["toChatItem"]["chatItem"]["meta"]["itemDeleted"]["type"] == "deleted"))
    s.step(f"/_delete item #1 {second} internal", "chatItemsDeleted",
           ("removed", lambda r: "toChatItem" not in r["chatItemDeletions"][0]))
    s.step("#team from the terminal", "newChatItems")
    s.step("/_get chat #1 count=10", "apiChat",
           ("three messages", lambda r: len([i for i in r["chat"]["chatItems"] if i["content"]["type"] == "sndMsgContent"]) == 3))
    s.step("/_send @1 text hi", "chatCmdError:errorStore:contactNotFound")
    s.step("/_send #1(_support) text hi", "chatCmdError:commandError")


def without_peers(core):
    """What needs a peer to exist (a contact, a request, a pending connection, an address, another member, a received
    file) answers the real core's not-found errors; the user's own membership, items and reads answer as for a local
    group; reads of what the network would fill answer empty."""
    s = Scenario(core, "4.4/4.16/4.17 no peers")
    for command in ["/_set prefs @9 {}", "/_set alias @9 friend", "/_info @9", '/_set custom @9 {"bot":"x"}',
                    "/_set contact user @9 1", "/_get code @9", "/_verify code @9", "/_enable @9"]:
        s.step(command, "chatCmdError:errorStore:contactNotFound", ("the id", lambda r: r["chatError"]["storeError"]["contactId"] == 9))
    s.step("/_reject 9", "chatCmdError:errorStore:contactRequestNotFound")
    s.step("/_set alias :9 work", "chatCmdError:errorStore:pendingConnectionNotFound")
    s.step("/_set incognito :9 on", "chatCmdError:errorStore:pendingConnectionNotFound")
    s.step("/_delete_address 1", "chatCmdError:errorStore:userContactLinkNotFound")
    s.step("/_share address #1", "chatCmdError:errorStore:userContactLinkNotFound")

    s = Scenario(core, "4.5/4.17 members")
    me = core.run("/_info #1")["groupInfo"]["membership"]["groupMemberId"]
    s.step(f"/_member role #1 {me} admin", "chatCmdError:commandError",
           ("self", lambda r: r["chatError"]["errorType"]["message"] == "can't change role for self"))
    s.step("/_member role #1 99 admin", "chatCmdError:groupMemberNotFound")
    s.step(f"/_block #1 {me} blocked=on", "chatCmdError:commandError")
    s.step("/_block #1 99 blocked=on", "chatCmdError:groupMemberNotFound")
    s.step(f"/_remove #1 {me}", "chatCmdError:groupMemberNotFound")
    s.step(f"/_accept member #1 {me} member", "chatCmdError:commandError")
    s.step("/_accept member #1 99 member", "chatCmdError:errorStore:groupMemberNotFound")
    s.step(f"/_delete member chat #1 {me}", "chatCmdError:commandError")
    for command in [f"/_get code #1 {me}", f"/_verify code #1 {me}", f"/_enable #1 {me}"]:
        s.step(command, "chatCmdError:groupMemberNotActive")
    s.step("/_set group user #1 1", "chatCmdError:commandError")

    s = Scenario(core, "4.3/4.20 group items")
    sent = s.step("/_send #1 text to moderate", "newChatItems")
    item = sent["chatItems"][0]["chatItem"]["meta"]["itemId"]
    thumbs = '{"type":"emoji","emoji":"👍"}'
    s.step(f"/_reaction #1 {item} on {thumbs}", "chatItemReaction")
    s.step(f"/_reaction members 1 #1 {item} {thumbs}", "reactionMembers",
           ("the user", lambda r: [m["groupMember"]["groupMemberId"] for m in r["memberReactions"]] == [me]))
    s.step(f"/_delete member item #1 {item}", "chatItemsDeleted",
           ("moderated by the user", lambda r: r["chatItemDeletions"][0]["toChatItem"]["chatItem"]["meta"]["itemDeleted"]
            ["byGroupMember"]["groupMemberId"] == me))
    s.step(f"/_report #1 {item} reason=spam", "chatCmdError:commandError")
    s.step("/_archive reports #1", "groupChatItemsDeleted", ("none", lambda r: r["chatItemIDs"] == []))
    s.step(f"/_delete reports #1 {item} internal", "chatCmdError:commandError")
    s.step("/_share chat content #1 #1", "chatCmdError:commandError")
    s.step("/_get items count=3", "chatItems", ("three", lambda r: len(r["chatItems"]) == 3),
           ("newest last", lambda r: r["chatItems"][-1]["chatItem"]["meta"]["itemId"] == item))
    s.step("/_unread chat #1 on", "cmdOk")
    s.step("/_read user 1", "cmdOk")
    s.step("/_get chats 1", "apiChats", ("all read", lambda r: not any(c["chatStats"].get("unreadChat") for c in r["chats"])))

    s = Scenario(core, "4.7/4.15/4.20 files, diagnostics, settings")
    s.step("/_set_file_to_receive 99 approved_relays=on", "cmdOk")
    s.step("/fcancel 99", "chatCmdError:errorStore:fileNotFound")
    s.step("/_download info simplex:/file#/?desc=-%20party%3A%20recipient&data=%7B%22name%22%3A%22a.jpg%22%7D",
           "standaloneFileInfo", ("meta", lambda r: r["fileMeta"] == {"name": "a.jpg"}))
    s.step("/_resubscribe all", "cmdOk")
    s.step("/_connections diff show_ids=on", "connectionsDiff",
           ("empty", lambda r: r["userIds"] == r["connIds"] == {"missingIds": [], "extraIds": []}))
    s.step("/_network_statuses", "networkStatuses", ("none", lambda r: r["networkStatuses"] == []))
    s.step("/_set accept group invitations 1 on", "cmdOk")


def network(core):
    s = Scenario(core, "4.10")
    s.step("/network", "networkConfig")
    s.step("/reconnect", "cmdOk")


def servers_and_operators(core):
    s = Scenario(core, "4.12")
    ops = s.step("/_operators", "serverOperatorConditions",
                 ("two presets", lambda r: [o["operatorTag"] for o in r["conditions"]["serverOperators"]] == ["simplex", "flux"]))
    cid = ops["conditions"]["currentConditions"]["conditionsId"]
    s.step("/_conditions", "usageConditions")
    s.step(f"/_conditions_notified {cid}", "cmdOk")
    s.step(f"/_accept_conditions {cid} 1", "serverOperatorConditions",
           ("accepted", lambda r: r["conditions"]["conditionsAction"]["type"] == "accepted"))
    s.step("/operators 2:off", "serverOperatorConditions")
    got = s.step("/_servers 1", "userServers",
                 ("grouped", lambda r: [("operator" in g) for g in r["userServers"]] == [True, True, False]))
    groups = got["userServers"]
    s.step("/_validate_servers 1 " + json.dumps(groups), "userServersValidation",
           ("no errors", lambda r: r["serverErrors"] == []))
    own = groups[-1]
    own["smpServers"] = [{"server": "smp://abcd@smp8.simplex.im", "preset": False, "enabled": True, "deleted": False}]
    s.step("/_validate_servers 1 " + json.dumps(groups), "userServersValidation",
           ("duplicate", lambda r: [e["type"] for e in r["serverErrors"]] == ["duplicateServer", "duplicateServer"]))
    s.step("/_servers 1 " + json.dumps(groups), "chatCmdError:commandError")
    own["smpServers"] = [{"server": "smp://abcd@smp.example.com", "preset": False, "enabled": True, "deleted": False}]
    s.step("/_servers 1 " + json.dumps(groups), "cmdOk")
    s.step("/_accept_conditions 2 9", "chatCmdError:errorStore:operatorNotFound")


def request_shapes(core):
    """A request line is the official terminal server's `ChatSrvRequest` (corrId and cmd both strings): a corrId of
    another JSON type is refused as its server refuses it, without a corrId and without running the command; invalid
    UTF-8 is refused as chat_send_cmd refuses it."""
    def refusal(message):
        return {"resp": {"type": "chatCmdError",
                         "chatError": {"type": "error", "errorType": {"type": "commandError", "message": message}}}}
    for n, corr in enumerate(["1.5", "true", "null", "123456789012345678901234567890", "7", "[]"]):
        r = core.raw(b'{"corrId":%s,"cmd":"/_create *1 text unrun-%d"}\n' % (corr.encode(), n))
        check(f"request: corrId {corr} is refused as an invalid request", r == refusal("invalid request"), r)
    r = core.raw(b'{"cmd":"/_create *1 text unrun-missing"}\n')
    check("request: a missing corrId is refused as an invalid request", r == refusal("invalid request"), r)
    for name, line in [("a JSON request", b'{"corrId":"u1","cmd":"/_create *1 text unrun-\xff\xfe"}\n'),
                       ("a plain command", b"/_create *1 text unrun-\xc3\x28\n")]:
        r = core.raw(line)
        check(f"request: invalid UTF-8 in {name} is refused as chat_send_cmd refuses it",
              r == refusal("command is not valid UTF-8"), r)
    r = core.run("/_get chat *1 count=100 search=unrun-")
    check("request: no refused command ran", r.get("type") == "apiChat" and r["chat"]["chatItems"] == [], r)
    r = core.run("/_create *1 text after the refusals")
    check("request: a well-formed request runs after them", r.get("type") == "newChatItems", r)


def refusals(core):
    s = Scenario(core, "refused")
    s.step("/_connect 1", "chatCmdError:commandError",
           ("names the command", lambda r: "apiAddContact" in r["chatError"]["errorType"]["message"]))


def database_and_storage(binary, schema):
    """§4.11 on its own data folder: export, delete storage, import; after a restart the users, groups, tags and
    files are back. The archive is read by Python's zipfile, in the layout of the official apps (Archive.hs)."""
    import zipfile
    type_errors = []
    with tempfile.TemporaryDirectory() as data:
        folders = {"appFilesFolder": os.path.join(data, "app_files"), "appTempFolder": os.path.join(data, "app_temp"),
                   "appAssetsFolder": os.path.join(data, "app_assets")}
        paths = "/set file paths " + json.dumps(folders)
        archive = os.path.join(data, "export.zip")
        config = json.dumps({"archivePath": archive})
        state = ["/users", "/_get chats 1 pcc=on", "/_get tags 1"]
        core = Core(binary, data, schema)
        s = Scenario(core, "4.11")
        s.step(paths, "cmdOk")
        s.step('/_create user {"profile":{"displayName":"alice","fullName":""},"pastTimestamp":false}', "activeUser")
        s.step("/_start", "chatStarted")
        gid = s.step('/_group 1 {"displayName":"team","fullName":"The team"}', "groupCreated")["groupInfo"]["groupId"]
        s.step('/_create tag {"emoji":"💼","text":"Work"}', "chatTags")
        s.step(f"/_tags #{gid} 1", "tagsUpdated")
        photo = bytes(range(256)) * 1000
        with open(os.path.join(folders["appFilesFolder"], "photo.jpg"), "wb") as f:
            f.write(photo)
        s.step("/_create *1 text kept through the archive", "newChatItems")
        s.step('/_create *1 json [{"msgContent":{"type":"image","text":"","image":"data:image/png;base64,AA=="},'
               '"fileSource":{"filePath":"photo.jpg"}}]', "newChatItems")
        s.step(f"/_send #{gid} text a group message", "newChatItems")
        notes_before = core.run("/_get chat *1 count=10")
        group_before = core.run(f"/_get chat #{gid} count=10")
        s.step(f"/_db export {config}", "chatCmdError:chatNotStopped")
        s.step("/_db delete", "chatCmdError:chatNotStopped")
        s.step("/_stop", "chatStopped")
        before = [core.run(c) for c in state]
        s.step(f"/_db export {config}", "archiveExported", ("no errors", lambda r: r["archiveErrors"] == []))
        with zipfile.ZipFile(archive) as z:
            check("§4.11 zipfile reads the archive, CRCs and all", z.testzip() is None)
            check("§4.11 the archive has the apps' layout",
                  sorted(z.namelist()) == ["simplex_v1_agent.db", "simplex_v1_chat.db", "simplex_v1_files/photo.jpg"],
                  str(z.namelist()))
        s.step("/_db delete", "cmdOk")
        check("§4.11 delete removed the files folder", not os.path.exists(folders["appFilesFolder"]))
        s.step(f"/_db import {config}", "archiveImported", ("no errors", lambda r: r["archiveErrors"] == []))
        s.step("/_start", "chatCmdError:chatStoreChanged")
        core.close()
        type_errors += core.type_errors

        restarted = Core(binary, data, schema)
        s = Scenario(restarted, "4.11 after a restart")
        s.step(paths, "cmdOk")
        after = [restarted.run(c) for c in state]
        check("§4.11 users, chats and tags are back", after == before, json.dumps(after)[:300])
        with open(os.path.join(folders["appFilesFolder"], "photo.jpg"), "rb") as f:
            check("§4.11 the files are back", f.read() == photo)
        s.step("/_start", "chatStarted")
        check("§4.11 notes and their files are back", restarted.run("/_get chat *1 count=10") == notes_before)
        check("§4.11 group items are back", restarted.run(f"/_get chat #{gid} count=10") == group_before)
        s.step("/_stop", "chatStopped")
        restarted.close()
        type_errors += restarted.type_errors
    check("§4.11 every line validates against the simplex-chat 7.0.2 types", not type_errors,
          "\n  " + "\n  ".join(type_errors[:40]))


SCENARIOS = [users_and_lifecycle, desktop_sequence, settings_and_diagnostics, groups_and_tags, group_items, without_peers,
             network, servers_and_operators, refusals]


def validator_self_test(schema):
    """The checker itself catches what it must: one broken value per kind of problem."""
    user = {"type": "activeUser", "user": {"userId": 1}}
    check("the checker finds a missing required key", any("lacks required key" in e for e in schema.check_message(user)))
    wrong = {"type": "chatCmdError", "chatError": {"type": "error", "errorType": {"type": "commandError", "message": 5}}}
    check("the checker finds a wrong JSON type", any("expected str" in e for e in schema.check_message(wrong)))
    extra = {"type": "chatCmdError", "chatError": {"type": "error", "errorType": {"type": "noActiveUser"}, "x": 1}}
    check("the checker finds an unknown key", any("has no key 'x'" in e for e in schema.check_message(extra)))
    tag = {"type": "chatCmdError", "chatError": {"type": "error", "errorType": {"type": "noSuchError"}}}
    check("the checker finds an unknown tag", any("unknown tag" in e for e in schema.check_message(tag)))
    # The corrections of type_corrections.py: the package's spellings are refused, the encoders' ones pass.
    check("the checker refuses the package's upper-case FileProtocol",
          any("is not one of" in e for e in schema.check_type("LOCAL", "FileProtocol"))
          and schema.check_type("local", "FileProtocol") == [])
    check("the checker refuses a numeric agentUserId",
          any("agentUserId: expected str" in e for e in schema.check_type({"agentUserId": 1}, "User")))
    good = {"type": "chatCmdError", "chatError": {"type": "error", "errorType": {"type": "noActiveUser"}}}
    check("the checker passes a well-formed value", schema.check_message(good) == [])


def main():
    binary = sys.argv[1]
    schema = api_types.Schema.installed()
    validator_self_test(schema)
    with tempfile.TemporaryDirectory() as data:
        core = Core(binary, data, schema)
        for scenario in SCENARIOS:
            scenario(core)
        notes(core, data)
        request_shapes(core)
        core.run("/_stop")
        core.close()
        for event in core.events:
            for problem in schema.check_message(event):
                core.type_errors.append(f"event {event.get('type')}: {problem}")
    check("every line validates against the simplex-chat 7.0.2 types", not core.type_errors,
          "\n  " + "\n  ".join(core.type_errors[:40]))
    database_and_storage(binary, schema)
    if schema.unchecked:
        print("types the package does not list (fields unchecked): "
              + "; ".join(f"{t}: {','.join(sorted(k))}" for t, k in sorted(schema.unchecked.items())))
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
