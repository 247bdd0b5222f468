internal import SimplexCrypto
internal import SimplexEncoding
internal import XRCP

/// Receives one attachment after a body (xrcp.md §10.2), in whatever pieces HTTP/2 delivers: the 5-byte header, the
/// ciphertext decrypted as it streams, then the tag and the SHA-512 of the plaintext checked at the end.
final class AttachmentReceiver {
    enum Progress {
        /// Plaintext decrypted from this piece (possibly empty); more is expected.
        case data([UInt8])
        /// The last plaintext, and the file is whole and checked.
        case done([UInt8])
        case failed(RemoteProtocolError)
    }

    private let size: UInt32
    private let digest: [UInt8]
    private let opener: SecretBoxStream
    private let hash = Digest.SHA512Stream()
    private var header: [UInt8] = []
    private var remaining: UInt64
    private var tag: [UInt8] = []

    init(size: UInt32, digest: [UInt8], key: MessageKey) {
        self.size = size
        self.digest = digest
        opener = SecretBoxStream(.open, key: key.key, nonce: key.nonce)
        remaining = UInt64(size)
    }

    func feed(_ bytes: [UInt8]) -> Progress {
        var data = bytes[...]
        if header.count < 5 {
            let n = min(5 - header.count, data.count)
            header += data.prefix(n)
            data = data.dropFirst(n)
            guard header.count == 5 else { return .data([]) }
            do { try Attachment.checkHeader(header, fileSize: UInt64(size)) } catch { return .failed(error) }
        }
        let n = Int(min(UInt64(data.count), remaining))
        var plain: [UInt8] = []
        if n > 0 {
            plain = opener.update(Array(data.prefix(n)))
            hash.update(plain)
            remaining -= UInt64(n)
        }
        tag += data.dropFirst(n)
        guard remaining == 0, tag.count >= SecretBox.tagSize else { return .data(plain) }
        guard tag.count == SecretBox.tagSize else { return .failed(.fileSize) }
        do { try opener.verify(tag: tag) } catch { return .failed(.remoteControl(.decrypt)) }
        guard constantTimeEqual(hash.finalize(), digest) else { return .failed(.fileDigest) }
        return .done(plain)
    }
}
