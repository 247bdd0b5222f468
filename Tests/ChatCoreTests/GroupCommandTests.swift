import ChatCore
import SimplexEncoding
import XCTest

/// Local groups, chat-api.md §4.5 (and `/_groups`, `/_info #`, `/_set custom #`), through command lines.
final class GroupCommandTests: XCTestCase {
    static let time = #""2025-06-01T09:30:12.123456Z""#

    /// FullGroupPreferences of a group that sets none: the core's defaults (§7.3, §7.12).
    static let defaultFullPreferences =
        #"{"timedMessages":{"enable":"off","ttl":86400},"directMessages":{"enable":"off"},"fullDelete":{"enable":"off"},"reactions":{"enable":"on"},"voice":{"enable":"on"},"files":{"enable":"on"},"simplexLinks":{"enable":"on"},"reports":{"enable":"on"},"history":{"enable":"off"},"support":{"enable":"on"},"sessions":{"enable":"off"},"comments":{"enable":"off"},"signMessages":{"enable":"off"},"commands":[]}"#

    /// Creates a group named `name` for the active user and returns its result.
    @discardableResult
    private func newGroup(_ h: EngineHarness, _ name: String = "team", userId: Int64 = 1, line: UInt = #line) async
        -> CanonicalJSON
    {
        await h.result(#"/_group \#(userId) {"displayName":"\#(name)","fullName":""}"#, "groupCreated", line: line)
    }

    func testNewGroupAnswersGroupCreatedWithTheCoreJSON() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let text = await h.text(#"/_group 1 incognito=off {"displayName":"team","fullName":"Team chat"}"#)
        let envelope = try CanonicalJSON.parse(text)
        let memberId = try XCTUnwrap(envelope["result"]?["groupInfo"]?["membership"]?["memberId"]?.stringValue)
        // The base64 text of 12 random bytes, base64url-encoded again (`MemberId`'s `strToJSON`).
        XCTAssertEqual(memberId.count, 24)
        XCTAssertEqual(try Base64.decode(String(decoding: Base64.decode(memberId), as: UTF8.self), alphabet: .standard).count, 12)
        let t = Self.time
        let membership =
            #"{"groupMemberId":1,"groupId":1,"indexInGroup":0,"memberId":"\#(memberId)","memberRole":"owner","memberCategory":"user","memberStatus":"creator","memberSettings":{"showMessages":true},"blockedByAdmin":false,"invitedBy":{"type":"user"},"localDisplayName":"alice","memberProfile":{"profileId":1,"displayName":"alice","fullName":"","localAlias":""},"memberContactId":1,"memberContactProfileId":1,"memberChatVRange":{"minVersion":1,"maxVersion":16},"createdAt":\#(t),"updatedAt":\#(t)}"#
        let groupInfo =
            #"{"groupId":1,"useRelays":false,"localDisplayName":"team","groupProfile":{"displayName":"team","fullName":"Team chat"},"localAlias":"","fullGroupPreferences":\#(Self.defaultFullPreferences),"membership":\#(membership),"chatSettings":{"enableNtfs":"all","favorite":false},"createdAt":\#(t),"updatedAt":\#(t),"chatTs":\#(t),"userMemberProfileSentAt":\#(t),"chatTags":[],"groupSummary":{"currentMembers":1},"membersRequireAttention":0}"#
        XCTAssertEqual(
            text, #"{"result":{"type":"groupCreated","user":"# + UserCommandTests.alice + #","groupInfo":"# + groupInfo + "}}")
        // The same record comes back from the store.
        await h.expect(
            "/_info #1", #"{"result":{"type":"groupInfo","user":"# + UserCommandTests.alice + #","groupInfo":"# + groupInfo + "}}"
        )
    }

    func testNewGroupPreconditionsAndNames() async throws {
        let h = try EngineHarness()
        await h.chatError(#"/_group 1 {"displayName":"team","fullName":""}"#, "noActiveUser")
        await h.createUser("alice")
        await h.chatError(#"/_group 1 {"displayName":"team","fullName":""}"#, "chatNotStarted")
        await h.result("/_start", "chatStarted")
        let other = await h.chatError(#"/_group 2 {"displayName":"team","fullName":""}"#, "differentActiveUser")
        XCTAssertEqual(other["commandUserId"]?.integerValue, 2)
        let invalid = await h.chatError(##"/_group 1 {"displayName":"#team","fullName":""}"##, "invalidDisplayName")
        XCTAssertEqual(invalid["validName"]?.stringValue, "team")
        await h.chatError(#"/_group 1 {"fullName":""}"#, "commandError")
        await h.chatError(#"/_group 1 {"displayName":"t","groupPreferences":{"voice":{"enable":"maybe"}}}"#, "commandError")
        // Local display names are unique among the user's contacts (the user's own included) and groups.
        let first = await newGroup(h)
        let second = await newGroup(h)
        let named = await newGroup(h, "alice")
        XCTAssertEqual(first["groupInfo"]?["localDisplayName"]?.stringValue, "team")
        XCTAssertEqual(second["groupInfo"]?["localDisplayName"]?.stringValue, "team_1")
        XCTAssertEqual(second["groupInfo"]?["groupProfile"]?["displayName"]?.stringValue, "team")
        XCTAssertEqual(named["groupInfo"]?["localDisplayName"]?.stringValue, "alice_1")
    }

    func testGroupPreferencesMergeIntoFullPreferences() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let r = await h.result(
            #"/_group 1 {"displayName":"team","fullName":"","description":"Welcome!","groupPreferences":{"directMessages":{"enable":"on","role":"admin"},"timedMessages":{"enable":"on"},"unknown":{"enable":"on"}},"memberAdmission":{"review":"all"}}"#,
            "groupCreated")
        let info = try XCTUnwrap(r["groupInfo"])
        XCTAssertEqual(info["groupProfile"]?["groupPreferences"]?.keys, ["directMessages", "timedMessages"])
        XCTAssertEqual(info["groupProfile"]?["description"]?.stringValue, "Welcome!")
        XCTAssertEqual(info["groupProfile"]?["memberAdmission"]?["review"]?.stringValue, "all")
        let full = try XCTUnwrap(info["fullGroupPreferences"])
        XCTAssertEqual(full["directMessages"]?["role"]?.stringValue, "admin")
        XCTAssertEqual(full["timedMessages"]?["enable"]?.stringValue, "on")
        XCTAssertNil(full["timedMessages"]?["ttl"])
        XCTAssertEqual(full["history"]?["enable"]?.stringValue, "off")
    }

    func testIncognitoGroupShowsARandomProfile() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let r = await h.result(#"/_group 1 incognito=on {"displayName":"team","fullName":""}"#, "groupCreated")
        let membership = try XCTUnwrap(r["groupInfo"]?["membership"])
        let name = try XCTUnwrap(membership["memberProfile"]?["displayName"]?.stringValue)
        XCTAssertNotEqual(name, "alice")
        XCTAssertEqual(membership["localDisplayName"]?.stringValue, name)
        XCTAssertNotEqual(membership["memberProfile"]?["profileId"]?.integerValue, 1)
        XCTAssertEqual(membership["memberContactProfileId"]?.integerValue, 1)
        XCTAssertEqual(membership["memberContactId"]?.integerValue, 1)
        // The user's own profile is untouched.
        let user = await h.result("/u", "activeUser")
        XCTAssertEqual(user["user"]?["profile"]?["displayName"]?.stringValue, "alice")
    }

    func testUpdateGroupProfile() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h)
        let r = await h.result(
            #"/_group_profile #1 {"displayName":"crew","fullName":"The crew","groupPreferences":{"history":{"enable":"on"}}}"#,
            "groupUpdated")
        XCTAssertEqual(r.keys, ["fromGroup", "msgSigned", "toGroup", "type", "user"])
        XCTAssertEqual(r["msgSigned"]?.boolValue, false)
        XCTAssertEqual(r["fromGroup"]?["localDisplayName"]?.stringValue, "team")
        XCTAssertEqual(r["toGroup"]?["localDisplayName"]?.stringValue, "crew")
        XCTAssertEqual(r["toGroup"]?["groupProfile"]?["fullName"]?.stringValue, "The crew")
        XCTAssertEqual(r["toGroup"]?["fullGroupPreferences"]?["history"]?["enable"]?.stringValue, "on")
        await h.chatError(#"/_group_profile #1 {"displayName":"@crew","fullName":""}"#, "invalidDisplayName")
        let missing = await h.storeError(#"/_group_profile #9 {"displayName":"x","fullName":""}"#, "groupNotFound")
        XCTAssertEqual(missing["groupId"]?.integerValue, 9)
        // A user who left the group may no longer change it.
        await h.result("/_leave #1", "leftMemberUser")
        await h.chatError(#"/_group_profile #1 {"displayName":"x","fullName":""}"#, "groupMemberUserRemoved")
    }

    func testAliasMembersAndInfo() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h)
        let alias = await h.result("/_set alias #1 work stuff", "groupAliasUpdated")
        XCTAssertEqual(alias.keys, ["toGroup", "type", "user"])
        XCTAssertEqual(alias["toGroup"]?["localAlias"]?.stringValue, "work stuff")
        let cleared = await h.result("/_set alias #1", "groupAliasUpdated")
        XCTAssertEqual(cleared["toGroup"]?["localAlias"]?.stringValue, "")
        let members = await h.result("/_members #1", "groupMembers")
        XCTAssertEqual(members["group"]?.keys, ["groupInfo", "members"])
        XCTAssertEqual(members["group"]?["members"]?.arrayValue?.count, 0)
        XCTAssertEqual(members["group"]?["groupInfo"]?["groupId"]?.integerValue, 1)
        let info = await h.result("/_info #1", "groupInfo")
        let own = await h.result("/_info #1 1", "groupMemberInfo")
        XCTAssertEqual(own.keys, ["groupInfo", "member", "type", "user"])
        XCTAssertEqual(own["member"], info["groupInfo"]?["membership"])
        let noMember = await h.storeError("/_info #1 9", "groupMemberNotFound")
        XCTAssertEqual(noMember["groupMemberId"]?.integerValue, 9)
        await h.storeError("/_info #9", "groupNotFound")
        await h.storeError("/_members #9", "groupNotFound")
        await h.storeError("/_set alias #9 x", "groupNotFound")
    }

    func testMemberSettingsAndCustomData() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h)
        let ok = await h.result(#"/_member settings #1 1 {"showMessages":false}"#, "cmdOk")
        XCTAssertEqual(ok["user_"]?["userId"]?.integerValue, 1)
        let info = await h.result("/_info #1 1", "groupMemberInfo")
        XCTAssertEqual(info["member"]?["memberSettings"]?["showMessages"]?.boolValue, false)
        await h.chatError(#"/_member settings #1 1 {"show":false}"#, "commandError")
        await h.storeError(#"/_member settings #1 5 {"showMessages":true}"#, "groupMemberNotFound")
        await h.result(#"/_set custom #1 {"b":2,"a":[1]}"#, "cmdOk")
        let custom = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(custom["groupInfo"]?["customData"]?.rendered, #"{"a":[1],"b":2}"#)
        await h.result("/_set custom #1", "cmdOk")
        let none = await h.result("/_info #1", "groupInfo")
        XCTAssertNil(none["groupInfo"]?["customData"])
    }

    func testChatSettingsTTLAndThemes() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h)
        await h.result(#"/_settings #1 {"enableNtfs":"mentions","sendRcpts":false,"favorite":true}"#, "cmdOk")
        var info = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(
            info["groupInfo"]?["chatSettings"],
            try CanonicalJSON.parse(#"{"enableNtfs":"mentions","sendRcpts":false,"favorite":true}"#))
        await h.result(#"/_settings #1 {"enableNtfs":false}"#, "cmdOk")
        info = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(info["groupInfo"]?["chatSettings"], try CanonicalJSON.parse(#"{"enableNtfs":"none","favorite":false}"#))
        let contact = await h.storeError(#"/_settings @3 {"enableNtfs":"all"}"#, "contactNotFound")
        XCTAssertEqual(contact["contactId"]?.integerValue, 3)
        await h.storeError(#"/_settings #7 {"enableNtfs":"all"}"#, "groupNotFound")
        let scoped = await h.chatError(#"/_settings #1(_support) {"enableNtfs":"all"}"#, "commandError")
        XCTAssertEqual(scoped["message"]?.stringValue, "not supported")
        await h.chatError(#"/_settings *1 {"enableNtfs":"all"}"#, "commandError")
        await h.chatError(#"/_settings #1 {"enableNtfs":"some"}"#, "commandError")

        await h.expect("/_ttl 1 #1 86400", #"{"result":{"type":"cmdOk","user_":"# + UserCommandTests.alice + "}}")
        info = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(info["groupInfo"]?["chatItemTTL"]?.integerValue, 86400)
        await h.result("/_ttl 1 #1 default", "cmdOk")
        info = await h.result("/_info #1", "groupInfo")
        XCTAssertNil(info["groupInfo"]?["chatItemTTL"])
        await h.storeError("/_ttl 1 @2 100", "contactNotFound")
        await h.storeError("/_ttl 1 #2 100", "groupNotFound")
        await h.chatError("/_ttl 2 #1 100", "differentActiveUser")
        // The user's own TTL is a different setting.
        let userTTL = await h.result("/_ttl 1", "chatItemTTL")
        XCTAssertEqual(userTTL["chatItemTTL"]?.integerValue, 0)

        await h.result(##"/_set theme #1 {"light":{"mode":"light","colors":{"accent":"#FF000000"}}}"##, "cmdOk")
        info = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(info["groupInfo"]?["uiThemes"]?["light"]?["colors"]?["accent"]?.stringValue, "#FF000000")
        await h.result("/_set theme #1", "cmdOk")
        info = await h.result("/_info #1", "groupInfo")
        XCTAssertNil(info["groupInfo"]?["uiThemes"])
        await h.storeError("/_set theme @1 {}", "contactNotFound")
        await h.chatError("/_set theme *1 {}", "commandError")
    }

    func testClearingGroupReceiptOverrides() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h)
        await h.result(#"/_settings #1 {"enableNtfs":"all","sendRcpts":true}"#, "cmdOk")
        await h.result("/_set receipts groups 1 off", "cmdOk")
        var info = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(info["groupInfo"]?["chatSettings"]?["sendRcpts"]?.boolValue, true)
        await h.result("/_set receipts groups 1 off clear_overrides=on", "cmdOk")
        info = await h.result("/_info #1", "groupInfo")
        XCTAssertNil(info["groupInfo"]?["chatSettings"]?["sendRcpts"])
    }

    func testListGroupsAndChatList() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h, "team")
        await h.result(#"/_group 1 {"displayName":"family","fullName":"Home","description":"weekend plans"}"#, "groupCreated")
        let all = await h.result("/_groups 1", "groupsList")
        XCTAssertEqual(all["groups"]?.arrayValue?.compactMap { $0["groupId"]?.integerValue }, [1, 2])
        let found = await h.result("/_groups 1 WEEKEND", "groupsList")
        XCTAssertEqual(found["groups"]?.arrayValue?.compactMap { $0["groupId"]?.integerValue }, [2])
        let byContact = await h.result("/_groups 1 @5", "groupsList")
        XCTAssertEqual(byContact["groups"]?.arrayValue?.count, 0)
        await h.chatError("/_groups 2", "differentActiveUser")

        let chats = await h.result("/_get chats 1 pcc=on", "apiChats")
        let types = chats["chats"]?.arrayValue?.compactMap { $0["chatInfo"]?["type"]?.stringValue }
        XCTAssertEqual(types?.sorted(), ["group", "group", "local"])
        let group = try XCTUnwrap(chats["chats"]?.arrayValue?.first { $0["chatInfo"]?["type"]?.stringValue == "group" })
        XCTAssertEqual(group.keys, ["chatInfo", "chatItems", "chatStats"])
        XCTAssertEqual(group["chatInfo"]?.keys, ["groupInfo", "type"])
        // The preview is the group's newest item: the last of the feature items it was created with.
        XCTAssertEqual(group["chatItems"]?.arrayValue?.count, 1)
        XCTAssertEqual(
            group["chatItems"]?.arrayValue?.first?["content"],
            .object([
                "type": .string("sndGroupFeature"), "groupFeature": .string("history"),
                "preference": .object(["enable": .string("off")]),
            ]))

        await h.result(#"/_settings #2 {"enableNtfs":"all","favorite":true}"#, "cmdOk")
        let favorites = await h.result(#"/_get chats 1 {"type":"filters","favorite":true,"unread":false}"#, "apiChats")
        XCTAssertEqual(
            favorites["chats"]?.arrayValue?.compactMap { $0["chatInfo"]?["groupInfo"]?["groupId"]?.integerValue }, [2])
        let unread = await h.result(#"/_get chats 1 {"type":"filters","favorite":false,"unread":true}"#, "apiChats")
        XCTAssertEqual(unread["chats"]?.arrayValue?.count, 0)
        let search = await h.result(#"/_get chats 1 {"type":"search","search":"tea"}"#, "apiChats")
        XCTAssertEqual(
            search["chats"]?.arrayValue?.compactMap { $0["chatInfo"]?["groupInfo"]?["groupId"]?.integerValue }, [1])
    }

    func testNoLinksAndNoRelays() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h)
        let info = await h.result("/_info #1", "groupInfo")
        for line in ["/_get link #1", "/_delete link #1", "/_set link role #1 observer"] {
            let e = await h.storeError(line, "groupLinkNotFound")
            XCTAssertEqual(e["groupInfo"], info["groupInfo"], line)
        }
        await h.storeError("/_get link #3", "groupNotFound")
        let relays = await h.result("/_get relays #1", "groupRelays")
        XCTAssertEqual(relays.keys, ["groupInfo", "groupRelays", "type", "user"])
        XCTAssertEqual(relays["groupRelays"]?.arrayValue?.count, 0)
        await h.storeError("/_get relays #3", "groupNotFound")
    }

    func testClearDeleteAndLeave() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h)
        let cleared = await h.result("/_clear chat #1", "chatCleared")
        XCTAssertEqual(cleared["chatInfo"]?["type"]?.stringValue, "group")
        XCTAssertEqual(cleared["chatInfo"]?["groupInfo"]?["groupId"]?.integerValue, 1)
        await h.storeError("/_clear chat #4", "groupNotFound")
        await h.storeError("/_clear chat @4", "contactNotFound")

        let left = await h.result("/_leave #1", "leftMemberUser")
        XCTAssertEqual(left.keys, ["groupInfo", "type", "user"])
        XCTAssertEqual(left["groupInfo"]?["membership"]?["memberStatus"]?.stringValue, "left")
        XCTAssertEqual(left["groupInfo"]?["groupSummary"]?["currentMembers"]?.integerValue, 0)
        await h.storeError("/_leave #4", "groupNotFound")

        let deleted = await h.result("/_delete #1 full notify=off", "groupDeletedUser")
        XCTAssertEqual(deleted.keys, ["groupInfo", "msgSigned", "type", "user"])
        XCTAssertEqual(deleted["msgSigned"]?.boolValue, false)
        await h.storeError("/_info #1", "groupNotFound")
        await h.storeError("/_delete #1", "groupNotFound")
        let contact = await h.storeError("/_delete @1", "contactNotFound")
        XCTAssertEqual(contact["contactId"]?.integerValue, 1)
        let connection = await h.storeError("/_delete :2", "pendingConnectionNotFound")
        XCTAssertEqual(connection["connId"]?.integerValue, 2)
        let local = await h.chatError("/_delete *1", "commandError")
        XCTAssertEqual(local["message"]?.stringValue, "not supported")
        let groups = await h.result("/_groups 1", "groupsList")
        XCTAssertEqual(groups["groups"]?.arrayValue?.count, 0)
    }

    func testGroupsBelongToTheirUser() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await newGroup(h)
        let bob = await h.createUser("bob")
        await h.storeError("/_info #1", "groupNotFound")
        let list = await h.result("/_groups \(bob)", "groupsList")
        XCTAssertEqual(list["groups"]?.arrayValue?.count, 0)
        // Deleting a user deletes the user's groups.
        await h.result("/_user 1", "activeUser")
        await h.result("/_delete user \(bob) del_smp=off", "cmdOk")
        await h.result("/_info #1", "groupInfo")
    }
}
