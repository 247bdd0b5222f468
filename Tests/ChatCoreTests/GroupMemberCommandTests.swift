import ChatCore
import XCTest

/// Commands on the members of local groups (chat-api.md §4.5, §4.17, §4.20), through command lines. The user is a
/// local group's only member: other member ids are not found, and the user's own membership gets the official core's
/// answers for it — its own role and block cannot be changed, it is not pending, it has no support chat and no
/// connection.
final class GroupMemberCommandTests: XCTestCase {
    static func commandError(_ message: String) -> String {
        #"{"error":{"type":"error","errorType":{"type":"commandError","message":"\#(message)"}}}"#
    }
    static func storeError(_ fields: String) -> String { #"{"error":{"type":"errorStore","storeError":{"# + fields + "}}}" }
    static let memberNotFound = #"{"error":{"type":"error","errorType":{"type":"groupMemberNotFound"}}}"#
    static let notActive = #"{"error":{"type":"error","errorType":{"type":"groupMemberNotActive"}}}"#

    /// A started chat with the user's group `team` (id 1, the user's membership id 1).
    private func teamGroup() async throws -> EngineHarness {
        let h = try EngineHarness()
        await h.startWithUser()
        await h.result(#"/_group 1 {"displayName":"team","fullName":""}"#, "groupCreated")
        return h
    }

    func testPreconditions() async throws {
        let h = try EngineHarness()
        let lines = [
            "/_accept member #1 1 member", "/_remove #1 1", "/_member role #1 1 admin", "/_block #1 1 blocked=on",
            "/_delete member chat #1 1", "/_get code #1 1", "/_verify code #1 1", "/_enable #1 1", "/_set group user #1 1",
        ]
        for line in lines { await h.chatError(line, "noActiveUser") }
        await h.createUser("alice")
        for line in lines { await h.chatError(line, "chatNotStarted") }
        await h.result("/_start", "chatStarted")
        // The group is read first, except where the core reads only the member.
        for line in lines where !line.hasPrefix("/_verify") && !line.hasPrefix("/_enable") {
            await h.expect(line, Self.storeError(#""type":"groupNotFound","groupId":1"#))
        }
        for line in ["/_verify code #1 1", "/_enable #1 1"] {
            await h.expect(line, Self.storeError(#""type":"groupMemberNotFound","groupMemberId":1"#))
        }
    }

    func testRolesBlocksAndRemovalFindNoOtherMembers() async throws {
        let h = try await teamGroup()
        await h.expect("/_member role #1 1 admin", Self.commandError("can't change role for self"))
        await h.expect("/_member role #1 5,1 observer", Self.commandError("can't change role for self"))
        await h.expect("/_member role #1 5 admin", Self.memberNotFound)
        await h.expect("/_block #1 1 blocked=on", Self.commandError("can't block/unblock self"))
        await h.expect("/_block #1 5 blocked=off", Self.memberNotFound)
        // Removal looks among the other members only, so even the user's own membership is not found.
        for line in ["/_remove #1 1", "/_remove #1 5", "/_remove #1 1,5 messages=on", "/rm #team alice"] {
            await h.expect(line, Self.memberNotFound)
        }
        // Nothing changed.
        let info = await h.result("/_info #1", "groupInfo")
        XCTAssertEqual(info["groupInfo"]?["membership"]?["memberRole"]?.stringValue, "owner")
        XCTAssertEqual(info["groupInfo"]?["membership"]?["memberStatus"]?.stringValue, "creator")
    }

    func testAdmissionAndSupportChats() async throws {
        let h = try await teamGroup()
        await h.result(#"/_group 1 {"displayName":"other","fullName":""}"#, "groupCreated")
        let notPending = Self.commandError(
            "member should be pending approval and invitee, or pending review and not invitee")
        await h.expect("/_accept member #1 1 member", notPending)
        // The member is found by its id alone, in any of the user's groups (`getGroupMemberById`).
        await h.expect("/_accept member #1 2 observer", notPending)
        await h.expect("/_accept member #1 9 member", Self.storeError(#""type":"groupMemberNotFound","groupMemberId":9"#))
        await h.expect("/_delete member chat #1 1", Self.commandError("member has no support chat"))
        await h.expect("/_delete member chat #1 2", Self.commandError("member has no support chat"))
        await h.expect("/_delete member chat #1 9", Self.storeError(#""type":"groupMemberNotFound","groupMemberId":9"#))
        // Accepting needs a current moderator (or the role given, if higher): a user who left is no longer one.
        await h.result("/_leave #1", "leftMemberUser")
        await h.chatError("/_accept member #1 1 member", "groupMemberUserRemoved")
    }

    func testTheMembershipHasNoConnection() async throws {
        let h = try await teamGroup()
        for line in ["/_get code #1 1", "/_verify code #1 1 12345", "/_verify code #1 1", "/_enable #1 1"] {
            await h.expect(line, Self.notActive)
        }
        for line in ["/_get code #1 7", "/_verify code #1 7", "/_enable #1 7"] {
            await h.expect(line, Self.storeError(#""type":"groupMemberNotFound","groupMemberId":7"#))
        }
        // A local group was not prepared from a link.
        await h.expect("/_set group user #1 1", Self.commandError("group doesn't have link to connect"))
    }
}
