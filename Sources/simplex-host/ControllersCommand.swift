import Foundation
import SimplexEncoding

/// `simplex-host controllers`: the known desktops, one a line (or the `remoteCtrlList` JSON with `--json`).
enum ControllersCommand {
    static func run(_ options: Options) async -> Int32 {
        let runtime: HostRuntime
        do { runtime = try await HostRuntime(options: options, output: Console().output) } catch { return Say.failure(error) }
        let list: CanonicalJSON
        do { list = try await runtime.remoteControl.list() } catch {
            Say.error("cannot read the known desktops: \(Say.errorText(error.json))")
            return ExitCode.storage.rawValue
        }
        if options.json {
            Say.line(list.rendered)
            return ExitCode.ok.rawValue
        }
        let controllers = Say.items(list["remoteCtrls"])
        if controllers.isEmpty {
            Say.line("No desktop is paired yet: simplex-host connect '<xrcp link>' pairs one.")
        }
        for c in controllers {
            let id = c["remoteCtrlId"]?.integerValue.map(String.init) ?? "?"
            Say.line("\(id)  \(c["ctrlDeviceName"]?.stringValue ?? "")")
        }
        return ExitCode.ok.rawValue
    }
}
