/// Draws a QR code in a terminal with half-block characters, two module rows per text line.
public struct TerminalRendering: Sendable {
    public enum Style: Sendable {
        /// Explicit black-on-white ANSI colours: scannable whatever the terminal's theme.
        case ansi
        /// No escape codes; dark modules as spaces, for terminals with light text on a dark background.
        case lightOnDark
        /// No escape codes; dark modules as blocks, for dark text on a light background.
        case darkOnLight
    }

    public var style: Style
    /// Light modules around the symbol; the standard asks for 4, 2 is enough for phone cameras in practice.
    public var quietZone: Int

    public init(style: Style = .ansi, quietZone: Int = 2) {
        self.style = style
        self.quietZone = quietZone
    }

    public func render(_ code: QRCode) -> String {
        let q = quietZone
        let size = code.width + 2 * q
        var out = ""
        for row in stride(from: 0, to: size, by: 2) {
            if style == .ansi { out += "\u{1B}[30;47m" }
            for col in 0..<size {
                let top = code.isDark(x: col - q, y: row - q)
                let bottom = row + 1 < size ? code.isDark(x: col - q, y: row + 1 - q) : false
                out += character(top: top, bottom: bottom)
            }
            if style == .ansi { out += "\u{1B}[0m" }
            out += "\n"
        }
        return out
    }

    /// The glyph for two stacked modules: blocks draw in the foreground colour.
    private func character(top: Bool, bottom: Bool) -> String {
        // Which of the two halves are drawn with the foreground: dark ones, unless the terminal shows light text.
        let (t, b) = style == .lightOnDark ? (!top, !bottom) : (top, bottom)
        switch (t, b) {
        case (true, true): return "\u{2588}"  // █
        case (true, false): return "\u{2580}"  // ▀
        case (false, true): return "\u{2584}"  // ▄
        case (false, false): return " "
        }
    }
}

extension QRCode {
    /// A plain PBM (P1) image, `scale` pixels per module with a quiet zone: for image-based checks and export.
    public func pbm(scale: Int = 4, quietZone: Int = 4) -> String {
        let size = (width + 2 * quietZone) * scale
        var out = "P1\n\(size) \(size)\n"
        for py in 0..<size {
            var line = ""
            line.reserveCapacity(size * 2)
            for px in 0..<size {
                line += isDark(x: px / scale - quietZone, y: py / scale - quietZone) ? "1 " : "0 "
            }
            out += line + "\n"
        }
        return out
    }
}
