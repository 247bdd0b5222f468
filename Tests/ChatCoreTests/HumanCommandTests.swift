import ChatCore
import ChatModel
import Foundation
import SimplexEncoding
import XCTest

/// The human (CLI) forms resolved by the embedded core: users by name and the active user, unknown contacts and
/// groups as the store's not-found errors, and the API command's own answers and refusals.
final class HumanCommandTests: XCTestCase {
    func testUsersByName() async throws {
        let h = try EngineHarness()
        await h.startWithUser("alice")
        let bob = await h.createUser("bob")
        await h.result("/user alice", "activeUser")
        let active = await h.result("/u bob", "activeUser")
        XCTAssertEqual(active["user"]?["userId"]?.integerValue, bob)
        // As for an unknown id: a hidden user's name is not revealed.
        await h.chatError("/user nobody", "userUnknown")
        let missing = await h.storeError("/delete user nobody", "userNotFoundByName")
        XCTAssertEqual(missing["contactName"]?.stringValue, "nobody")
        await h.result("/user alice", "activeUser")
        await h.result("/delete user bob", "cmdOk")
        let users = await h.result("/users", "usersList")
        XCTAssertEqual(users["users"]?.arrayValue?.count, 1)
    }

    func testActiveUserForms() async throws {
        let h = try EngineHarness()
        await h.chatError("/contacts", "noActiveUser")
        await h.chatError("/ttl", "noActiveUser")
        await h.createUser("alice")
        await h.chatError("/contacts", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        await h.result("/contacts", "contactsList")
        await h.result("/ttl week", "cmdOk")
        let ttl = await h.result("/ttl", "chatItemTTL")
        XCTAssertEqual(ttl["chatItemTTL"]?.integerValue, 7 * 86400)
        await h.result("/set receipts contacts off", "cmdOk")
        let user = await h.result("/u", "activeUser")
        XCTAssertEqual(user["user"]?["sendRcptsContacts"]?.boolValue, false)
        let updated = await h.result("/p alice2 likes tea", "userProfileUpdated")
        XCTAssertEqual(updated["toProfile"]?["displayName"]?.stringValue, "alice2")
        XCTAssertEqual(updated["toProfile"]?["shortDescr"]?.stringValue, "likes tea")
        await h.storeError("/sa", "userContactLinkNotFound")
        await h.result("/mute user", "userPrivacy")
    }

    func testUnknownContactsAndGroups() async throws {
        let h = try EngineHarness()
        await h.chatError("@alice hi", "noActiveUser")
        await h.createUser("me")
        await h.chatError("@alice hi", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        for line in ["@alice hi", "/info @alice", "/delete @alice", "/clear alice", "/call @alice", "/code @alice"] {
            let e = await h.storeError(line, "contactNotFoundByName")
            XCTAssertEqual(e["contactName"]?.stringValue, "alice", line)
        }
        for line in [
            "#team hi", "#team(support:bob) hi", "/d #team", "/members #team", "/add #team @alice", "/info #team @bob",
            "/block #team @bob", "/report #team spam bad", "/group allow #team", "/ttl #team day",
        ] {
            let e = await h.storeError(line, "groupNotFoundByName")
            XCTAssertEqual(e["groupName"]?.stringValue, "team", line)
        }
        for line in ["/accept alice", "/rc @alice"] {
            let e = await h.storeError(line, "contactRequestNotFoundByName")
            XCTAssertEqual(e["contactName"]?.stringValue, "alice", line)
        }
    }

    /// A human form of a command that needs a network peer gets the same refusal as its API form.
    func testRefusalsAreTheAPICommands() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let refused: [(String, CommandName)] = [
            ("/address", .apiCreateMyAddress), ("/pa on", .apiSetProfileAddress),
            ("/auto_accept on incognito=on", .apiSetAddressSettings),
            ("/pg relays=1 #team", .apiNewPublicGroup),
        ]
        for (line, name) in refused {
            let outcome = await h.engine.execute(try ChatCommand(parsing: line))
            XCTAssertEqual(outcome, .failure(NetworkRefusal.error(name)), line)
        }
        // `/db export` is `/_db export`, refused the same way while the chat runs.
        await h.chatError("/db export", "chatNotStopped")
    }

    /// Group names resolve against the user's local groups.
    func testGroupsByName() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result("/g team", "groupCreated")
        await h.result("/gs", "groupsList")
        let members = await h.result("/ms #team", "groupMembers")
        XCTAssertEqual(members["group"]?["members"]?.arrayValue?.count, 0)
        await h.result("/ttl #team day", "cmdOk")
        await h.result("/clear #team", "chatCleared")
        await h.result("/* a note", "newChatItems")
        await h.result("/clear *", "chatCleared")
        let e = await h.storeError("/ms #other", "groupNotFoundByName")
        XCTAssertEqual(e["groupName"]?.stringValue, "other")
    }

    func testSingleFolderForms() async throws {
        let h = try EngineHarness()
        let folder = h.folder.appendingPathComponent("temp/inner").path
        await h.result("/_temp_folder \(folder)", "cmdOk")
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory))
        XCTAssertTrue(isDirectory.boolValue)
    }
}
