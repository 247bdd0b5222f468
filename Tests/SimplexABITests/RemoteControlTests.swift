import Foundation
import SimplexABI
import XCTest

/// Remote control through the C ABI (xrcp.md §14, §15): both roles' commands answered by the library itself, and two
/// libraries in one process pairing with each other over loopback — one the host, the other the controller — with
/// the events of each on its own `chat_recv_msg_wait`.
final class RemoteControlTests: XCTestCase {
    /// A started chat with a user, as the remote-control commands require.
    private func started(_ name: String) -> UnsafeMutableRawPointer? {
        let (_, ctrl) = C.open(C.folder() + "/" + name)
        XCTAssertEqual(C.type(C.send(ctrl, "/create user \(name)")), "activeUser")
        XCTAssertEqual(C.type(C.send(ctrl, "/_start")), "chatStarted")
        return ctrl
    }

    /// The next event of `type`, skipping others, within `seconds`.
    private func event(_ ctrl: UnsafeMutableRawPointer?, _ type: String, seconds: Double = 20) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let text = C.take(chat_recv_msg_wait(ctrl, 200_000))
            guard !text.isEmpty, let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            else { continue }
            if C.type(json) == type { return json }
        }
        return nil
    }

    private func result(_ envelope: [String: Any]?) -> [String: Any] { envelope?["result"] as? [String: Any] ?? [:] }

    func testBothRolesCommandsAreServed() throws {
        let (_, fresh) = C.open(C.folder() + "/fresh")
        XCTAssertEqual(C.type(C.send(fresh, "/list remote ctrls")), "noActiveUser")
        let ctrl = started("lib")
        XCTAssertEqual(C.type(C.send(ctrl, "/set device name Library")), "cmdOk")
        let list = C.send(ctrl, "/list remote ctrls")
        XCTAssertEqual(C.type(list), "remoteCtrlList")
        XCTAssertEqual((result(list)["remoteCtrls"] as? [Any])?.count, 0)
        let find = C.send(ctrl, "/find remote ctrl")
        XCTAssertEqual(
            ((find["error"] as? [String: Any])?["remoteCtrlError"] as? [String: Any])?["type"] as? String,
            "noKnownControllers")
        XCTAssertEqual(C.type(C.send(ctrl, "/connect remote ctrl xrcp:/nothing")), "errorRemoteCtrl")
        XCTAssertEqual(C.type(C.send(ctrl, "/list remote hosts")), "remoteHostList")
        XCTAssertEqual(C.type(C.send(ctrl, "/switch remote host 3")), "errorRemoteHost")
        // The core's commands are still the core's.
        XCTAssertEqual(C.type(C.send(ctrl, "/users")), "usersList")
    }

    /// Pairs `host` with `controller` (host `id`, nil for a new pairing) up to both sides connected.
    private func pair(_ controller: UnsafeMutableRawPointer?, _ host: UnsafeMutableRawPointer?, id: Int? = nil) throws {
        let start = C.send(controller, "/start remote host \(id.map(String.init) ?? "new") addr=127.0.0.1 iface=lo")
        XCTAssertEqual(C.type(start), "remoteHostStarted", "\(start)")
        let invitation = try XCTUnwrap(result(start)["invitation"] as? String)
        XCTAssertEqual(C.type(C.send(host, "/connect remote ctrl " + invitation)), "remoteCtrlConnecting")
        let code = try XCTUnwrap(result(event(host, "remoteCtrlSessionCode"))["sessionCode"] as? String)
        XCTAssertEqual(C.type(C.send(host, "/verify remote ctrl " + code)), "remoteCtrlConnected")
        XCTAssertNotNil(event(controller, "remoteHostConnected"))
    }

    /// `/_stop` ends the sessions, as the official core's chat stop does; so does closing the store.
    func testStoppingTheChatOrClosingTheStoreEndsTheSessions() throws {
        let controller = started("desk")
        let host = started("phone")
        try pair(controller, host)
        XCTAssertEqual(C.type(C.send(controller, "/_stop")), "chatStopped")
        XCTAssertNotNil(event(host, "remoteCtrlStopped"))
        XCTAssertEqual(C.type(C.json(chat_send_remote_cmd(controller, 1, "/users"))), "errorRemoteHost")
        XCTAssertEqual(C.type(C.send(controller, "/_start")), "chatStarted")
        try pair(controller, host, id: 1)
        XCTAssertEqual(C.take(chat_close_store(controller)), "")
        XCTAssertNotNil(event(host, "remoteCtrlStopped"))
        XCTAssertEqual(C.take(chat_reopen_store(controller)), "")
        XCTAssertEqual((result(C.send(controller, "/list remote hosts"))["remoteHosts"] as? [Any])?.count, 1)
    }

    func testTheLibraryPairsWithItselfInBothRoles() throws {
        let controller = started("desk")
        let host = started("phone")
        XCTAssertEqual(C.type(C.send(host, "/set device name Phone")), "cmdOk")
        let start = C.send(controller, "/start remote host new addr=127.0.0.1 iface=lo")
        XCTAssertEqual(C.type(start), "remoteHostStarted", "\(start)")
        let invitation = try XCTUnwrap(result(start)["invitation"] as? String)

        let connecting = C.send(host, "/connect remote ctrl " + invitation)
        XCTAssertEqual(C.type(connecting), "remoteCtrlConnecting", "\(connecting)")
        let hostCode = result(event(host, "remoteCtrlSessionCode"))["sessionCode"] as? String
        let controllerCode = result(event(controller, "remoteHostSessionCode"))["sessionCode"] as? String
        XCTAssertNotNil(hostCode)
        XCTAssertEqual(hostCode, controllerCode)
        let verified = C.send(host, "/verify remote ctrl " + (hostCode ?? ""))
        XCTAssertEqual(C.type(verified), "remoteCtrlConnected", "\(verified)")
        let new = result(event(controller, "newRemoteHost"))
        XCTAssertEqual((new["remoteHost"] as? [String: Any])?["hostDeviceName"] as? String, "Phone")
        XCTAssertNotNil(event(controller, "remoteHostConnected"))

        // The host's core answers the controller's commands; its own side is locked out meanwhile.
        let users = C.json(chat_send_remote_cmd(controller, 1, "/users"))
        XCTAssertEqual(users["remoteHostId"] as? Int, 1)
        let names = (result(users)["users"] as? [[String: Any]])?.compactMap {
            (($0["user"] as? [String: Any])?["profile"] as? [String: Any])?["displayName"] as? String
        }
        XCTAssertEqual(names, ["phone"])
        XCTAssertEqual(C.type(C.json(chat_send_remote_cmd(controller, 1, "/_stop"))), "errorRemoteHost")
        XCTAssertEqual(C.type(C.send(host, "/users")), "commandError")
        // A note made remotely raises an event on the host's core, which goes to the controller with the host's id.
        let note = #"/_create *1 json [{"msgContent":{"type":"text","text":"from the desk"}}]"#
        XCTAssertEqual(C.type(C.json(chat_send_remote_cmd(controller, 1, note))), "newChatItems")

        XCTAssertEqual(C.type(C.send(controller, "/stop remote host 1")), "cmdOk")
        let stopped = result(event(host, "remoteCtrlStopped"))
        XCTAssertEqual((stopped["rcStopReason"] as? [String: Any])?["type"] as? String, "disconnected")
        XCTAssertEqual(C.type(C.send(host, "/users")), "usersList")
        XCTAssertEqual((result(C.send(host, "/list remote ctrls"))["remoteCtrls"] as? [Any])?.count, 1)
        XCTAssertEqual((result(C.send(controller, "/list remote hosts"))["remoteHosts"] as? [Any])?.count, 1)
    }
}
