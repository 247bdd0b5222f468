import ChatCore
import ChatStore
import SimplexEncoding
import XCTest

/// User management, chat-api.md §4.1, through command lines.
final class UserCommandTests: XCTestCase {
    /// The exact JSON of a first user named alice, as the core writes it (§7.4: field names, omitted optionals,
    /// FullPreferences with the core's defaults).
    static let alice =
        #"{"userId":1,"agentUserId":"1","userContactId":1,"localDisplayName":"alice","profile":{"profileId":1,"displayName":"alice","fullName":"","localAlias":""},"fullPreferences":{"timedMessages":{"allow":"yes"},"fullDelete":{"allow":"no"},"reactions":{"allow":"yes"},"voice":{"allow":"yes"},"files":{"allow":"always"},"calls":{"allow":"yes"},"sessions":{"allow":"no"},"commands":[]},"activeUser":true,"activeOrder":1,"showNtfs":true,"sendRcptsContacts":true,"sendRcptsSmallGroups":true,"autoAcceptMemberContacts":false,"userChatRelay":false,"clientService":false}"#

    func testNoActiveUserBeforeAUserExists() async throws {
        let h = try EngineHarness()
        await h.expect("/u", #"{"error":{"type":"error","errorType":{"type":"noActiveUser"}}}"#)
        await h.chatError("/user", "noActiveUser")
        await h.result("/users", "usersList")
    }

    func testCreateUserAnswersActiveUserWithTheCoreJSON() async throws {
        let h = try EngineHarness()
        let text = await h.text(#"/_create user {"profile":{"displayName":"alice","fullName":""},"pastTimestamp":false}"#)
        XCTAssertEqual(text, #"{"result":{"type":"activeUser","user":"# + Self.alice + "}}")
        await h.expect("/u", #"{"result":{"type":"activeUser","user":"# + Self.alice + "}}")
        let users = await h.result("/users", "usersList")
        XCTAssertEqual(users["users"]?.arrayValue?.count, 1)
        XCTAssertEqual(users["users"]?.arrayValue?.first?["unreadCount"]?.integerValue, 0)
    }

    func testCreateUserKeepsProfileFieldsAndMergesPreferences() async throws {
        let h = try EngineHarness()
        let r = await h.result(
            #"/_create user {"profile":{"displayName":"bot","fullName":"A Bot","shortDescr":"hi","peerType":"bot","preferences":{"calls":{"allow":"no"},"timedMessages":{"allow":"yes","ttl":86400},"unknown":{"allow":"no"}}},"pastTimestamp":false,"userChatRelay":false,"clientService":false}"#,
            "activeUser")
        let user = try XCTUnwrap(r["user"])
        XCTAssertEqual(user["profile"]?["peerType"]?.stringValue, "bot")
        XCTAssertEqual(user["profile"]?["shortDescr"]?.stringValue, "hi")
        XCTAssertEqual(user["profile"]?["preferences"]?.keys, ["calls", "timedMessages"])
        XCTAssertEqual(user["fullPreferences"]?["calls"]?["allow"]?.stringValue, "no")
        XCTAssertEqual(user["fullPreferences"]?["timedMessages"]?["ttl"]?.integerValue, 86400)
        XCTAssertEqual(user["fullPreferences"]?["voice"]?["allow"]?.stringValue, "yes")
        XCTAssertNil(user["viewPwdHash"])
        XCTAssertNil(user["userMemberProfileUpdatedAt"])
    }

    func testCreateUserWithoutProfileGeneratesOne() async throws {
        let h = try EngineHarness()
        let r = await h.result(#"/_create user {"pastTimestamp":true}"#, "activeUser")
        let name = try XCTUnwrap(r["user"]?["localDisplayName"]?.stringValue)
        XCTAssertFalse(name.isEmpty)
        XCTAssertEqual(r["user"]?["profile"]?["displayName"]?.stringValue, name)
    }

    func testCreateUserRefusals() async throws {
        let h = try EngineHarness()
        let invalid = await h.chatError(
            #"/_create user {"profile":{"displayName":"@alice","fullName":""},"pastTimestamp":false}"#, "invalidDisplayName")
        XCTAssertEqual(invalid["displayName"]?.stringValue, "@alice")
        XCTAssertEqual(invalid["validName"]?.stringValue, "alice")
        await h.createUser("alice")
        let exists = await h.chatError(
            #"/_create user {"profile":{"displayName":"alice","fullName":""},"pastTimestamp":false}"#, "userExists")
        XCTAssertEqual(exists["contactName"]?.stringValue, "alice")
        await h.chatError(#"/_create user {"profile":{"fullName":""},"pastTimestamp":false}"#, "commandError")
        await h.chatError(#"/_create user {"profile":{"displayName":"x","peerType":"robot"}}"#, "commandError")
    }

    func testHumanCreateUserForm() async throws {
        let h = try EngineHarness()
        let r = await h.result("/create user bob", "activeUser")
        XCTAssertEqual(r["user"]?["localDisplayName"]?.stringValue, "bob")
    }

    func testSwitchUserNeedsStartedChatAndMovesActiveOrder() async throws {
        let h = try EngineHarness()
        let alice = await h.createUser("alice")
        let bob = await h.createUser("bob")
        await h.chatError("/_user \(alice)", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        let r = await h.result("/_user \(alice)", "activeUser")
        XCTAssertEqual(r["user"]?["userId"]?.integerValue, alice)
        XCTAssertEqual(r["user"]?["activeOrder"]?.integerValue, 3)
        XCTAssertEqual(r["user"]?["agentUserId"]?.stringValue, "1")
        await h.chatError("/_user 99", "userUnknown")
        let users = await h.result("/users", "usersList")
        let active = users["users"]?.arrayValue?.compactMap { u -> Int64? in
            u["user"]?["activeUser"]?.boolValue == true ? u["user"]?["userId"]?.integerValue : nil
        }
        XCTAssertEqual(active, [alice])
        XCTAssertNotEqual(alice, bob)
    }

    func testDifferentActiveUser() async throws {
        let h = try EngineHarness()
        let alice = await h.startWithUser()
        let bob = await h.createUser("bob")
        let e = await h.chatError("/_ttl \(alice)", "differentActiveUser")
        XCTAssertEqual(e["commandUserId"]?.integerValue, alice)
        XCTAssertEqual(e["activeUserId"]?.integerValue, bob)
        await h.chatError("/_get chats \(alice) pcc=on", "differentActiveUser")
        await h.chatError("/_profile \(alice) {\"displayName\":\"alice2\",\"fullName\":\"\"}", "differentActiveUser")
    }

    func testHideUnhideMuteUnmute() async throws {
        let h = try EngineHarness()
        let alice = await h.startWithUser()
        await h.chatError("/_hide user \(alice) \"pw\"", "cantHideLastUser")
        let bob = await h.createUser("bob")
        await h.chatError("/_hide user \(alice) \"\"", "emptyUserPassword")
        let hidden = await h.result("/_hide user \(alice) \"secret\"", "userPrivacy")
        // Bob is active, so `user` is bob and `updatedUser` the hidden alice.
        XCTAssertEqual(hidden["user"]?["userId"]?.integerValue, bob)
        XCTAssertEqual(hidden["updatedUser"]?["showNtfs"]?.boolValue, false)
        let hash = try XCTUnwrap(hidden["updatedUser"]?["viewPwdHash"])
        XCTAssertEqual(hash.keys, ["hash", "salt"])
        XCTAssertEqual(try Base64.decode(hash["salt"]?.stringValue ?? "").count, 16)
        XCTAssertEqual(try Base64.decode(hash["hash"]?.stringValue ?? "").count, 64)
        await h.chatError("/_hide user \(alice) \"again\"", "userAlreadyHidden")
        await h.chatError("/_unmute user \(alice)", "hiddenUserAlwaysMuted")
        await h.chatError("/_user \(alice)", "userUnknown")
        await h.chatError("/_user \(alice) \"wrong\"", "userUnknown")
        await h.chatError("/_unhide user \(alice) \"wrong\"", "userUnknown")
        let switched = await h.result("/_user \(alice) \"secret\"", "activeUser")
        XCTAssertEqual(switched["user"]?["userId"]?.integerValue, alice)
        let shown = await h.result("/_unhide user \(alice) \"secret\"", "userPrivacy")
        XCTAssertEqual(shown["user"]?["userId"]?.integerValue, alice)
        XCTAssertNil(shown["updatedUser"]?["viewPwdHash"])
        XCTAssertEqual(shown["updatedUser"]?["showNtfs"]?.boolValue, true)
        await h.chatError("/_unhide user \(alice) \"secret\"", "userNotHidden")
        let muted = await h.result("/_mute user \(bob)", "userPrivacy")
        XCTAssertEqual(muted["updatedUser"]?["showNtfs"]?.boolValue, false)
        XCTAssertEqual(muted["user"]?["userId"]?.integerValue, alice)
        let unmuted = await h.result("/_unmute user \(bob)", "userPrivacy")
        XCTAssertEqual(unmuted["updatedUser"]?["showNtfs"]?.boolValue, true)
    }

    func testDeleteUser() async throws {
        let h = try EngineHarness()
        let alice = await h.startWithUser()
        let bob = await h.createUser("bob")
        let e = await h.chatError("/_delete user \(bob) del_smp=off", "cantDeleteActiveUser")
        XCTAssertEqual(e["userId"]?.integerValue, bob)
        await h.expect("/_delete user \(alice) del_smp=on", #"{"result":{"type":"cmdOk"}}"#)
        let event = await h.engine.nextEvent(waitMicroseconds: 1_000_000).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(event, #"{"result":{"type":"agentUserDeleted","agentUserId":1}}"#)
        let users = await h.result("/users", "usersList")
        XCTAssertEqual(users["users"]?.arrayValue?.count, 1)
        await h.result("/_delete user \(bob) del_smp=off", "cmdOk")
        await h.chatError("/u", "noActiveUser")
        await h.chatError("/_delete user \(bob) del_smp=off", "noActiveUser")
    }

    func testUpdateProfile() async throws {
        let h = try EngineHarness()
        let alice = await h.startWithUser()
        await h.result("/_profile \(alice) {\"displayName\":\"alice\",\"fullName\":\"\"}", "userProfileNoChange")
        let r = await h.result(
            "/_profile \(alice) {\"displayName\":\"alice2\",\"fullName\":\"Alice\",\"image\":\"data:image/png;base64,AAAA\"}",
            "userProfileUpdated")
        XCTAssertEqual(r["fromProfile"]?.rendered, #"{"displayName":"alice","fullName":""}"#)
        XCTAssertEqual(
            r["toProfile"]?.rendered, #"{"displayName":"alice2","fullName":"Alice","image":"data:image/png;base64,AAAA"}"#)
        XCTAssertEqual(r["updateSummary"]?.rendered, #"{"changedContacts":[],"updateFailures":0,"updateSuccesses":0}"#)
        XCTAssertEqual(r["user"]?["localDisplayName"]?.stringValue, "alice2")
        XCTAssertEqual(r["user"]?["userMemberProfileUpdatedAt"]?.stringValue, "2025-06-01T09:30:12.123456Z")
        let u = await h.result("/u", "activeUser")
        XCTAssertEqual(u["user"]?["profile"]?["fullName"]?.stringValue, "Alice")
        let invalid = await h.chatError("/_profile \(alice) {\"displayName\":\"a b  c\",\"fullName\":\"\"}", "invalidDisplayName")
        XCTAssertEqual(invalid["validName"]?.stringValue, "a b c")
        await h.createUser("bob")
        await h.result("/_user \(alice)", "activeUser")
        await h.storeError("/_profile \(alice) {\"displayName\":\"bob\",\"fullName\":\"\"}", "duplicateName")
    }

    func testReceiptAndAutoAcceptSettings() async throws {
        let h = try EngineHarness()
        await h.chatError("/_set receipts contacts 1 off", "noActiveUser")
        let alice = await h.createUser("alice")
        await h.chatError("/_set receipts contacts \(alice) off", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        let ok = await h.result("/_set receipts contacts \(alice) off clear_overrides=on", "cmdOk")
        // The core answers with the active user as it was when the command began.
        XCTAssertEqual(ok["user_"]?["sendRcptsContacts"]?.boolValue, true)
        await h.result("/_set receipts groups \(alice) off", "cmdOk")
        await h.result("/_set accept member contacts \(alice) on", "cmdOk")
        let u = await h.result("/u", "activeUser")
        XCTAssertEqual(u["user"]?["sendRcptsContacts"]?.boolValue, false)
        XCTAssertEqual(u["user"]?["sendRcptsSmallGroups"]?.boolValue, false)
        XCTAssertEqual(u["user"]?["autoAcceptMemberContacts"]?.boolValue, true)
        await h.expect("/set receipts all on", #"{"result":{"type":"cmdOk"}}"#)
        await h.chatError("/_set receipts contacts 42 on", "userUnknown")
    }

    func testAutoAcceptGroupInvitationsIsKept() async throws {
        let h = try EngineHarness()
        await h.chatError("/_set accept group invitations 1 on", "noActiveUser")
        let alice = await h.createUser("alice")
        await h.chatError("/_set accept group invitations \(alice) on", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        let ok = await h.result("/_set accept group invitations \(alice) on", "cmdOk")
        XCTAssertEqual(ok["user_"]?["userId"]?.integerValue, alice)
        await h.chatError("/_set accept group invitations 42 on", "userUnknown")
        // The User JSON has no field for it (chat-api.md §7.4); the store has the column the core has.
        let db = try SQLiteDatabase(path: h.folder.appendingPathComponent("simplex_v1_chat.db").path)
        let stored = try db.query("SELECT auto_accept_group_invitations FROM users WHERE user_id = ?", [.integer(alice)])
        XCTAssertEqual(stored.first?.first?.integer, 1)
        await h.result("/_set accept group invitations \(alice) off", "cmdOk")
        let off = try db.query("SELECT auto_accept_group_invitations FROM users WHERE user_id = ?", [.integer(alice)])
        XCTAssertEqual(off.first?.first?.integer, 0)
    }
}
