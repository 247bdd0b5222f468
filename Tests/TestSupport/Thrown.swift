/// The error `body` throws, or nil: lets a test compare a typed error with `XCTAssertEqual`.
public func thrown<T>(_ body: () throws -> T) -> (any Error)? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
