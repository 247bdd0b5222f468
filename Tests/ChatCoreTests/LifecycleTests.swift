import ChatCore
import ChatStore
import Foundation
import SimplexEncoding
import XCTest

/// Chat lifecycle (chat-api.md §4.2), the pre-start rules of §10.3 and the preconditions of §1.6.
final class LifecycleTests: XCTestCase {
    func testStartNeedsAUserAndAnswersRunningTheSecondTime() async throws {
        let h = try EngineHarness()
        await h.result("/_check running", "chatStopped")
        await h.chatError("/_start", "noActiveUser")
        await h.createUser("alice")
        await h.expect("/_start main=on snd_files=on", #"{"result":{"type":"chatStarted"}}"#)
        await h.expect("/_start", #"{"result":{"type":"chatRunning"}}"#)
        await h.result("/_check running", "chatRunning")
        await h.expect("/_stop", #"{"result":{"type":"chatStopped"}}"#)
        await h.result("/_check running", "chatStopped")
        await h.result("/_stop", "chatStopped")
        await h.result("/_start", "chatStarted")
    }

    func testActivateAndSuspend() async throws {
        let h = try EngineHarness()
        await h.chatError("/_app activate restore=on", "noActiveUser")
        await h.createUser("alice")
        await h.chatError("/_app activate", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        await h.expect("/_app suspend 0", #"{"result":{"type":"cmdOk"}}"#)
        let event = await h.engine.nextEvent(waitMicroseconds: 1_000_000).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(event, #"{"result":{"type":"chatSuspended"}}"#)
        await h.expect("/_app activate restore=off", #"{"result":{"type":"cmdOk"}}"#)
        let none = await h.engine.nextEvent(waitMicroseconds: 10_000)
        XCTAssertNil(none)
    }

    /// §10.3: what must work before `/_start` (and before any user, where the core needs none).
    func testPreStartCommands() async throws {
        let h = try EngineHarness()
        let paths = [h.folder.appendingPathComponent("files"), h.folder.appendingPathComponent("tmp/a")]
        let assets = h.folder.appendingPathComponent("assets")
        await h.expect(
            #"/set file paths {"appFilesFolder":"\#(paths[0].path)","appTempFolder":"\#(paths[1].path)","appAssetsFolder":"\#(assets.path)"}"#,
            #"{"result":{"type":"cmdOk"}}"#)
        for p in paths + [assets] {
            var isDirectory: ObjCBool = false
            XCTAssertTrue(FileManager.default.fileExists(atPath: p.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
        await h.chatError(#"/set file paths {"appFilesFolder":"/x"}"#, "commandError")
        await h.expect("/_files_encrypt on", #"{"result":{"type":"cmdOk"}}"#)
        await h.result("/_files_encrypt off", "cmdOk")
        await h.expect(#"/_network info {"networkType":"wifi","online":true}"#, #"{"result":{"type":"cmdOk"}}"#)
        await h.chatError(#"/_network info {"networkType":"5g","online":true}"#, "commandError")
        await h.result("/_check running", "chatStopped")
        await h.result("/version", "versionInfo")
        await h.result("/_get app settings", "appSettings")
        await h.result(#"/_save app settings {"appPlatform":"desktop"}"#, "cmdOk")
        await h.chatError("/_call get", "noActiveUser")
        let alice = await h.createUser("alice")
        await h.result("/u", "activeUser")
        await h.result("/users", "usersList")
        await h.result("/_ttl \(alice)", "chatItemTTL")
        await h.result("/_get chats \(alice) pcc=on", "apiChats")
        await h.result("/_get tags \(alice)", "chatTags")
        await h.result("/_call get", "callInvitations")
        await h.storeError("/_show_address \(alice)", "userContactLinkNotFound")
        // What needs a running chat.
        await h.chatError("/_ttl \(alice) 86400", "chatNotStarted")
        await h.chatError("/_contacts \(alice)", "chatNotStarted")
        await h.chatError("/_profile \(alice) {\"displayName\":\"a\",\"fullName\":\"\"}", "chatNotStarted")
        await h.chatError("/get subs total \(alice)", "chatNotStarted")
        await h.chatError("/set receipts all on", "chatNotStarted")
    }

    func testSetFilePathsReportsAFolderItCannotCreate() async throws {
        let h = try EngineHarness()
        let blocker = h.folder.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        let bad = blocker.appendingPathComponent("sub").path
        let e = await h.chatError(
            #"/set file paths {"appFilesFolder":"\#(bad)","appTempFolder":"\#(bad)","appAssetsFolder":"\#(bad)"}"#,
            "exception")
        XCTAssertTrue(e["message"]?.stringValue?.contains(bad) ?? false)
    }

    func testVersionListsTheMigrations() async throws {
        let h = try EngineHarness()
        let r = await h.result("/v", "versionInfo")
        XCTAssertEqual(r["versionInfo"]?.keys, ["simplexmqCommit", "simplexmqVersion", "version"])
        let chat = r["chatMigrations"]?.arrayValue?.compactMap { $0["upName"]?.stringValue } ?? []
        XCTAssertEqual(chat, Migration.chat.map(\.name))
        XCTAssertEqual(chat.prefix(2), ["m20261130_remote_control", "m20261201_chat_users"])
        XCTAssertEqual(r["chatMigrations"]?.arrayValue?.first?["withDown"]?.boolValue, true)
        let agent = r["agentMigrations"]?.arrayValue?.compactMap { $0["upName"]?.stringValue } ?? []
        XCTAssertEqual(agent, Migration.agent.map(\.name))
    }

    func testTTLIsStoredPerUser() async throws {
        let h = try EngineHarness()
        let alice = await h.startWithUser()
        await h.expect(
            "/_ttl \(alice)",
            #"{"result":{"type":"chatItemTTL","user":"# + UserCommandTests.alice + #","chatItemTTL":0}}"#)
        let ok = await h.result("/_ttl \(alice) 604800", "cmdOk")
        XCTAssertEqual(ok["user_"]?["userId"]?.integerValue, alice)
        let r = await h.result("/_ttl \(alice)", "chatItemTTL")
        XCTAssertEqual(r["chatItemTTL"]?.integerValue, 604_800)
        let bob = await h.createUser("bob")
        let rb = await h.result("/_ttl \(bob)", "chatItemTTL")
        XCTAssertEqual(rb["chatItemTTL"]?.integerValue, 0)
    }

    /// The core's `defaultAppSettings` (AppSettings.hs) in the record's order, between the app platform and the end.
    static func coreDefaults(
        networkConfig: String = NetworkConfigTests.defaults, colorScheme: String = #""SYSTEM""#, oneHandUI: Bool = true
    ) -> String {
        #""networkConfig":\#(networkConfig),"privacyEncryptLocalFiles":true,"privacyAskToApproveRelays":true,"privacyAcceptImages":true,"privacyLinkPreviews":true,"privacyShowChatPreviews":true,"privacySaveLastDraft":true,"privacyProtectScreen":false,"privacyMediaBlurRadius":0,"notificationMode":"instant","notificationPreviewMode":"message","webrtcPolicyRelay":true,"webrtcICEServers":[],"confirmRemoteSessions":false,"connectRemoteViaMulticast":true,"connectRemoteViaMulticastAuto":true,"developerTools":false,"confirmDBUpgrades":false,"androidCallOnLockScreen":"show","iosCallKitEnabled":true,"iosCallKitCallsInRecents":false,"uiProfileImageCornerRadius":22.5,"uiChatItemRoundness":0.75,"uiChatItemTail":true,"uiColorScheme":\#(colorScheme),"uiDarkColorScheme":"SIMPLEX","oneHandUI":\#(oneHandUI),"chatBottomBar":true"#
    }

    func testAppSettingsRoundTripOverPlatformDefaults() async throws {
        let h = try EngineHarness()
        // Nothing stored, no platform defaults: every setting with the core's default.
        await h.expect(
            "/_get app settings", #"{"result":{"type":"appSettings","appSettings":{"# + Self.coreDefaults() + "}}}")
        await h.result(
            #"/_save app settings {"uiColorScheme":"dark","appPlatform":"desktop","notAKnownKey":1,"networkConfig":{"b":1,"a":2}}"#,
            "cmdOk")
        // Stored over the platform's over the core's.
        await h.expect(
            #"/_get app settings {"appPlatform":"android","oneHandUI":false}"#,
            #"{"result":{"type":"appSettings","appSettings":{"appPlatform":"desktop","#
                + Self.coreDefaults(networkConfig: #"{"a":2,"b":1}"#, colorScheme: #""dark""#, oneHandUI: false) + "}}}")
    }

    func testUserThemesAreKeptWithTheUser() async throws {
        let h = try EngineHarness()
        let alice = await h.startWithUser()
        // The answer carries the user as read before the change, as the core's `ok user'` does.
        await h.expect(
            #"/_set theme user \#(alice) {"light":{"mode":"light","colors":{}}}"#,
            #"{"result":{"type":"cmdOk","user_":"# + UserCommandTests.alice + "}}")
        let first = await h.text("/u")
        XCTAssertTrue(first.contains(#","uiThemes":{"light":{"mode":"light","colors":{}}}}"#), first)
        // Kept as the core's typed decoder reads it and written in its record order: a null wallpaper, unknown keys
        // and colour names dropped, a Double written as aeson writes one.
        await h.result(
            ##"/_set theme user \##(alice) {"dark":{"mode":"dark","wallpaper":null,"colors":{"accent":"#ff0000ff","sunset":"#00000000","title":"#00FF00FF"}},"light":{"colors":{},"mode":"light","wallpaper":{"scale":1,"preset":"cats","extra":1}}}"##,
            "cmdOk")
        let second = await h.text("/u")
        XCTAssertTrue(
            second.contains(
                ##","uiThemes":{"light":{"mode":"light","wallpaper":{"preset":"cats","scale":1.0},"colors":{}},"dark":{"mode":"dark","colors":{"accent":"#ff0000ff","title":"#00FF00FF"}}}}"##
            ), second)
        for bad in [
            ##"{"light":{"mode":"light","colors":{"accent":"red"}}}"##, ##"{"light":{"mode":"sepia","colors":{}}}"##,
            ##"{"light":{"mode":"light"}}"##, ##"{"dark":{"mode":"dark","colors":{},"wallpaper":{"scaleType":"zoom"}}}"##,
        ] {
            await h.chatError("/_set theme user \(alice) " + bad, "commandError")
        }
        await h.result("/_set theme user \(alice)", "cmdOk")
        let cleared = await h.result("/u", "activeUser")
        XCTAssertNil(cleared["user"]?["uiThemes"])
        await h.storeError("/_set theme user 9 {}", "userNotFound")
    }

    func testParseFailureIsACommandError() async throws {
        let h = try EngineHarness()
        let e = await h.chatError("/_nonsense", "commandError")
        XCTAssertNotNil(e["message"]?.stringValue)
        await h.chatError("/_start main=maybe", "commandError")
        await h.chatError("", "commandError")
    }
}
