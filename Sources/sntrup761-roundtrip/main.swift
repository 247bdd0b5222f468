// sntrup761-roundtrip [N]: N random keypairs (1000 by default), each with an encapsulation and a decapsulation that
// must agree. Its own small program so that a release build of it compiles the crypto layer alone.
import Foundation
import SimplexCrypto

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1000
let start = Date()
for i in 0..<count {
    let pair = SNTRUP761.KeyPair()
    let (ciphertext, shared) = pair.publicKey.encapsulate()
    guard pair.secretKey.decapsulate(ciphertext) == shared else {
        print("sntrup761 round trip FAILED at keypair \(i)")
        exit(1)
    }
}
print(String(format: "sntrup761 round trip: %d keypairs ok in %.1f s", count, Date().timeIntervalSince(start)))
