import ChatCore
import SimplexEncoding
import XCTest

/// Network configuration and reconnection, chat-api.md §4.10 and §7.27, through command lines.
final class NetworkConfigTests: XCTestCase {
    /// The defaults of §7.27, every field present but the absent SOCKS proxy.
    static let defaults =
        #"{"socksMode":"always","hostMode":"onionViaSocks","requiredHostMode":false,"sessionMode":"user","smpProxyMode":"always","smpProxyFallback":"allowProtected","smpWebPortServers":"preset","tcpConnectTimeout":{"backgroundTimeout":45000000,"interactiveTimeout":15000000},"tcpTimeout":{"backgroundTimeout":30000000,"interactiveTimeout":10000000},"tcpTimeoutPerKb":10000,"rcvConcurrency":12,"tcpKeepAlive":{"keepIdle":30,"keepIntvl":15,"keepCnt":4},"smpPingInterval":1200000000,"smpPingCount":3,"logTLSErrors":false}"#

    func testDefaultsBeforeAnySetting() async throws {
        let h = try EngineHarness()
        await h.chatError("/network", "noActiveUser")
        await h.chatError(#"/_network {}"#, "noActiveUser")
        await h.createUser("alice")
        // A user is enough: the chat need not be started.
        await h.expect("/network", #"{"result":{"type":"networkConfig","networkConfig":"# + Self.defaults + "}}")
        await h.expect("/net", #"{"result":{"type":"networkConfig","networkConfig":"# + Self.defaults + "}}")
    }

    func testSetKeepsTheConfigurationAndFillsDefaults() async throws {
        let h = try EngineHarness()
        await h.createUser("alice")
        await h.expect(
            #"/_network {"socksProxy":"127.0.0.1:9050","hostMode":"public","smpProxyMode":"never","tcpTimeout":7000000,"logTLSErrors":true}"#,
            #"{"result":{"type":"cmdOk"}}"#)
        let r = await h.result("/network", "networkConfig")
        let config = try XCTUnwrap(r["networkConfig"])
        XCTAssertEqual(config["socksProxy"]?.stringValue, "127.0.0.1:9050")
        XCTAssertEqual(config["hostMode"]?.stringValue, "public")
        XCTAssertEqual(config["smpProxyMode"]?.stringValue, "never")
        XCTAssertEqual(config["logTLSErrors"]?.boolValue, true)
        // An older client's single timeout stays as it was sent.
        XCTAssertEqual(config["tcpTimeout"]?.integerValue, 7_000_000)
        XCTAssertEqual(config["socksMode"]?.stringValue, "always")
        // tcpKeepAlive is optional: left out, there is none.
        XCTAssertNil(config["tcpKeepAlive"])
        await h.result(#"/_network "# + Self.defaults, "cmdOk")
        await h.expect("/network", #"{"result":{"type":"networkConfig","networkConfig":"# + Self.defaults + "}}")
    }

    func testBadConfigurationsAreRefusedAndChangeNothing() async throws {
        let h = try EngineHarness()
        await h.createUser("alice")
        for bad in [
            #"{"hostMode":"tor"}"#, #"{"socksProxy":"localhost"}"#, #"{"socksProxy":"host:70000"}"#,
            #"{"tcpConnectTimeout":{"backgroundTimeout":1}}"#, #"{"tcpTimeout":-5}"#, #"{"smpPingCount":-1}"#,
            #"{"tcpKeepAlive":{"keepIdle":1,"keepIntvl":1}}"#, #"{"requiredHostMode":"yes"}"#,
        ] {
            await h.chatError("/_network " + bad, "commandError")
        }
        await h.expect("/network", #"{"result":{"type":"networkConfig","networkConfig":"# + Self.defaults + "}}")
    }

    /// `/network socks=…`: merged over the configuration as the core merges its SimpleNetCfg, answered with the result.
    func testSimpleSettingsMergeOverTheConfiguration() async throws {
        let h = try EngineHarness()
        await h.chatError("/network socks=on", "noActiveUser")
        await h.createUser("alice")
        await h.expect(#"/_network {"smpProxyMode":"unknown","rcvConcurrency":5}"#, #"{"result":{"type":"cmdOk"}}"#)
        var r = await h.result("/network socks=on", "networkConfig")
        var config = try XCTUnwrap(r["networkConfig"])
        XCTAssertEqual(config["socksProxy"]?.stringValue, "127.0.0.1:9050")
        XCTAssertEqual(config["hostMode"]?.stringValue, "onionViaSocks")
        // What the command does not name is kept.
        XCTAssertEqual(config["smpProxyMode"]?.stringValue, "unknown")
        XCTAssertEqual(config["rcvConcurrency"]?.integerValue, 5)
        r = await h.result(
            "/net socks=u:p@10.0.0.1:1080 socks-mode=onion required-host-mode smp-proxy=never timeout=20 log=on",
            "networkConfig")
        config = try XCTUnwrap(r["networkConfig"])
        XCTAssertEqual(config["socksProxy"]?.stringValue, "u:p@10.0.0.1:1080")
        XCTAssertEqual(config["socksMode"]?.stringValue, "onion")
        // A proxy with its own credentials does not isolate by them: hosts are public unless told otherwise.
        XCTAssertEqual(config["hostMode"]?.stringValue, "public")
        XCTAssertEqual(config["requiredHostMode"]?.boolValue, true)
        XCTAssertEqual(config["smpProxyMode"]?.stringValue, "never")
        XCTAssertEqual(config["logTLSErrors"]?.boolValue, true)
        XCTAssertEqual(
            config["tcpTimeout"], try CanonicalJSON.parse(#"{"backgroundTimeout":60000000,"interactiveTimeout":20000000}"#))
        XCTAssertEqual(
            config["tcpConnectTimeout"],
            try CanonicalJSON.parse(#"{"backgroundTimeout":90000000,"interactiveTimeout":30000000}"#))
        r = await h.result("/network socks=off smp-web-port", "networkConfig")
        config = try XCTUnwrap(r["networkConfig"])
        XCTAssertNil(config["socksProxy"])
        XCTAssertEqual(config["socksMode"]?.stringValue, "always")
        XCTAssertEqual(config["requiredHostMode"]?.boolValue, false)
        XCTAssertEqual(config["smpWebPortServers"]?.stringValue, "all")
        XCTAssertEqual(config["smpProxyMode"]?.stringValue, "never")
        for bad in ["/network socks=nowhere", "/network socks=on host-mode=tor", "/network socks=on timeout=0"] {
            await h.chatError(bad, "commandError")
        }
        r = await h.result("/network", "networkConfig")
        XCTAssertEqual(r["networkConfig"], config)
    }

    func testReconnectHasNothingToReconnect() async throws {
        let h = try EngineHarness()
        await h.chatError("/reconnect", "noActiveUser")
        await h.createUser("alice")
        await h.expect("/reconnect", #"{"result":{"type":"cmdOk"}}"#)
        await h.chatError("/reconnect 1 smp://abc@smp.example.com", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        await h.expect("/reconnect 1 smp://abc@smp.example.com", #"{"result":{"type":"cmdOk"}}"#)
        await h.chatError("/reconnect 2 smp://abc@smp.example.com", "differentActiveUser")
    }

    func testNoConnectionsToResubscribeCompareOrReport() async throws {
        let h = try EngineHarness()
        // Neither resubscribing nor comparing the databases checks for a user.
        await h.expect("/_resubscribe all", #"{"result":{"type":"cmdOk"}}"#)
        let empty = #"{"missingIds":[],"extraIds":[]}"#
        await h.expect(
            "/_connections diff",
            #"{"result":{"type":"connectionsDiff","showIds":false,"userIds":\#(empty),"connIds":\#(empty)}}"#)
        await h.chatError("/_network_statuses", "noActiveUser")
        await h.createUser("alice")
        await h.chatError("/_network_statuses", "chatNotStarted")
        await h.result("/_start", "chatStarted")
        await h.expect("/_network_statuses", #"{"result":{"type":"networkStatuses","networkStatuses":[]}}"#)
        await h.expect("/_resubscribe all", #"{"result":{"type":"cmdOk"}}"#)
        await h.expect(
            "/_connections diff show_ids=on",
            #"{"result":{"type":"connectionsDiff","showIds":true,"userIds":\#(empty),"connIds":\#(empty)}}"#)
    }
}
