import ChatCore
import SimplexEncoding
import XCTest

/// Servers, operators and usage conditions, chat-api.md §4.12 and §7.29, through command lines.
final class ServerCommandTests: XCTestCase {
    static let commit = "7471fd2af5838dc0467aebc570b5ea75e5df3209"
    static let simplexSMP =
        "smp://0YuTwO05YJWS8rkjn9eLJDjQhFKvIYd8d4xG8X1blIU=@smp8.simplex.im,beccx4yfxxbvyhqypaavemqurytl6hozr47wfc7uuecacjqdvwpw2xid.onion"
    static let simplexXFTP =
        "xftp://da1aH3nOT-9G8lV7bWamhxpDYdJ1xmW7j3JpGaDR5Ug=@xftp1.simplex.im,blisztokwh6alt5oem45f2eksm2xdowxszmhjesntcyolmhutoon7sid.onion"

    /// A stored operator as a client sends it back.
    static func op(
        _ id: Int64, enabled: Bool = true, smp: (Bool, Bool) = (true, true), xftp: (Bool, Bool) = (true, true)
    ) -> String {
        let (tag, name, domain) = id == 1 ? ("simplex", "SimpleX Chat", "simplex.im") : ("flux", "Flux", "simplexonflux.com")
        return
            #"{"operatorId":\#(id),"operatorTag":"\#(tag)","tradeName":"\#(name)","serverDomains":["\#(domain)"],"conditionsAcceptance":{"type":"required"},"enabled":\#(enabled),"smpRoles":{"storage":\#(smp.0),"proxy":\#(smp.1)},"xftpRoles":{"storage":\#(xftp.0),"proxy":\#(xftp.1)}}"#
    }

