// Compiled into every fuzz target beside the target's own file (scripts/fuzz): the input as bytes, and the
// checks that turn a broken invariant into a crash libFuzzer records.
import SimplexEncoding

func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The input as text the way a caller hands it over: invalid UTF-8 repaired, as `String(decoding:)` does.
func fuzzText(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

/// A broken invariant is a bug even when nothing else crashed: libFuzzer keeps the input that showed it.
func invariant(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

/// The first byte picks a decoder (or a version), the rest is its input.
func split(_ bytes: [UInt8]) -> (selector: UInt8, rest: [UInt8])? {
    guard let first = bytes.first else { return nil }
    return (first, Array(bytes.dropFirst()))
}

/// For what decodes: its encoding decodes again, and that value encodes to the same bytes. Not decode ∘ encode =
/// identity: some layouts drop what their version cannot carry, as the reference's do (a queue address below SMP
/// client version 15 writes no queue mode, yet one trailing its bytes is read), so only the encoding is a fixed point.
func checkRoundTrip<T: BinaryCodable & Equatable>(_ type: T.Type, _ bytes: [UInt8]) {
    guard let value = try? T(decoding: bytes) else { return }
    guard let encoded = try? value.encoded() else { return }
    let again = try? T(decoding: encoded)
    let reencoded = again.flatMap { try? $0.encoded() }
    invariant(
        reencoded == encoded,
        "\(T.self): \(value) encodes to \(encoded), which decodes to \(String(describing: again)) encoding to "
            + "\(String(describing: reencoded))")
}

/// A key or context the harness builds from constants; failing to build one is a broken harness, not an input.
func fixture<T>(_ what: String, _ make: () throws -> T) -> T {
    do { return try make() } catch { fatalError("fuzz fixture \(what): \(error)") }
}
