/// Image forms of a QR code for when the terminal is too small, or for another screen: PNG and SVG files that any
/// viewer shows and any scanner reads. Both keep the quiet zone; `inverted` swaps dark and light for scanners that
/// want light modules on a dark ground.
extension QRCode {
    /// A greyscale PNG, `scale` pixels per module. The image data is stored uncompressed (deflate's stored blocks):
    /// a few hundred kilobytes at most, and no compressor needed.
    public func png(scale: Int = 8, quietZone: Int = 4, inverted: Bool = false) -> [UInt8] {
        let scale = max(1, scale)
        let size = (width + 2 * max(0, quietZone)) * scale
        var raw: [UInt8] = []
        raw.reserveCapacity((size + 1) * size)
        for py in 0..<size {
            raw.append(0)  // filter: none
            for px in 0..<size {
                let dark = isDark(x: px / scale - quietZone, y: py / scale - quietZone) != inverted
                raw.append(dark ? 0 : 255)
            }
        }
        var header: [UInt8] = []
        header += Self.bigEndian(UInt32(size)) + Self.bigEndian(UInt32(size))
        header += [8, 0, 0, 0, 0]  // 8-bit greyscale, deflate, adaptive filtering, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Self.chunk("IHDR", header)
            + Self.chunk("IDAT", Self.zlibStored(raw)) + Self.chunk("IEND", [])
    }

    /// An SVG drawing, `scale` pixels per module, dark modules as one path. Coordinates are in pixels, without a
    /// `viewBox`, so that simple renderers draw it at the size it says.
    public func svg(scale: Int = 8, quietZone: Int = 4, inverted: Bool = false) -> String {
        let q = max(0, quietZone)
        let s = max(1, scale)
        let size = (width + 2 * q) * s
        let (ground, ink) = inverted ? ("#000000", "#ffffff") : ("#ffffff", "#000000")
        var path = ""
        for y in 0..<width {
            var x = 0
            while x < width {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < width && isDark(x: x, y: y) { x += 1 }
                path += "M\((start + q) * s) \((y + q) * s)h\((x - start) * s)v\(s)h-\((x - start) * s)z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(size)" height="\(size)" shape-rendering="crispEdges">
            <rect width="\(size)" height="\(size)" fill="\(ground)"/>
            <path fill="\(ink)" d="\(path)"/>
            </svg>

            """
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    /// A zlib stream of stored deflate blocks (RFC 1950, RFC 1951 §3.2.4).
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let last: UInt8 = offset + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<offset + n]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
