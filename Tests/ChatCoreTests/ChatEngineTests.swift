import XCTest

final class ChatEngineTests: XCTestCase {}
