internal import CQREncode

/// A QR code symbol (libqrencode): a square of dark and light modules.
public struct QRCode: Sendable, Equatable {
    public enum ErrorCorrection: Sendable {
        case low, medium, quartile, high
    }

    public enum Error: Swift.Error, Equatable, Sendable {
        /// The data does not fit in the largest symbol (version 40) at this error-correction level.
        case tooLong(Int)
    }

    /// Modules per side.
    public let width: Int
    /// Row-major, `true` = dark.
    public let modules: [Bool]

    public init(width: Int, modules: [Bool]) {
        precondition(modules.count == width * width, "a QR code is square")
        self.width = width
        self.modules = modules
    }

    /// Encodes bytes in 8-bit mode. Low error correction keeps `xrcp:/` invitations (~650 bytes) as coarse as
    /// possible, which is what makes a terminal rendering scannable.
    public init(encoding text: String, correction: ErrorCorrection = .low) throws(Error) {
        let bytes = Array(text.utf8)
        let level: QRecLevel
        switch correction {
        case .low: level = QR_ECLEVEL_L
        case .medium: level = QR_ECLEVEL_M
        case .quartile: level = QR_ECLEVEL_Q
        case .high: level = QR_ECLEVEL_H
        }
        guard let code = QRcode_encodeData(Int32(bytes.count), bytes, 0, level) else { throw .tooLong(bytes.count) }
        defer { QRcode_free(code) }
        let w = Int(code.pointee.width)
        let data = UnsafeBufferPointer(start: code.pointee.data, count: w * w)
        self.init(width: w, modules: data.map { $0 & 1 == 1 })
    }

    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < width else { return false }  // the quiet zone
        return modules[y * width + x]
    }
}
