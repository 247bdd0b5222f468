// The file records a remote controller may download (xrcp.md §11.3 `getFile`): not a command of the API, but the check
// the host makes before it streams a file, against the same `files` table the items' files are in.
internal import ChatModel
internal import ChatStore
internal import SimplexEncoding

extension ChatController {
    /// The recorded path of the active user's file `fileId` when it was `sent` and is stored as `fileSource` says
    /// (`handleGetFile`): `differentActiveUser` for another user, the store's `fileNotFound` for anything else. The
    /// files of this core are all the user's own (`sndStored`), so none is a received one.
    func recordedFilePath(userId: Int64, fileId: Int64, sent: Bool, fileSource: CanonicalJSON) throws(ChatError)
        -> String
    {
        let user = try requireUser()
        guard user.userId == userId else {
            throw .error(.differentActiveUser(commandUserId: userId, activeUserId: user.userId))
        }
        let notFound = ChatError.errorStore(.fileNotFound(fileId: fileId))
        let rows = try store.query(
            "SELECT file_path, file_crypto_key, file_crypto_nonce, ci_file_status FROM files WHERE user_id = ? AND file_id = ?",
            [.integer(userId), .integer(fileId)])
        guard let row = rows.first, let path = row[0].text, let status = row[3].text, status.hasPrefix("snd") == sent,
            let requested = try? CryptoFile(JSONInput(fileSource))
        else { throw notFound }
        let args: CryptoFileArgs? =
            if let key = row[1].text, let nonce = row[2].text { CryptoFileArgs(fileKey: key, fileNonce: nonce) } else { nil }
        guard requested == CryptoFile(filePath: path, cryptoArgs: args) else { throw notFound }
        return path
    }
}