    static func server(_ address: String, id: Int64? = nil, enabled: Bool = true, deleted: Bool = false, preset: Bool = false)
        -> String
    {
        let sid = id.map { #""serverId":\#($0),"# } ?? ""
        return #"{\#(sid)"server":"\#(address)","preset":\#(preset),"enabled":\#(enabled),"deleted":\#(deleted)}"#
    }

    static func entry(_ op: String?, smp: [String] = [], xftp: [String] = [], relays: [String] = []) -> String {
        let o = op.map { #""operator":\#($0),"# } ?? ""
        return
            #"{\#(o)"smpServers":[\#(smp.joined(separator: ","))],"xftpServers":[\#(xftp.joined(separator: ","))],"chatRelays":[\#(relays.joined(separator: ","))]}"#
    }

    /// The user's own servers only, both operators disabled.
    static func own(smp: [String], xftp: [String], relays: [String] = []) -> String {
        "["
            + [entry(op(1, enabled: false)), entry(op(2, enabled: false)), entry(nil, smp: smp, xftp: xftp, relays: relays)]
            .joined(separator: ",") + "]"
    }

    static func relay(_ name: String, _ address: String) -> String {
        #"{"chatRelayId":1,"address":"\#(address)","relayProfile":{"displayName":"\#(name)","fullName":""},"domains":[],"preset":false,"enabled":true,"deleted":false}"#
    }

    private func validation(_ h: EngineHarness, _ servers: String, line: UInt = #line) async -> ([String], [String]) {
        let r = await h.result("/_validate_servers 1 " + servers, "userServersValidation", line: line)
        let tags = { (key: String) in (r[key]?.arrayValue ?? []).compactMap { $0["type"]?.stringValue } }
        return (tags("serverErrors"), tags("serverWarnings"))
    }

    func testOperatorsAndConditionsBeforeAnyUser() async throws {
        let h = try EngineHarness()
        let t = #""2025-06-01T09:30:12.123456Z""#
        let simplex =
            #"{"operatorId":1,"operatorTag":"simplex","tradeName":"SimpleX Chat","legalName":"SimpleX Chat Ltd","serverDomains":["simplex.im"],"conditionsAcceptance":{"type":"required"},"enabled":true,"smpRoles":{"storage":true,"proxy":true},"xftpRoles":{"storage":true,"proxy":true}}"#
        let flux =
            #"{"operatorId":2,"operatorTag":"flux","tradeName":"Flux","legalName":"InFlux Technologies Limited","serverDomains":["simplexonflux.com"],"conditionsAcceptance":{"type":"required"},"enabled":false,"smpRoles":{"storage":false,"proxy":true},"xftpRoles":{"storage":false,"proxy":true}}"#
        let current = #"{"conditionsId":2,"conditionsCommit":"\#(Self.commit)","createdAt":\#(t)}"#
        // Conditions seen within 14 days of publication may be accepted within 31 days of being seen.
        await h.expect(
            "/_operators",
            #"{"result":{"type":"serverOperatorConditions","conditions":{"serverOperators":[\#(simplex),\#(flux)],"currentConditions":\#(current),"conditionsAction":{"type":"review","operators":[\#(simplex)],"deadline":"2025-07-02T09:30:12.123456Z","showNotice":true}}}}"#
        )
        let text = "The usage conditions of the preset servers are at https://github.com/simplex-chat/simplex-chat/blob/"
        await h.expect(
            "/_conditions",
            #"{"result":{"type":"usageConditions","usageConditions":\#(current),"conditionsText":"\#(text)\#(Self.commit)/PRIVACY.md"}}"#
        )
        await h.expect("/_conditions_notified 2", #"{"result":{"type":"cmdOk"}}"#)
        let noticed = await h.result("/_operators", "serverOperatorConditions")
        XCTAssertEqual(noticed["conditions"]?["conditionsAction"]?["showNotice"]?.boolValue, false)
        XCTAssertEqual(noticed["conditions"]?["currentConditions"]?["notifiedAt"]?.stringValue, "2025-06-01T09:30:12.123456Z")
    }

    func testAcceptingConditions() async throws {
        let h = try EngineHarness()
        await h.storeError("/_accept_conditions 3 1", "usageConditionsNotFound")
        let missing = await h.storeError("/_accept_conditions 2 1,7", "operatorNotFound")
        XCTAssertEqual(missing["serverOperatorId"]?.integerValue, 7)
        let r = await h.result("/_accept_conditions 2 1", "serverOperatorConditions")
        let conditions = try XCTUnwrap(r["conditions"])
        XCTAssertEqual(
            conditions["serverOperators"]?.arrayValue?.first?["conditionsAcceptance"]?.rendered,
            #"{"acceptedAt":"2025-06-01T09:30:12.123456Z","autoAccepted":false,"type":"accepted"}"#)
        XCTAssertEqual(conditions["conditionsAction"]?["type"]?.stringValue, "accepted")
        XCTAssertEqual(conditions["conditionsAction"]?["operators"]?.arrayValue?.count, 1)
        let c = await h.result("/_conditions", "usageConditions")
        XCTAssertEqual(c["acceptedConditions"]?["conditionsId"]?.integerValue, 2)
        // Enabling Flux asks for its acceptance again.
        let flux = await h.result("/operators 2:on:smp=proxy", "serverOperatorConditions")
        XCTAssertEqual(flux["conditions"]?["conditionsAction"]?["type"]?.stringValue, "review")
        let op = flux["conditions"]?["serverOperators"]?.arrayValue?.last
        XCTAssertEqual(op?["enabled"]?.boolValue, true)
        XCTAssertEqual(op?["smpRoles"]?.rendered, #"{"proxy":true,"storage":false}"#)
        XCTAssertEqual(op?["xftpRoles"]?.rendered, #"{"proxy":true,"storage":true}"#)
        await h.storeError("/operators 9:off", "operatorNotFound")
        let off = await h.result("/_operators [" + Self.op(2, enabled: false) + "]", "serverOperatorConditions")
        XCTAssertEqual(off["conditions"]?["serverOperators"]?.arrayValue?.last?["enabled"]?.boolValue, false)
        XCTAssertEqual(off["conditions"]?["conditionsAction"]?["type"]?.stringValue, "accepted")
        let empty = await h.chatError("/_operators []", "commandError")
        XCTAssertEqual(empty["message"]?.stringValue, "Error in $: parsing NonEmpty failed, unexpected empty list")
    }

    func testNewUsersGetThePresetServers() async throws {
        let h = try EngineHarness()
        await h.createUser("alice")
        await h.chatError("/_servers 1", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        let r = await h.result("/_servers 1", "userServers")
        let groups = try XCTUnwrap(r["userServers"]?.arrayValue)
        XCTAssertEqual(groups.map { $0["operator"]?["operatorId"]?.integerValue }, [1, 2, nil])
        func count(_ g: Int, _ key: String, enabled: Bool? = nil) -> Int {
            (groups[g][key]?.arrayValue ?? []).filter { enabled == nil || $0["enabled"]?.boolValue == enabled }.count
        }
        // SimpleX: 11 enabled presets of which 4 are used, and 3 disabled ones; 6 XFTP of which 3 are used.
        XCTAssertEqual([count(0, "smpServers"), count(0, "smpServers", enabled: true)], [14, 4])
        XCTAssertEqual([count(0, "xftpServers"), count(0, "xftpServers", enabled: true)], [6, 3])
        XCTAssertEqual([count(1, "smpServers"), count(1, "smpServers", enabled: true)], [6, 3])
        XCTAssertEqual([count(1, "xftpServers"), count(1, "xftpServers", enabled: true)], [6, 3])
        XCTAssertEqual([count(2, "smpServers"), count(2, "xftpServers")], [0, 0])
        XCTAssertEqual(groups[2].rendered, #"{"chatRelays":[],"smpServers":[],"xftpServers":[]}"#)
        let first = try XCTUnwrap(groups[0]["smpServers"]?.arrayValue?.first)
        XCTAssertEqual(first["preset"]?.boolValue, true)
        XCTAssertEqual(first["deleted"]?.boolValue, false)
        XCTAssertNil(first["tested"])
        // A second user gets a copy of the active user's servers.
        await h.createUser("bob")
        let bob = await h.result("/_servers 2", "userServers")
        func addresses(_ r: CanonicalJSON) -> [String] {
            var out: [String] = []
            for group in r["userServers"]?.arrayValue ?? [] {
                let servers: [CanonicalJSON] = (group["smpServers"]?.arrayValue ?? []) + (group["xftpServers"]?.arrayValue ?? [])
                for s in servers { out.append((s["server"]?.stringValue ?? "") + " \(s["enabled"]?.boolValue ?? false)") }
            }
            return out
        }
        XCTAssertEqual(addresses(bob), addresses(r))
        await h.chatError("/_servers 1", "differentActiveUser")
    }

    func testSettingServers() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let custom = "smp://abcd@smp.example.com:05223"
        let set = Self.own(
            smp: [Self.server(custom), Self.server("smp://a2V5@other.example")], xftp: [Self.server("xftp://a2V5@files.example")])
        await h.expect("/_servers 1 " + set, #"{"result":{"type":"cmdOk"}}"#)
        var r = await h.result("/_servers 1", "userServers")
        var own = try XCTUnwrap(r["userServers"]?.arrayValue?.last)
        XCTAssertEqual(
            own["smpServers"]?.arrayValue?.compactMap { $0["server"]?.stringValue },
            ["smp://abcd@smp.example.com:5223", "smp://a2V5@other.example"])
        XCTAssertEqual(r["userServers"]?.arrayValue?.first?["operator"]?["enabled"]?.boolValue, false)
        // Servers are updated by id, and those marked deleted removed; preset servers are only ever disabled.
        let ids = own["smpServers"]?.arrayValue?.compactMap { $0["serverId"]?.integerValue } ?? []
        let xftpId = try XCTUnwrap(own["xftpServers"]?.arrayValue?.first?["serverId"]?.integerValue)
        let preset = try XCTUnwrap(r["userServers"]?.arrayValue?.first?["smpServers"]?.arrayValue?.first)
        let presetId = try XCTUnwrap(preset["serverId"]?.integerValue)
        let presetAddress = try XCTUnwrap(preset["server"]?.stringValue)
        let update =
            "["
            + [
                Self.entry(
                    Self.op(1, enabled: false), smp: [Self.server(presetAddress, id: presetId, deleted: true, preset: true)]),
                Self.entry(Self.op(2, enabled: false)),
                Self.entry(
                    nil,
                    smp: [
                        Self.server(custom, id: ids[0], enabled: false),
                        Self.server("smp://a2V5@other.example", id: ids[1], deleted: true),
                        Self.server("smp://a2V5@third.example"),
                    ], xftp: [Self.server("xftp://a2V5@files.example", id: xftpId)]),
            ].joined(separator: ",") + "]"
        await h.expect("/_servers 1 " + update, #"{"result":{"type":"cmdOk"}}"#)
        r = await h.result("/_servers 1", "userServers")
        own = try XCTUnwrap(r["userServers"]?.arrayValue?.last)
        XCTAssertEqual(
            own["smpServers"]?.arrayValue?.compactMap { $0["server"]?.stringValue },
            ["smp://abcd@smp.example.com:5223", "smp://a2V5@third.example"])
        XCTAssertEqual(own["smpServers"]?.arrayValue?.first?["enabled"]?.boolValue, false)
        XCTAssertEqual(r["userServers"]?.arrayValue?.first?["smpServers"]?.arrayValue?.count, 14)
    }

    /// Each validation error and warning of chat-api.md §7.29, from a configuration made to produce it.
    func testEachValidationErrorAndWarning() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let smp = Self.server("smp://a2V5@smp.example")
        let xftp = Self.server("xftp://a2V5@xftp.example")
        var (errors, warnings) = await validation(h, Self.own(smp: [smp], xftp: [xftp]))
        XCTAssertEqual(errors, [])
        XCTAssertEqual(warnings, ["noChatRelays"])
        (errors, warnings) = await validation(
            h, Self.own(smp: [smp], xftp: [xftp], relays: [Self.relay("r", "https://smp.example/r#a2V5")]))
        XCTAssertEqual([errors, warnings], [[], []])
        // No enabled server (disabled or being deleted count as none).
        (errors, _) = await validation(h, Self.own(smp: [Self.server("smp://a2V5@smp.example", enabled: false)], xftp: [xftp]))
        XCTAssertEqual(errors, ["noServers"])
        (errors, _) = await validation(
            h, Self.own(smp: [smp], xftp: [Self.server("xftp://a2V5@x.example", id: 3, deleted: true)]))
        XCTAssertEqual(errors, ["noServers"])
        // Only an operator's servers, and the operator does not store (or proxy) with them.
        let noStorage =
            "["
            + [
                Self.entry(
                    Self.op(1, smp: (false, true)), smp: [Self.server(Self.simplexSMP, preset: true)],
                    xftp: [Self.server(Self.simplexXFTP, preset: true)]), Self.entry(Self.op(2, enabled: false)), Self.entry(nil),
            ].joined(separator: ",") + "]"
        let r = await h.result("/_validate_servers 1 " + noStorage, "userServersValidation")
        XCTAssertEqual(r["serverErrors"]?.rendered, #"[{"protocol":"smp","type":"storageMissing"}]"#)
        let noProxy = noStorage.replacingOccurrences(
            of: #""xftpRoles":{"storage":true,"proxy":true}"#, with: #""xftpRoles":{"storage":true,"proxy":false}"#)
        (errors, _) = await validation(h, noProxy)
        XCTAssertEqual(errors, ["storageMissing", "proxyMissing"])
        // Two servers with a host in common.
        let duplicate = Self.own(smp: [Self.server(Self.simplexSMP), Self.server("smp://abcd@smp8.simplex.im")], xftp: [xftp])
        let d = await h.result("/_validate_servers 1 " + duplicate, "userServersValidation")
        XCTAssertEqual(
            d["serverErrors"]?.rendered,
            #"[{"duplicateHost":"smp8.simplex.im","duplicateServer":"\#(Self.simplexSMP)","protocol":"smp","type":"duplicateServer"},{"duplicateHost":"smp8.simplex.im","duplicateServer":"smp://abcd@smp8.simplex.im","protocol":"smp","type":"duplicateServer"}]"#
        )
        // Chat relays with the same name or address.
        (errors, _) = await validation(
            h,
            Self.own(
                smp: [smp], xftp: [xftp],
                relays: [Self.relay("r", "https://a.example/r#1"), Self.relay("r", "https://b.example/r#2")]))
        XCTAssertEqual(errors, ["duplicateChatRelayName", "duplicateChatRelayName"])
        (errors, _) = await validation(
            h,
            Self.own(
                smp: [smp], xftp: [xftp],
                relays: [Self.relay("r1", "https://a.example/r#1"), Self.relay("r2", "https://a.example/r#1")]))
        XCTAssertEqual(errors, ["duplicateChatRelayAddress", "duplicateChatRelayAddress"])
        // Another user's servers, with the operators as this configuration sets them.
        await h.createUser("bob")
        await h.result("/_user 1", "activeUser")
        let other = await h.result("/_validate_servers 1 " + Self.own(smp: [smp], xftp: [xftp]), "userServersValidation")
        let errs = other["serverErrors"]?.arrayValue ?? []
        XCTAssertEqual(errs.compactMap { $0["type"]?.stringValue }, ["noServers", "noServers"])
        XCTAssertEqual(errs.compactMap { $0["user"]?["userId"]?.integerValue }, [2, 2])
        XCTAssertEqual(errs.compactMap { $0["protocol"]?.stringValue }, ["smp", "xftp"])
        XCTAssertEqual(other["serverWarnings"]?.rendered.contains(#""userId":2"#), true)
        // Saving refuses any error with the core's message.
        let refused = await h.chatError("/_servers 1 " + duplicate, "commandError")
        XCTAssertEqual(
            refused["message"]?.stringValue,
            #"user servers validation error(s): [USEDuplicateServer {protocol = AProtocolType SPSMP, duplicateServer = "\#(Self.simplexSMP)", duplicateHost = THDomainName "smp8.simplex.im"},USEDuplicateServer {protocol = AProtocolType SPSMP, duplicateServer = "smp://abcd@smp8.simplex.im", duplicateHost = THDomainName "smp8.simplex.im"},USENoServers {protocol = AProtocolType SPSMP, user = Just (User {userId = 2, localDisplayName = "bob"})},USENoServers {protocol = AProtocolType SPXFTP, user = Just (User {userId = 2, localDisplayName = "bob"})}]"#
        )
    }

    func testServerAddressErrors() async throws {
        let h = try EngineHarness()
        await h.startWithUser()
        let cases: [(String, String)] = [
            ("http://a2V5@smp.example", "the address must start with smp:// or xftp://"),
            ("smp://@smp.example", "no key hash after smp://"),
            ("smp://a2V5", "expected @ and the server's hosts after the key hash"),
            ("smp://a2V@smp.example", "the key hash is not base64url"),
            ("smp://a2V5@smp.example:port", "the port must be a number"),
            ("smp://a2V5@smp.example/path", "unexpected text after the hosts and port"),
            ("smp://a2V5@bad.host.onion", "invalid onion host bad.host.onion"),
            ("xftp://a2V5@smp.example", "expected a smp:// server"),
        ]
        for (address, reason) in cases {
            let e = await h.chatError("/_validate_servers 1 " + Self.own(smp: [Self.server(address)], xftp: []), "commandError")
            XCTAssertEqual(
                e["message"]?.stringValue, "Error in $[2].smpServers[0].server: bad server address: \(reason)", address)
        }
    }

    func testServerAddressSyntax() throws {
        let a = try ServerAddress(parsing: "smp://abcd:pass@1.2.3.4,[2001:DB8::1],host.example,abc.onion:05223")
        XCTAssertEqual(a.serverProtocol, .smp)
        XCTAssertEqual(a.hosts, [.ipv4(1, 2, 3, 4), .ipv6("2001:db8::1"), .domain("host.example"), .onion("abc.onion")])
        XCTAssertEqual(a.basicAuth, "pass")
        XCTAssertEqual(a.port, "5223")
        XCTAssertEqual(a.text, "smp://abcd:pass@1.2.3.4,2001:db8::1,host.example,abc.onion:5223")
        // The key hash is re-encoded with its padding.
        XCTAssertEqual(try ServerAddress(parsing: "xftp://a2V5cw@h.example").text, "xftp://a2V5cw==@h.example")
        XCTAssertThrowsError(try ServerAddress(parsing: "smp://abcd:p/w@h.example"))
        XCTAssertThrowsError(try ServerAddress(parsing: "smp://abcd@"))
        XCTAssertThrowsError(try ServerAddress(parsing: "smp://abcd@h.example,"))
    }
}
