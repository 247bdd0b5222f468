import Foundation
import SimplexEncoding

/// `simplex-host status`: where the data is, what desktops see, the chat profile and the known desktops.
enum StatusCommand {
    static func run(_ options: Options) async -> Int32 {
        let runtime: HostRuntime
        do { runtime = try await HostRuntime(options: options, output: Console().output) } catch { return Say.failure(error) }
        let user = Say.result(await runtime.backend.execute("/user"))?["user"]
        let profile = user?["profile"]?["displayName"]?.stringValue ?? user?["localDisplayName"]?.stringValue
        let controllers = Say.items((try? await runtime.remoteControl.list())?["remoteCtrls"])
        if options.json {
            var fields: [String: CanonicalJSON] = [
                "dataFolder": .string(runtime.folder.url.path), "deviceName": .string(runtime.deviceName),
                "remoteCtrls": .array(controllers),
            ]
            if let profile { fields["profile"] = .string(profile) }
            Say.line(CanonicalJSON.object(fields).rendered)
            return ExitCode.ok.rawValue
        }
        Say.line("data folder:   \(runtime.folder.url.path)")
        Say.line("device name:   \(runtime.deviceName)")
        Say.line("chat profile:  \(profile ?? "none yet (--profile NAME creates it)")")
        let names = controllers.compactMap { c -> String? in
            guard let id = c["remoteCtrlId"]?.integerValue, let name = c["ctrlDeviceName"]?.stringValue else { return nil }
            return "\(id) \(name)"
        }
        Say.line(
            "known desktops: \(names.isEmpty ? "none (simplex-host connect '<xrcp link>' pairs one)" : names.joined(separator: ", "))"
        )
        return ExitCode.ok.rawValue
    }
}
