import ChatStore
import Foundation
import SimplexEncoding
import XCTest

@testable import ChatCore

/// The contacts store: each operation on a migrated chat database, and what it reads back.
final class ContactRepositoryTests: XCTestCase {
    private var folder: URL!
    private var db: SQLiteDatabase!
    private var repo: ContactRepository!
    private var user: User!
    private var merged: ContactUserPreferences!

    private let t0 = UTCTime(iso8601: "2025-06-01T09:30:12.123456Z")!
    private let t1 = UTCTime(iso8601: "2025-06-01T09:31:00Z")!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("contacts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        db = try SQLiteDatabase(path: folder.appendingPathComponent("chat.db").path)
        _ = try Migrator.migrate(db, to: Migration.chat, confirmation: .yesUp)
        let chat = ChatRepository(db: db)
        user = try chat.write { () throws(ChatError) in
            try chat.createUser(profile: Profile(displayName: "alice"), userChatRelay: false, clientService: false, createdAt: t0)
        }
        repo = ContactRepository(db: db)
        merged = try ContactUserPreferences(ContactModelTests.input(try ContactModelTests.fixture("ContactUserPreferences")))
    }

    override func tearDownWithError() throws {
        db = nil
        try? FileManager.default.removeItem(at: folder)
    }

    private func storeError(_ body: () throws -> Void, _ tag: StoreErrorTag, line: UInt = #line) {
        XCTAssertThrowsError(try body(), line: line) { error in
            guard case .errorStore(let e) = error as? ChatError else { return XCTFail("\(error)", line: line) }
            XCTAssertEqual(e.tag, tag, line: line)
        }
    }

    private func invitation(_ id: String, incognito: Profile? = nil) -> ContactRepository.NewPendingConnection {
        ContactRepository.NewPendingConnection(
            agentConnId: AgentConnId(bytes: Array(id.utf8)), status: .new, initiated: true,
            connLinkInv: CreatedConnLink(connFullLink: "simplex:/invitation#/?v=2-7&smp=\(id)"), viaContactUriHash: nil,
            xContactId: nil, incognitoProfile: incognito, chatVersion: 16, pqSupport: true)
    }

    private func peer(_ name: String) -> ContactRepository.PeerInfo {
        ContactRepository.PeerInfo(
            profile: Profile(displayName: name, fullName: name.capitalized),
            peerChatVRange: ChatVersionRange(minVersion: 1, maxVersion: 16), connChatVersion: 16, status: .ready,
            mergedPreferences: merged)
    }

    func testPendingConnectionBecomesAContactWithItsActiveConnection() throws {
        let pcc = try repo.createPendingConnection(user: user, invitation("conn-1"), at: t0)
        XCTAssertEqual(pcc.pccConnStatus, .new)
        XCTAssertEqual(pcc.connLinkInv?.connFullLink, "simplex:/invitation#/?v=2-7&smp=conn-1")
        XCTAssertFalse(pcc.viaContactUri)
        XCTAssertEqual(try repo.pendingConnections(userId: user.userId), [pcc])
        XCTAssertEqual(
            String(decoding: pcc.jsonBytes, as: UTF8.self),
            #"{"pccConnId":1,"pccAgentConnId":"Y29ubi0x","pccConnStatus":{"type":"new"},"viaContactUri":false,"connLinkInv":{"connFullLink":"simplex:/invitation#/?v=2-7&smp=conn-1"},"localAlias":"","createdAt":"2025-06-01T09:30:12.123456Z","updatedAt":"2025-06-01T09:30:12.123456Z"}"#
        )

        let renamed = try repo.setPendingConnectionAlias(userId: user.userId, connId: pcc.pccConnId, "friend", at: t1)
        XCTAssertEqual(renamed.localAlias, "friend")
        XCTAssertEqual(renamed.updatedAt, t1)

        let contact = try repo.createContact(user: user, fromPendingConnection: pcc.pccConnId, peer("bob"), at: t1)
        XCTAssertEqual(contact.localDisplayName, "bob")
        XCTAssertEqual(contact.profile.profile.fullName, "Bob")
        XCTAssertTrue(contact.contactUsed)
        XCTAssertEqual(contact.contactStatus, .active)
        let conn = try XCTUnwrap(contact.activeConn)
        XCTAssertEqual(conn.connId, pcc.pccConnId)
        XCTAssertEqual(conn.entityId, contact.contactId)
        XCTAssertEqual(conn.connStatus, .ready)
        XCTAssertEqual(conn.localAlias, "friend")
        XCTAssertEqual(conn.peerChatVRange, ChatVersionRange(minVersion: 1, maxVersion: 16))
        XCTAssertTrue(conn.contactConnInitiated)
        XCTAssertEqual(contact.mergedPreferences, merged)
        // No longer pending.
        XCTAssertEqual(try repo.pendingConnections(userId: user.userId), [])
        storeError(
            { _ = try repo.requirePendingConnection(userId: user.userId, connId: pcc.pccConnId) }, .pendingConnectionNotFound)
        XCTAssertEqual(try repo.contacts(userId: user.userId), [contact])
        XCTAssertEqual(try repo.contactId(userId: user.userId, localDisplayName: "bob"), contact.contactId)
        XCTAssertEqual(try repo.connection(agentConnId: AgentConnId(bytes: Array("conn-1".utf8))), conn)

        // The written contact is what the official types describe (same shape as the Contact fixture).
        let json = try CanonicalJSON.parse(contact.jsonBytes)
        XCTAssertEqual(try Contact(JSONInput(json)), contact)
    }

