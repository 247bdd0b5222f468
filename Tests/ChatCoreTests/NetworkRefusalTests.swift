import ChatCore
import ChatModel
import SimplexEncoding
import XCTest

/// The network refusal (issue: "a test fails if a command outside that list returns the refusal or a command in it
/// returns anything else"), walked over every command of the catalog.
final class NetworkRefusalTests: XCTestCase {
    private func isRefusal(_ outcome: Result<ChatResponse, ChatError>, _ name: CommandName) -> Bool {
        guard case .failure(let e) = outcome else { return false }
        return e == NetworkRefusal.error(name)
    }

    func testEveryCommandIsRefusedExactlyWhenListed() async throws {
        // Both with no user and with a started chat, so that preconditions cannot hide a refusal or fake one.
        for started in [false, true] {
            let h = try EngineHarness()
            if started { await h.startWithUser() }
            var refused: Set<CommandName> = []
            for name in CommandName.allCases {
                guard let command = sampleCommand(name) else { continue }
                let outcome = await h.engine.execute(command)
                if isRefusal(outcome, name) { refused.insert(name) }
                if NetworkRefusal.commands.contains(name) {
                    XCTAssertTrue(isRefusal(outcome, name), "\(name.rawValue) is listed but answered \(outcome)")
                }
            }
            XCTAssertEqual(refused, NetworkRefusal.commands, "started: \(started)")
        }
    }

    func testTheRefusalNamesTheCommandAndDiffersFromNotServed() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let e = await h.chatError("/_connect 1", "commandError")
        let message = try XCTUnwrap(e["message"]?.stringValue)
        XCTAssertTrue(message.contains("apiAddContact"), message)
        XCTAssertTrue(message.contains("no network yet"), message)
        await h.expect(
            "/_connect plan 1 https://simplex.chat/contact#/?v=2",
            #"{"error":{"type":"error","errorType":{"type":"commandError","message":"apiConnectPlan needs a network peer, and the embedded core has no network yet"}}}"#
        )
        let notServed = await h.chatError("/set device name desk", "commandError")
        XCTAssertEqual(notServed["message"]?.stringValue, "not served by the embedded core yet: setLocalDeviceName")
        // Sending is served: with no contacts, a contact is the store's not-found error, neither refusal nor "not served".
        await h.expect(
            "/_send @1 text hi", #"{"error":{"type":"errorStore","storeError":{"type":"contactNotFound","contactId":1}}}"#)
    }

    func testListedCommandsNeedTheNetwork() {
        // Every listed command is one the catalog marks as waiting for servers, or one that needs a peer to act —
        // preparing a chat makes the peer behind a link (a contact, a group's host member), which only the network
        // can connect.
        let local: Set<CommandName> = [
            .apiGetNtfToken, .apiGetNtfConns, .receiveFile, .apiRejectCall, .apiCallStatus, .apiSendCallOffer,
            .apiSendCallAnswer, .apiSendCallExtraInfo, .apiEndCall, .apiSendCallInvitation, .apiPrepareContact,
            .apiPrepareGroup,
        ]
        for name in NetworkRefusal.commands where name.row.network == .no {
            XCTAssertTrue(local.contains(name), "\(name.rawValue) is local in the catalog but refused")
        }
    }

    func testOnlyRemoteControlIsNotServedByTheCore() async throws {
        // Every other command is served or refused; the remote-control commands answer "not served yet" from the core
        // because the host serves them above it: the table's `served_by` says `host` for exactly those.
        let expected = CommandCatalog.commands(servedBy: .host)
        XCTAssertEqual(
            expected,
            [
                .setLocalDeviceName, .connectRemoteCtrl, .findKnownRemoteCtrl, .confirmRemoteCtrl, .verifyRemoteCtrlSession,
                .listRemoteCtrls, .stopRemoteCtrl, .deleteRemoteCtrl,
            ])
        for started in [false, true] {
            let h = try EngineHarness()
            if started { await h.startWithUser() }
            var notServed: Set<CommandName> = []
            for name in CommandName.allCases {
                guard let command = sampleCommand(name) else { continue }
                if case .failure(let e) = await h.engine.execute(command), e == NetworkRefusal.notServed(name) {
                    notServed.insert(name)
                }
            }
            // Without a user, preconditions hide some of them: none of the others may answer "not served".
            XCTAssertTrue(notServed.isSubset(of: expected), "started: \(started): \(notServed.subtracting(expected))")
            if started { XCTAssertEqual(notServed, expected) }
        }
    }
}
