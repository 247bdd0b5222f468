import Foundation
import SimplexABI
import TestSupport
import XCTest

/// The controller half of the C ABI (chat-api.md §9.2, §9.5, §9.6): opening the store with every DBMigrationResult,
/// commands and events, close and reopen, and what each function answers to bad input.
final class ControllerTests: XCTestCase {
    func testOpenNamesTheFilesAsTheOfficialCoreAndRunsCommands() throws {
        let prefix = C.folder() + "/simplex_v1"
        let (result, ctrl) = C.open(prefix)
        XCTAssertEqual(result as NSDictionary, ["type": "ok"])
        XCTAssertNotNil(ctrl)
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "_chat.db"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "_agent.db"))
        XCTAssertEqual(C.type(C.send(ctrl, "/user")), "noActiveUser")
        XCTAssertEqual(C.type(C.send(ctrl, "/create user alice")), "activeUser")
        XCTAssertEqual(C.type(C.json(chat_send_cmd_retry(ctrl, "/users", 2))), "usersList")
        XCTAssertEqual(C.type(C.send(ctrl, "/no such command")), "commandError")
    }

    func testEveryMigrationOutcome() throws {
        let folder = C.folder()
        XCTAssertEqual(C.open(folder + "/a", confirm: "maybe").0 as NSDictionary, ["type": "invalidConfirmation"])
        var unused: UnsafeMutableRawPointer?
        XCTAssertEqual(
            C.json(chat_migrate_init(folder + "/a", "", nil, &unused)) as NSDictionary, ["type": "invalidConfirmation"])

        // A new store with confirmation "error": the migrations it would apply.
        let (pending, none) = C.open(folder + "/a", confirm: "error")
        XCTAssertNil(none)
        XCTAssertEqual(pending["type"] as? String, "errorMigration")
        XCTAssertEqual(pending["dbFile"] as? String, folder + "/a_chat.db")
        let migrationError = try XCTUnwrap(pending["migrationError"] as? [String: Any])
        XCTAssertEqual(migrationError["type"] as? String, "upgrade")
        let ups = try XCTUnwrap(migrationError["upMigrations"] as? [[String: Any]])
        XCTAssertFalse(ups.isEmpty)
        XCTAssertNotNil(ups.first?["upName"] as? String)
        XCTAssertNotNil(ups.first?["withDown"] as? Bool)

        // Not a database.
        _ = FileManager.default.createFile(atPath: folder + "/b_chat.db", contents: Data(repeating: 0x5a, count: 4096))
        XCTAssertEqual(
            C.open(folder + "/b").0 as NSDictionary, ["type": "errorNotADatabase", "dbFile": folder + "/b_chat.db"])

        // A non-database agent file is refused before the chat file is made beside it; so is a folder in the chat
        // file's place (the official result's shape, errorSQL).
        _ = FileManager.default.createFile(atPath: folder + "/b2_agent.db", contents: Data("root:x:0:0\n".utf8))
        XCTAssertEqual(
            C.open(folder + "/b2").0 as NSDictionary, ["type": "errorNotADatabase", "dbFile": folder + "/b2_agent.db"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/b2_chat.db"))
        try FileManager.default.createDirectory(atPath: folder + "/b3_chat.db", withIntermediateDirectories: false)
        let folderInPlace = C.open(folder + "/b3").0
        XCTAssertEqual(folderInPlace["type"] as? String, "errorSQL")
        XCTAssertEqual(folderInPlace["dbFile"] as? String, folder + "/b3_chat.db")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/b3_agent.db"))
        // A folder this process cannot write (root writes any, so only as another user).
        if getuid() != 0 {
            let locked = folder + "/locked"
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
            chmod(locked, 0o555)
            let refused = C.open(locked + "/x").0
            XCTAssertEqual(refused["type"] as? String, "errorSQL")
            XCTAssertEqual(refused["dbFile"] as? String, locked + "/x_chat.db")
            chmod(locked, 0o755)
        }

        // A key for a plain store is a wrong key, as SQLCipher finds it.
        XCTAssertEqual(C.open(folder + "/c").0 as NSDictionary, ["type": "ok"])
        XCTAssertEqual(
            C.open(folder + "/c", key: "secret").0 as NSDictionary,
            ["type": "errorNotADatabase", "dbFile": folder + "/c_chat.db"])
        // A new store with a key is sealed: the key opens it again; another key, or none, does not.
        XCTAssertEqual(C.open(folder + "/d", key: "secret").0 as NSDictionary, ["type": "ok"])
        XCTAssertEqual(C.open(folder + "/d", key: "secret").0 as NSDictionary, ["type": "ok"])
        for wrong in ["Secret", ""] {
            XCTAssertEqual(
                C.open(folder + "/d", key: wrong).0 as NSDictionary,
                ["type": "errorNotADatabase", "dbFile": folder + "/d_chat.db"])
        }

        // SQLite cannot open a file in a folder that does not exist.
        let missing = C.open(folder + "/no/such/folder/e").0
        XCTAssertEqual(missing["type"] as? String, "errorSQL")
        XCTAssertNotNil(missing["migrationSQLError"] as? String)

        // NULL path or NULL place for the controller.
        XCTAssertEqual(C.json(chat_migrate_init(nil, "", "yesUp", &unused))["type"] as? String, "errorSQL")
        XCTAssertEqual(C.json(chat_migrate_init(folder + "/f", "", "yesUp", nil))["type"] as? String, "errorSQL")
        XCTAssertEqual(
            C.json(chat_migrate_init_key(folder + "/g", nil, 1, "yesUpDown", 0, &unused)) as NSDictionary, ["type": "ok"])
    }

    func testBadInputAnswersTheDocumentedErrors() throws {
        XCTAssertEqual(
            C.take(chat_send_cmd(nil, "/users")),
            #"{"error":{"type":"error","errorType":{"type":"exception","message":"chat controller is NULL"}}}"#)
        XCTAssertEqual(C.type(C.json(chat_recv_msg_wait(nil, 1000))), "exception")
        XCTAssertEqual(C.type(C.json(chat_recv_msg(nil))), "exception")
        XCTAssertEqual(C.type(C.json(chat_send_remote_cmd(nil, 1, "/users"))), "exception")
        XCTAssertEqual(C.take(chat_close_store(nil)), "chat controller is NULL")
        XCTAssertEqual(C.take(chat_reopen_store(nil)), "chat controller is NULL")

        let (_, ctrl) = C.open(C.folder() + "/db")
        XCTAssertEqual(C.json(chat_send_cmd(ctrl, nil))["error"].map { _ in "error" }, "error")
        let invalid: [CChar] = [0x2f, 0x75, CChar(bitPattern: 0xff), 0x73, 0]  // "/u\xffs"
        let answer = C.json(chat_send_cmd(ctrl, invalid))
        XCTAssertEqual(C.type(answer), "commandError")
        XCTAssertEqual(
            ((answer["error"] as? [String: Any])?["errorType"] as? [String: Any])?["message"] as? String,
            "command is not valid UTF-8")
    }

    func testEventsAndTheEmptyStringOnTimeout() throws {
        let (_, ctrl) = C.open(C.folder() + "/db")
        let start = Date()
        XCTAssertEqual(C.take(chat_recv_msg_wait(ctrl, 50_000)), "")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.04)
        XCTAssertEqual(C.type(C.send(ctrl, "/create user alice")), "activeUser")
        XCTAssertEqual(C.type(C.send(ctrl, "/_start")), "chatStarted")
        XCTAssertEqual(C.type(C.send(ctrl, "/_app suspend 0")), "cmdOk")
        XCTAssertEqual(C.take(chat_recv_msg_wait(ctrl, 1_000_000)), #"{"result":{"type":"chatSuspended"}}"#)
        XCTAssertEqual(C.take(chat_recv_msg_wait(ctrl, 0)), "")
    }

    /// TTL expiry runs inside libsimplex as in the embedded core's actor: a lowered TTL removes older messages at once.
    /// The messages are aged by rewriting their times in the database file, as if they had been sent three days ago.
    func testLoweringTheTTLExpiresOlderMessages() throws {
        let folder = C.folder()
        let (_, ctrl) = C.open(folder + "/simplex_v1")
        XCTAssertEqual(C.type(C.send(ctrl, "/create user alice")), "activeUser")
        XCTAssertEqual(C.type(C.send(ctrl, "/_start")), "chatStarted")
        XCTAssertEqual(C.type(C.send(ctrl, #"/_group 1 {"displayName":"team","fullName":""}"#)), "groupCreated")
        XCTAssertEqual(C.type(C.send(ctrl, "/_send #1 text old")), "newChatItems")
        XCTAssertEqual(C.type(C.send(ctrl, "/_send #1 text new")), "newChatItems")
        let age = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            days = 3 * 86400
            db.execute("UPDATE chat_items SET item_ts = item_ts - ? * 1000000000, created_at = "
                       "strftime('%Y-%m-%dT%H:%M:%fZ', created_at, ?) WHERE item_text = 'old'", (days, f"-{days} seconds"))
            db.commit()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Python.interpreter())
        process.arguments = ["-c", age, folder + "/simplex_v1_chat.db"]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(texts(ctrl), ["old", "new"])
        XCTAssertEqual(C.type(C.send(ctrl, "/_ttl 1 86400")), "cmdOk")
        let deadline = Date().addingTimeInterval(10)
        while texts(ctrl) != ["new"], Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(texts(ctrl), ["new"])
    }

    private func texts(_ ctrl: UnsafeMutableRawPointer?) -> [String] {
        let chat = (C.send(ctrl, "/_get chat #1 count=100")["result"] as? [String: Any])?["chat"] as? [String: Any]
        return (chat?["chatItems"] as? [[String: Any]] ?? []).compactMap { item in
            guard ((item["content"] as? [String: Any])?["type"] as? String) == "sndMsgContent" else { return nil }
            return (item["meta"] as? [String: Any])?["itemText"] as? String
        }
    }

    func testCloseAndReopenTheStore() throws {
        let (_, ctrl) = C.open(C.folder() + "/db")
        XCTAssertEqual(C.type(C.send(ctrl, "/create user alice")), "activeUser")
        XCTAssertEqual(C.take(chat_close_store(ctrl)), "")
        XCTAssertEqual(C.type(C.send(ctrl, "/users")), "exception")
        XCTAssertEqual(C.take(chat_recv_msg_wait(ctrl, 10_000)), "")
        XCTAssertEqual(C.take(chat_close_store(ctrl)), "")
        XCTAssertEqual(C.take(chat_reopen_store(ctrl)), "")
        XCTAssertEqual(C.take(chat_reopen_store(ctrl)), "")
        let users = C.send(ctrl, "/users")
        XCTAssertEqual(C.type(users), "usersList")
        XCTAssertEqual(((users["result"] as? [String: Any])?["users"] as? [Any])?.count, 1)
    }

    /// `/_db encryption` through the ABI: `chat_reopen_store` opens the files under the key they have now.
    func testReopeningAfterAKeyChangeUsesTheNewKey() throws {
        let prefix = C.folder() + "/db"
        let (_, ctrl) = C.open(prefix, key: "old")
        XCTAssertEqual(C.type(C.send(ctrl, "/create user alice")), "activeUser")
        XCTAssertEqual(C.type(C.send(ctrl, "/db key old new")), "cmdOk")
        XCTAssertEqual(C.take(chat_close_store(ctrl)), "")
        XCTAssertEqual(C.take(chat_reopen_store(ctrl)), "")
        XCTAssertEqual(C.type(C.send(ctrl, "/users")), "usersList")
        XCTAssertEqual(C.type(C.send(ctrl, "/_start")), "chatStarted")
        XCTAssertEqual(
            C.open(prefix, key: "old").0 as NSDictionary, ["type": "errorNotADatabase", "dbFile": prefix + "_chat.db"])
        XCTAssertEqual(C.open(prefix, key: "new").0 as NSDictionary, ["type": "ok"])
    }

    func testRemoteCommandsWithoutAHostSession() throws {
        let (_, ctrl) = C.open(C.folder() + "/db")
        // `remoteHostId` first, as the official core writes the envelope; the error is the controller role's JSON.
        let answer = C.take(chat_send_remote_cmd(ctrl, 7, "/users"))
        XCTAssertTrue(answer.hasPrefix(#"{"remoteHostId":7,"error":"#), answer)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.utf8)) as? NSDictionary)
        XCTAssertEqual(
            json,
            [
                "remoteHostId": 7,
                "error": [
                    "type": "errorRemoteHost", "rhKey": ["type": "id", "remoteHostId": 7],
                    "remoteHostError": ["type": "missing"],
                ],
            ])
        XCTAssertEqual(C.type(C.json(chat_send_remote_cmd_retry(ctrl, 1, "/users", 1))), "errorRemoteHost")
    }

    func testHsInitIsAccepted() {
        var argc: Int32 = 0
        hs_init_with_rtsopts(&argc, nil)
        hs_init_with_rtsopts(nil, nil)
    }
}
