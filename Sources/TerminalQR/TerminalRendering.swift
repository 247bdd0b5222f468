/// Draws a QR code in a terminal: with half blocks two module rows share a text line, so a module is one character
/// wide and half a line high — square in the usual 1:2 cells; with full blocks a module is two characters wide and a
/// whole line high, twice the size, for terminals whose fonts draw half blocks badly.
public struct TerminalRendering: Sendable {
    public enum Style: Sendable {
        /// Explicit black-on-white ANSI colours: scannable whatever the terminal's theme.
        case ansi
        /// No escape codes; dark modules as spaces, for terminals with light text on a dark background.
        case lightOnDark
        /// No escape codes; dark modules as blocks, for dark text on a light background.
        case darkOnLight
    }

    public enum Blocks: Sendable {
        /// `▀ ▄ █`: two modules per character cell.
        case half
        /// `██`: one module per two character cells.
        case full
    }

    public var style: Style
    /// Light modules around the symbol; the standard asks for 4.
    public var quietZone: Int
    public var blocks: Blocks
    /// Light modules dark and dark ones light, quiet zone included, for scanners that want it.
    public var inverted: Bool

    public init(style: Style = .ansi, quietZone: Int = 4, blocks: Blocks = .half, inverted: Bool = false) {
        self.style = style
        self.quietZone = quietZone
        self.blocks = blocks
        self.inverted = inverted
    }

    /// The character columns and text lines the drawing of a `width`-module code takes.
    public func size(width: Int) -> (columns: Int, lines: Int) {
        let modules = width + 2 * max(0, quietZone)
        switch blocks {
        case .half: return (modules, (modules + 1) / 2)
        case .full: return (2 * modules, modules)
        }
    }

    public func render(_ code: QRCode) -> String {
        let q = max(0, quietZone)
        let size = code.width + 2 * q
        let step = blocks == .half ? 2 : 1
        var out = ""
        for row in stride(from: 0, to: size, by: step) {
            if style == .ansi { out += "\u{1B}[30;47m" }
            for col in 0..<size {
                let top = dark(code, col - q, row - q)
                switch blocks {
                case .half:
                    // Past the last row there is nothing to draw: the cell's lower half stays the ground colour.
                    let bottom = row + 1 < size ? dark(code, col - q, row + 1 - q) : false
                    out += character(top: top, bottom: bottom)
                case .full:
                    let glyph = character(top: top, bottom: top)
                    out += glyph + glyph
                }
            }
            if style == .ansi { out += "\u{1B}[0m" }
            out += "\n"
        }
        return out
    }

    private func dark(_ code: QRCode, _ x: Int, _ y: Int) -> Bool { code.isDark(x: x, y: y) != inverted }

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
