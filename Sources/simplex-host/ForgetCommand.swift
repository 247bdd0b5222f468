import Foundation

/// `simplex-host forget <id>`: deletes a known desktop's pairing.
enum ForgetCommand {
    static func run(_ options: Options, id: Int64) async -> Int32 {
        let runtime: HostRuntime
        do { runtime = try await HostRuntime(options: options, output: Console().output) } catch { return Say.failure(error) }
        do {
            _ = try await runtime.remoteControl.delete(id: id)
            Say.line("Forgotten: desktop \(id) has to be paired again with a link.")
            return ExitCode.ok.rawValue
        } catch {
            if case .store(let type, _) = error, type == "remoteCtrlNotFound" {
                Say.error("there is no desktop \(id)", hint: "simplex-host controllers lists them")
                return ExitCode.failed.rawValue
            }
            Say.error("cannot forget desktop \(id): \(Say.errorText(error.json))")
            return ExitCode.storage.rawValue
        }
    }
}