    func testASecondContactOfTheSameNameGetsAFreeLocalName() throws {
        let a = try repo.createPendingConnection(user: user, invitation("a"), at: t0)
        let b = try repo.createPendingConnection(user: user, invitation("b"), at: t0)
        _ = try repo.createContact(user: user, fromPendingConnection: a.pccConnId, peer("bob"), at: t0)
        let second = try repo.createContact(user: user, fromPendingConnection: b.pccConnId, peer("bob"), at: t0)
        XCTAssertEqual(second.localDisplayName, "bob_1")
        XCTAssertEqual(try repo.contacts(userId: user.userId).map(\.localDisplayName), ["bob", "bob_1"])
    }

    func testContactSettingsAliasPreferencesAndCustomData() throws {
        let pcc = try repo.createPendingConnection(user: user, invitation("c"), at: t0)
        let ct = try repo.createContact(user: user, fromPendingConnection: pcc.pccConnId, peer("carol"), at: t0)

        let aliased = try repo.setContactAlias(userId: user.userId, contactId: ct.contactId, "Caz", at: t1)
        XCTAssertEqual(aliased.profile.localAlias, "Caz")
        XCTAssertEqual(aliased.updatedAt, t1)

        var prefs = Preferences()
        prefs.features["voice"] = ChatPreference(allow: .no)
        let withPrefs = try repo.setContactPreferences(
            userId: user.userId, contactId: ct.contactId, prefs, merged: merged, at: t1)
        XCTAssertEqual(withPrefs.userPreferences, prefs)
        XCTAssertTrue(
            String(decoding: withPrefs.jsonBytes, as: UTF8.self).contains(#""userPreferences":{"voice":{"allow":"no"}}"#))

        let settings = ChatSettings(enableNtfs: .mentions, sendRcpts: false, favorite: true)
        XCTAssertEqual(
            try repo.setChatSettings(userId: user.userId, contactId: ct.contactId, settings, at: t1).chatSettings, settings)

        let data = try CanonicalJSON.parse(#"{"z":1,"a":"x"}"#)
        let custom = try repo.setCustomData(userId: user.userId, contactId: ct.contactId, data, at: t1)
        XCTAssertTrue(
            String(decoding: custom.jsonBytes, as: UTF8.self).hasSuffix(#""chatDeleted":false,"customData":{"a":"x","z":1}}"#))
        XCTAssertNil(try repo.setCustomData(userId: user.userId, contactId: ct.contactId, nil, at: t1).customData)

        try repo.setChatItemTTL(userId: user.userId, contactId: ct.contactId, 3600, at: t1)
        XCTAssertEqual(try repo.requireContact(userId: user.userId, contactId: ct.contactId).chatItemTTL, 3600)

        storeError({ _ = try repo.setContactAlias(userId: user.userId, contactId: 99, "x", at: t1) }, .contactNotFound)
        // The user's own contact row is not a contact.
        storeError({ _ = try repo.requireContact(userId: user.userId, contactId: user.userContactId) }, .contactNotFound)
        // Nor is another user's.
        storeError({ _ = try repo.requireContact(userId: user.userId + 1, contactId: ct.contactId) }, .contactNotFound)
    }

    func testDeletingAContactKeepingOrRemovingTheChat() throws {
        let a = try repo.createPendingConnection(user: user, invitation("a"), at: t0)
        let b = try repo.createPendingConnection(user: user, invitation("b"), at: t0)
        let kept = try repo.createContact(user: user, fromPendingConnection: a.pccConnId, peer("dan"), at: t0)
        let gone = try repo.createContact(user: user, fromPendingConnection: b.pccConnId, peer("eve"), at: t0)

        try repo.deleteContact(userId: user.userId, contactId: kept.contactId, keepingChat: true, at: t1)
        let marked = try repo.requireContact(userId: user.userId, contactId: kept.contactId)
        XCTAssertEqual(marked.contactStatus, .deletedByUser)
        XCTAssertEqual(marked.activeConn?.connStatus, .deleted)

        try repo.deleteContact(userId: user.userId, contactId: gone.contactId, keepingChat: false, at: t1)
        storeError({ _ = try repo.requireContact(userId: user.userId, contactId: gone.contactId) }, .contactNotFound)
        XCTAssertEqual(try repo.contacts(userId: user.userId), [])
        let profiles = try db.query(
            "SELECT count(*) FROM contact_profiles WHERE contact_profile_id = ?", [.integer(gone.profile.profileId)])
        XCTAssertEqual(profiles.first?.first?.integer, 0)
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM connections WHERE contact_id IS NULL AND conn_type = 'contact'").first?.first?
                .integer, 0)
    }

    func testIncognitoPendingConnectionAndItsDeletion() throws {
        let pcc = try repo.createPendingConnection(
            user: user, invitation("inc", incognito: Profile(displayName: "Random Owl")), at: t0)
        let profileId = try XCTUnwrap(pcc.customUserProfileId)
        try repo.deletePendingConnection(userId: user.userId, connId: pcc.pccConnId)
        XCTAssertEqual(try repo.pendingConnections(userId: user.userId), [])
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM contact_profiles WHERE contact_profile_id = ?", [.integer(profileId)]).first?
                .first?.integer, 0)
        storeError({ try repo.deletePendingConnection(userId: user.userId, connId: pcc.pccConnId) }, .pendingConnectionNotFound)
    }

    func testAnAgentConnectionIdIsRecordedOnce() throws {
        _ = try repo.createPendingConnection(user: user, invitation("same"), at: t0)
        storeError({ _ = try repo.createPendingConnection(user: user, invitation("same"), at: t0) }, .internalError)
        XCTAssertEqual(try repo.pendingConnections(userId: user.userId).count, 1)
    }

    func testAddressCreateSettingsAndDelete() throws {
        storeError({ _ = try repo.requireAddress(userId: user.userId) }, .userContactLinkNotFound)
        let link = CreatedConnLink(connFullLink: "simplex:/contact#/?v=2-7&smp=addr", connShortLink: "https://localhost/a#x")
        let address = try repo.createAddress(
            user: user, agentConnId: AgentConnId(bytes: [1, 2, 3]), link: link, chatVersion: 16, pqSupport: true, at: t0)
        XCTAssertEqual(
            String(decoding: address.jsonBytes, as: UTF8.self),
            #"{"userContactLinkId":1,"connLinkContact":{"connFullLink":"simplex:/contact#/?v=2-7&smp=addr","connShortLink":"https://localhost/a#x"},"shortLinkDataSet":false,"shortLinkLargeDataSet":false,"addressSettings":{"businessAddress":false}}"#
        )
        storeError(
            {
                _ = try repo.createAddress(
                    user: user, agentConnId: AgentConnId(bytes: [9]), link: link, chatVersion: 16, pqSupport: true, at: t0)
            }, .duplicateContactLink)

        let settings = AddressSettings(autoAccept: .init(acceptIncognito: true), autoReply: .text("welcome"))
        let updated = try repo.setAddressSettings(userId: user.userId, settings, at: t1)
        XCTAssertEqual(updated.addressSettings, settings)
        XCTAssertEqual(try repo.requireAddress(userId: user.userId), updated)
        XCTAssertEqual(try repo.addressAgentConnIds(userId: user.userId), [AgentConnId(bytes: [1, 2, 3])])

        _ = try repo.createContactRequest(user: user, request("r1", x: "x1"), at: t0)
        try repo.deleteAddress(userId: user.userId)
        XCTAssertNil(try repo.address(userId: user.userId))
        XCTAssertEqual(try repo.contactRequests(userId: user.userId), [])
        XCTAssertEqual(try repo.addressAgentConnIds(userId: user.userId), [])
        storeError({ try repo.deleteAddress(userId: user.userId) }, .userContactLinkNotFound)
    }

    private func request(_ inv: String, x: String?, name: String = "frank") -> ContactRepository.NewContactRequest {
        ContactRepository.NewContactRequest(
            agentInvitationId: AgentInvId(bytes: Array(inv.utf8)), profile: Profile(displayName: name, fullName: ""),
            chatVRange: ChatVersionRange(minVersion: 1, maxVersion: 16), xContactId: x.map { XContactId(bytes: Array($0.utf8)) },
            pqSupport: true)
    }

    func testContactRequestsCreateRepeatAcceptAndReject() throws {
        storeError({ _ = try repo.createContactRequest(user: user, request("r0", x: nil), at: t0) }, .userContactLinkNotFound)
        let address = try repo.createAddress(
            user: user, agentConnId: AgentConnId(bytes: [7]), link: CreatedConnLink(connFullLink: "simplex:/contact#/?a"),
            chatVersion: 16, pqSupport: false, at: t0)

        let first = try repo.createContactRequest(user: user, request("r1", x: "x1"), at: t0)
        XCTAssertEqual(first.userContactLinkId, address.userContactLinkId)
        XCTAssertEqual(first.localDisplayName, "frank")
        XCTAssertEqual(
            String(decoding: first.jsonBytes, as: UTF8.self),
            #"{"contactRequestId":1,"agentInvitationId":"cjE=","userContactLinkId_":1,"cReqChatVRange":{"minVersion":1,"maxVersion":16},"localDisplayName":"frank","profileId":\#(first.profileId),"profile":{"profileId":\#(first.profileId),"displayName":"frank","fullName":"","localAlias":""},"createdAt":"2025-06-01T09:30:12.123456Z","updatedAt":"2025-06-01T09:30:12.123456Z","xContactId":"eDE=","pqSupport":true}"#
        )
        // The same requester again (same xContactId): the request is updated, not doubled.
        let again = try repo.createContactRequest(user: user, request("r2", x: "x1", name: "franky"), at: t1)
        XCTAssertEqual(again.contactRequestId, first.contactRequestId)
        XCTAssertEqual(again.agentInvitationId, AgentInvId(bytes: Array("r2".utf8)))
        XCTAssertEqual(again.profile.profile.displayName, "franky")
        XCTAssertEqual(again.updatedAt, t1)
        let other = try repo.createContactRequest(user: user, request("r3", x: nil, name: "gina"), at: t1)
        // Names are free among requests too.
        let twin = try repo.createContactRequest(user: user, request("r4", x: nil, name: "gina"), at: t1)
        XCTAssertEqual(twin.localDisplayName, "gina_1")
        _ = try repo.rejectContactRequest(userId: user.userId, requestId: twin.contactRequestId)
        XCTAssertEqual(
            try repo.contactRequests(userId: user.userId).map(\.contactRequestId),
            [first.contactRequestId, other.contactRequestId])

        let contact = try repo.acceptContactRequest(
            user: user, requestId: first.contactRequestId, agentConnId: AgentConnId(bytes: Array("acc".utf8)),
            chatVersion: 16, incognitoProfile: nil, mergedPreferences: merged, at: t1)
        XCTAssertEqual(contact.profile.profile.displayName, "franky")
        XCTAssertEqual(contact.localDisplayName, "frank")
        XCTAssertEqual(contact.activeConn?.connStatus, .accepted)
        XCTAssertEqual(contact.activeConn?.viaUserContactLink, address.userContactLinkId)
        XCTAssertEqual(contact.activeConn?.xContactId, XContactId(bytes: Array("x1".utf8)))
        XCTAssertFalse(contact.contactUsed)
        storeError(
            { _ = try repo.requireContactRequest(userId: user.userId, requestId: first.contactRequestId) },
            .contactRequestNotFound)

        let rejected = try repo.rejectContactRequest(userId: user.userId, requestId: other.contactRequestId)
        XCTAssertEqual(rejected, other)
        XCTAssertEqual(try repo.contactRequests(userId: user.userId), [])
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM contact_profiles WHERE contact_profile_id = ?", [.integer(other.profileId)]).first?
                .first?.integer, 0)
        storeError(
            { _ = try repo.rejectContactRequest(userId: user.userId, requestId: other.contactRequestId) }, .contactRequestNotFound
        )
        storeError(
            {
                _ = try repo.acceptContactRequest(
                    user: user, requestId: 42, agentConnId: AgentConnId(bytes: [42]), chatVersion: 16, incognitoProfile: nil,
                    mergedPreferences: merged, at: t1)
            }, .contactRequestNotFound)
    }

    /// A failed operation leaves nothing behind: the accept whose connection id is taken creates no contact.
    func testAFailedOperationWritesNothing() throws {
        _ = try repo.createAddress(
            user: user, agentConnId: AgentConnId(bytes: [7]), link: CreatedConnLink(connFullLink: "simplex:/contact#/?a"),
            chatVersion: 16, pqSupport: false, at: t0)
        let r = try repo.createContactRequest(user: user, request("r1", x: nil), at: t0)
        storeError(
            {
                _ = try repo.acceptContactRequest(
                    user: user, requestId: r.contactRequestId, agentConnId: AgentConnId(bytes: [7]), chatVersion: 16,
                    incognitoProfile: nil, mergedPreferences: merged, at: t1)
            }, .internalError)
        XCTAssertEqual(try repo.contactRequests(userId: user.userId), [r])
        XCTAssertEqual(try db.query("SELECT count(*) FROM contacts WHERE is_user = 0").first?.first?.integer, 0)
    }

    /// Rows the store cannot read are an internal error, never a trap.
    func testUnreadableRowsAreInternalErrors() throws {
        let pcc = try repo.createPendingConnection(user: user, invitation("x"), at: t0)
        let ct = try repo.createContact(user: user, fromPendingConnection: pcc.pccConnId, peer("hal"), at: t0)
        let corruptions = [
            "UPDATE connections SET conn_status = 'bogus'", "UPDATE connections SET peer_chat_min_version = 'one'",
            "UPDATE connections SET created_at = 'yesterday'",
            "UPDATE contacts SET merged_preferences = '{\"voice\":1}' WHERE is_user = 0",
            "UPDATE contacts SET merged_preferences = 'not json' WHERE is_user = 0",
            "UPDATE contacts SET contact_status = 'gone' WHERE is_user = 0",
            "UPDATE contacts SET enable_ntfs = 'some' WHERE is_user = 0",
            "UPDATE contacts SET user_preferences = '[]' WHERE is_user = 0",
            "UPDATE contacts SET conn_full_link_to_connect = 'simplex:/contact#/?a', ui_conn_link_type = 'grp' WHERE is_user = 0",
        ]
        for sql in corruptions {
            try db.execute("SAVEPOINT corrupt")
            try db.execute(sql)
            XCTAssertThrowsError(try repo.contact(userId: user.userId, contactId: ct.contactId), sql)
            // The list shows active contacts only, so a status it cannot read is not in it.
            if !sql.contains("contact_status") { XCTAssertThrowsError(try repo.contacts(userId: user.userId), sql) }
            try db.execute("ROLLBACK TO corrupt")
            try db.execute("RELEASE corrupt")
        }
        XCTAssertEqual(try repo.requireContact(userId: user.userId, contactId: ct.contactId), ct)
    }

    /// The down migration takes the new tables and columns away again.
    func testTheMigrationGoesDownAndUpAgain() throws {
        let down = try XCTUnwrap(Migration.chat.first { $0.name == "m20261210_contacts_connections" }?.down)
        let up = try XCTUnwrap(Migration.chat.first { $0.name == "m20261210_contacts_connections" })
        _ = try repo.createPendingConnection(user: user, invitation("d"), at: t0)
        try db.execute(down)
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_master WHERE name = 'connections'").first?.first?.integer, 0)
        try db.execute(up.up)
        XCTAssertEqual(try repo.pendingConnections(userId: user.userId), [])
    }
}
