// simplex-host: a Linux host for SimpleX Chat remote control. `simplex-host --help` for the options.
import ChatCore
import ChatStore
import Foundation
import SimplexEncoding
import SimplexHost

// The controller role lives in Controller*.swift, with its own options.
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "controller" {
    exit(await ControllerMode.run(Array(CommandLine.arguments.dropFirst(2))))
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch Options.Failure.usage(let message) {
    if !message.isEmpty { FileHandle.standardError.write(Data("simplex-host: \(message)\n".utf8)) }
    print(Options.usage)
    print(
        "\nCommands refused by the embedded core (they need a network peer, which it does not have yet):\n"
            + NetworkRefusal.commands.map(\.rawValue).sorted().joined(separator: " "))
    exit(message.isEmpty ? 0 : 2)
}
guard options.json else {
    FileHandle.standardError.write(Data("simplex-host: only the scripting mode (--json) exists so far\n".utf8))
    exit(2)
}

do {
    try FileManager.default.createDirectory(at: options.dataFolder, withIntermediateDirectories: true)
    let prefix = options.dataFolder.appendingPathComponent("simplex_v1").path
    let store = try ChatStoreActor(prefix: prefix, confirmation: .yesUp)
    let output = OutputLines()
    let backend = try CoreBackend.make(prefix: prefix)

    let remoteControlBox = RemoteControlBox()
    let events = EventRouter(
        backend: backend, isRemoteConnected: { await remoteControlBox.value?.isConnected ?? false },
        endRemoteSession: { _ = await remoteControlBox.value?.stop() },
        local: { envelope in Task { await output.write(Scripting.event(envelope)) } })
    let bridge = SessionBridge(backend: backend, events: events, filesFolder: options.dataFolder.appendingPathComponent("files"))
    var multicast = MulticastSettings()
    if let g = options.multicastGroup { multicast.group = g }
    if let p = options.multicastPort { multicast.port = p }
    multicast.interfaceAddress = options.multicastInterface
    var timeouts = RemoteControlTimeouts()
    if let t = options.timeouts["connect"] { timeouts.connect = t }
    if let t = options.timeouts["tls"] { timeouts.tls = t }
    if let t = options.timeouts["hello"] { timeouts.hello = t }
    if let t = options.timeouts["discovery"] { timeouts.discovery = t }
    let remoteControl = HostRemoteControl(
        store: store, handler: bridge, deviceName: options.deviceName ?? ProcessInfo.processInfo.hostName, timeouts: timeouts,
        multicast: multicast,
        emit: { event in
            if let hint = Hints.forEvent(event) { FileHandle.standardError.write(Data("simplex-host: \(hint)\n".utf8)) }
            Task { await output.write(Scripting.event(event)) }
        })
    remoteControlBox.value = remoteControl
    let router = CommandRouter(remoteControl: remoteControl, backend: backend)
    let eventTask = Task.detached { await events.run() }

    // Commands run one after another, in the order they arrive; events are written as they happen.
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    Thread {
        while let line = readLine(strippingNewline: true) { continuation.yield(line) }
        continuation.finish()
    }.start()
    for await line in lines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
        let (corrId, command) = Scripting.request(line)
        let envelope = await router.executeLocal(command)
        let response = Scripting.response(envelope, corrId: corrId)
        if let hint = Hints.forResponse(response) { FileHandle.standardError.write(Data("simplex-host: \(hint)\n".utf8)) }
        await output.write(response)
    }
    _ = await remoteControl.stop()
    eventTask.cancel()
} catch {
    FileHandle.standardError.write(Data("simplex-host: \(error)\n".utf8))
    exit(1)
}

/// Lets closures made before the service exists reach it.
final class RemoteControlBox: @unchecked Sendable {
    // Set once, before any command runs.
    var value: HostRemoteControl?
}
