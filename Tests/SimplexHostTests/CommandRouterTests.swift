import ChatModel
import ChatStore
import Foundation
import SimplexHost
import XCTest

/// Where the command router sends a line (`CommandRouter.route`), and both roles behind one router, as libsimplex
/// wires them (`HostWiring` with a controller).
final class CommandRouterTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func wiring(controller withController: Bool) throws -> HostWiring {
        let store = try ChatStoreActor(prefix: folder.appendingPathComponent("simplex_v1").path, confirmation: .yesUp)
        let controller =
            withController
            ? ControllerRemoteControl(
                store: store, deviceName: "desk", remoteHostsFolder: folder.appendingPathComponent("hosts"), emit: { _ in })
            : nil
        return HostWiring(
            backend: ScriptedBackend(), store: store, storeFiles: HostStoreFiles(store: store, sharedWithCore: true),
            filesFolder: { nil }, controller: controller, settings: HostWiring.Settings(deviceName: "phone"),
            output: HostWiring.Output(coreEvent: { _ in }, remoteEvent: { _ in }))
    }

    private func name(_ route: CommandRouter.Route) -> String {
        switch route {
        case .remoteControl(let c): "host \(c.name.rawValue)"
        case .controller(let c): "controller \(c.name.rawValue)"
        case .storeFiles(let c): "storeFiles \(c.name.rawValue)"
        case .core(let c): "core \(c?.name.rawValue ?? "-")"
        }
    }

    func testRoutes() throws {
        let both = try wiring(controller: true).router
        let hostOnly = try wiring(controller: false).router
        let cases: [(String, String, String)] = [
            ("/list remote ctrls", "host listRemoteCtrls", "host listRemoteCtrls"),
            ("/set device name Desk", "host setLocalDeviceName", "host setLocalDeviceName"),
            ("/start remote host new", "controller startRemoteHost", "core -"),
            ("/list remote hosts", "controller listRemoteHosts", "core -"),
            ("/db key a b", "storeFiles apiStorageEncryption", "storeFiles apiStorageEncryption"),
            ("/users", "core listUsers", "core listUsers"),
            ("/no such command", "core -", "core -"),
        ]
        for (line, withController, without) in cases {
            XCTAssertEqual(name(both.route(line)), withController, line)
            XCTAssertEqual(name(hostOnly.route(line)), without, line)
        }
    }

    func testBothRolesShareTheDeviceNameAndAnswerTheirCommands() async throws {
        let wiring = try wiring(controller: true)
        let named = await wiring.router.answer("/set device name Library")
        XCTAssertEqual(String(decoding: named.envelope, as: UTF8.self), #"{"result":{"type":"cmdOk"}}"#)
        let hostName = await wiring.remoteControl.deviceName
        let controllerName = await wiring.router.controller?.deviceName
        XCTAssertEqual(hostName, "Library")
        XCTAssertEqual(controllerName, "Library")
        let hosts = await wiring.router.answer("/list remote hosts")
        XCTAssertEqual(String(decoding: hosts.envelope, as: UTF8.self), #"{"result":{"remoteHosts":[],"type":"remoteHostList"}}"#)
        let missing = await wiring.router.answer("/switch remote host 4")
        XCTAssertTrue(String(decoding: missing.envelope, as: UTF8.self).contains("errorRemoteHost"))
        await wiring.shutdown()
    }
}
