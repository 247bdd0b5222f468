internal import SimplexEncoding

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A `UTCTime` of the core's JSON (chat-api.md §2.4): ISO-8601 in UTC with `Z`, fractional seconds with trailing zeros
/// dropped (and no point when they are all zero), e.g. `2025-06-01T09:30:12.123456Z`, `2025-06-01T09:30:12Z`.
/// Stored in the database in the same text form.
public struct UTCTime: Hashable, Comparable, Sendable, CustomStringConvertible, JSONWritable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public let seconds: Int64
    /// 0 ..< 1_000_000_000.
    public let nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        let carry = Int64(nanoseconds) / 1_000_000_000
        var s = seconds + carry
        var ns = Int64(nanoseconds) % 1_000_000_000
        if ns < 0 {
            ns += 1_000_000_000
            s -= 1
        }
        self.seconds = s
        self.nanoseconds = Int32(ns)
    }

    /// The system clock, to the nanosecond.
    public static func now() -> UTCTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UTCTime(seconds: Int64(ts.tv_sec), nanoseconds: Int32(ts.tv_nsec))
    }

    public func adding(seconds delta: Int64) -> UTCTime { UTCTime(seconds: seconds + delta, nanoseconds: nanoseconds) }

    public static func < (a: UTCTime, b: UTCTime) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }

    public var description: String { iso8601 }

    /// A string in trees (not a fragment): times are compared and read as strings there.
    public var json: JSONValue { .string(iso8601) }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
    public var iso8601: String {
        // Digits straight into the string's storage: items carry three times each, chat list rows six, and pages and
        // lists are long.
        let text = String(unsafeUninitializedCapacity: 30) { buffer in fourDigitYear(into: buffer) ?? 0 }
        return text.isEmpty ? anyYear : text
    }

    public func write(to w: inout JSONWriter) {
        // An item's times are mostly one time three times over: written once, then copied.
        if w.repeatTime(self) { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 30) { buffer in
            if let count = fourDigitYear(into: buffer) {
                w.time(self, UnsafeBufferPointer(rebasing: buffer[..<count]))
            } else {
                w.string(anyYear)
            }
        }
    }

    private var anyYear: String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let (y, m, d) = CivilCalendar.date(daysSince1970: days)
        return Self.iso8601(y, m, d, seconds - days * 86400, nanoseconds)
    }

    /// The text into `buffer` (30 bytes) when the year has four digits, with its length; nil for other years.
    private func fourDigitYear(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let (y, m, d) = CivilCalendar.date(daysSince1970: days)
        guard (0...9999).contains(y) else { return nil }
        var fraction = nanoseconds
        var fractionDigits = 9
        while fraction > 0 && fraction % 10 == 0 {
            fraction /= 10
            fractionDigits -= 1
        }
        var i = 0
        func put(_ n: Int64, _ width: Int) {
            var v = n
            for k in stride(from: width - 1, through: 0, by: -1) {
                buffer[i + k] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
            i += width
        }
        func put(_ c: Unicode.Scalar) {
            buffer[i] = UInt8(ascii: c)
            i += 1
        }
        put(y, 4)
        put("-")
        put(m, 2)
        put("-")
        put(d, 2)
        put("T")
        put(secondOfDay / 3600, 2)
        put(":")
        put(secondOfDay / 60 % 60, 2)
        put(":")
        put(secondOfDay % 60, 2)
        if fraction > 0 {
            put(".")
            put(Int64(fraction), fractionDigits)
        }
        put("Z")
        return i
    }

    /// Any year, with as many digits as it takes.
    private static func iso8601(_ y: Int64, _ m: Int64, _ d: Int64, _ secondOfDay: Int64, _ nanoseconds: Int32) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(30)
        func digits(_ n: Int64, _ width: Int) {
            let text = String(n).utf8
            if text.count < width { out += repeatElement(UInt8(ascii: "0"), count: width - text.count) }
            out += text
        }
        digits(y, 4)
        out.append(UInt8(ascii: "-"))
        digits(m, 2)
        out.append(UInt8(ascii: "-"))
        digits(d, 2)
        out.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        if nanoseconds > 0 {
            out.append(UInt8(ascii: "."))
            digits(Int64(nanoseconds), 9)
            while out.last == UInt8(ascii: "0") { out.removeLast() }
        }
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `YYYYMMDD_HHMMSS`, as the apps name media files.
    var compactDateTime: String {
        let text = iso8601
        let date = text.prefix(10).filter { $0 != "-" }
        let time = text.dropFirst(11).prefix(8).filter { $0 != ":" }
        return date + "_" + time
    }

    /// Parses ISO-8601 as clients send it: `YYYY-MM-DD[T| ]HH:MM[:SS[.fraction]]` then `Z`, `±HH:MM`, `±HHMM` or nothing
    /// (UTC). Returns nil for anything else.
    public init?(iso8601 text: String) {
        // Over the contiguous bytes: a chat list reads several times for each of thousands of rows.
        var text = text
        guard let time = text.withUTF8({ Self.parse(ISO8601Cursor(bytes: $0)) }) else { return nil }
        self = time
    }

    private static func parse(_ start: ISO8601Cursor) -> UTCTime? {
        var cursor = start
        guard let y = cursor.digits(4), cursor.take(45), let mo = cursor.digits(2), cursor.take(45),
            let d = cursor.digits(2)
        else { return nil }
        guard cursor.take(84) || cursor.take(32) || cursor.take(116), let h = cursor.digits(2), cursor.take(58),
            let mi = cursor.digits(2)
        else { return nil }
        var s: Int64 = 0
        var ns: Int64 = 0
        if cursor.take(58) {
            guard let sec = cursor.digits(2) else { return nil }
            s = sec
            if cursor.take(46) {
                var scale: Int64 = 100_000_000
                var count = 0
                while let c = cursor.first, (48...57).contains(c) {
                    cursor.index += 1
                    ns += Int64(c - 48) * scale
                    scale /= 10
                    count += 1
                }
                guard count > 0 else { return nil }
            }
        }
        var offset: Int64 = 0
        if cursor.take(90) || cursor.take(122) {
        } else if let sign = cursor.first, sign == 43 || sign == 45 {
            cursor.index += 1
            guard let oh = cursor.digits(2) else { return nil }
            _ = cursor.take(58)
            guard let om = cursor.digits(2) else { return nil }
            offset = (sign == 43 ? 1 : -1) * (oh * 3600 + om * 60)
        }
        guard cursor.isAtEnd, (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        let days = CivilCalendar.daysSince1970(year: y, month: mo, day: d)
        return UTCTime(seconds: days * 86400 + h * 3600 + mi * 60 + s - offset, nanoseconds: Int32(ns))
    }
}

/// The parser's position in the bytes of an ISO-8601 text.
private struct ISO8601Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var first: UInt8? { index < bytes.count ? bytes[index] : nil }
    var isAtEnd: Bool { index >= bytes.count }

    /// Consumes `c` when it comes next.
    mutating func take(_ c: UInt8) -> Bool {
        guard first == c else { return false }
        index += 1
        return true
    }

    /// Exactly `n` decimal digits.
    mutating func digits(_ n: Int) -> Int64? {
        guard bytes.count - index >= n else { return nil }
        var v: Int64 = 0
        for _ in 0..<n {
            let c = bytes[index]
            index += 1
            guard (48...57).contains(c) else { return nil }
            v = v * 10 + Int64(c - 48)
        }
        return v
    }
}
