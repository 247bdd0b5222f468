import Foundation

/// `simplex-host name <device name>`: the name desktops see, kept in the data folder for every later start.
enum NameCommand {
    static func run(_ options: Options, name: String) -> Int32 {
        let folder = DataFolder(url: options.dataFolder)
        do {
            try folder.prepare()
            try folder.storeDeviceName(name)
        } catch { return Say.failure(error) }
        Say.line("Desktops will see this machine as \"\(name)\" from its next session.")
        return ExitCode.ok.rawValue
    }
}
