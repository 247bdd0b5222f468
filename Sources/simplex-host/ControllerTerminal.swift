import Foundation
import TerminalQR

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal side of the controller: the invitation's QR code in the form asked for, and a progress bar.
enum ControllerTerminal {
    /// The size of the terminal standard output is on, or nil when it is not a terminal.
    static func size() -> (columns: Int, lines: Int)? {
        var w = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &w) == 0, w.ws_col > 0, w.ws_row > 0 else { return nil }
        return (Int(w.ws_col), Int(w.ws_row))
    }

    /// What to print for an invitation: the QR code drawn (when it fits), written to a file, or left out with the
    /// reason, then the link. `size` is the terminal's, nil when unknown (the code is drawn then).
    static func present(
        _ invitation: String, options: ControllerOptions, size: (columns: Int, lines: Int)?
    ) -> String {
        let code: QRCode
        do { code = try QRCode(encoding: invitation) } catch {
            return "The invitation is too long for a QR code (\(invitation.utf8.count) bytes); paste the link:\n\(invitation)\n"
        }
        let link = "\(invitation)\n"
        switch options.qr {
        case .text:
            return "Paste this link into SimpleX on the host:\n" + link
        case .png(let path), .svg(let path):
            let bytes: [UInt8]
            if case .png = options.qr {
                bytes = code.png(inverted: options.qrInvert)
            } else {
                bytes = Array(code.svg(inverted: options.qrInvert).utf8)
            }
            do { try Data(bytes).write(to: URL(fileURLWithPath: path)) } catch {
                return "Could not write the QR code to \(path): \(error)\nPaste this link into SimpleX on the host:\n" + link
            }
            return "The QR code is in \(path): open it and scan it with SimpleX on the host, or paste the link:\n" + link
        case .terminal:
            let rendering = TerminalRendering(
                style: .ansi, quietZone: 4, blocks: options.qrFullBlocks ? .full : .half, inverted: options.qrInvert)
            let needed = rendering.size(width: code.width)
            if let size {
                let linkLines = (invitation.utf8.count + size.columns - 1) / size.columns
                // The heading, the code, the link and the prompt line must all be on screen at once.
                let lines = needed.lines + linkLines + 2
                guard needed.columns <= size.columns, lines <= size.lines else {
                    return """
                        The QR code needs \(needed.columns)×\(lines) characters (with the link and the prompt) and this \
                        terminal is \(size.columns)×\(size.lines): enlarge it or make the font smaller, or run again \
                        with --qr png:FILE or --qr svg:FILE for an image file, or --qr text for the link alone. \
                        The link:

                        """ + link
                }
            }
            return "Scan with SimpleX on the host, or paste the link:\n" + rendering.render(code) + link
        }
    }
}

/// A one-line progress bar on standard error, redrawn when the whole percent changes.
final class ProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private var shown = -1

    func update(_ done: UInt64, _ total: UInt64) {
        let percent = total == 0 ? 100 : Int(min(100, done * 100 / total))
        let line: String? = lock.withLock {
            guard percent != shown else { return nil }
            shown = percent
            let filled = percent * 30 / 100
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: 30 - filled)
            let mb = { (n: UInt64) in String(format: "%.1f", Double(n) / 1_000_000) }
            return "\r[\(bar)] \(percent)% \(mb(done)) / \(mb(total)) MB"
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Ends the bar's line, if one was drawn.
    func finish() {
        let drawn = lock.withLock { shown >= 0 }
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
