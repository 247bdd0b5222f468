// Files, chat-api.md §4.7. Every file the embedded core has is a local one (`local`), the file of a note or of a local
// group's item: none was received, none is being sent over the network, so there is no transfer to receive or cancel.
internal import ChatModel
internal import SimplexEncoding

extension ChatController {
    /// `/_set_file_to_receive <fileId>[ approved_relays=on|off][ encrypt=on|off]`: marks a received file to be
    /// downloaded once its description arrives. The core's store update touches no row when no file was received, and
    /// its answer is `cmdOk` all the same. (Its new encryption arguments would also be written over any file of that
    /// id; a local file keeps its own, or it could not be read again.)
    func setFileToReceive(_ a: ChatCommand.SetFileToReceive) throws(ChatError) -> ChatResponse {
        _ = try requireStartedUser()
        return .cmdOk(user: nil)
    }

    /// `/fcancel <fileId>`: a file of the user that is not in the store is the store's `fileNotFound`; a local file has
    /// no transfer to cancel (`localFileNoTransfer`).
    func cancelFile(_ a: ChatCommand.CancelFile) throws(ChatError) -> ChatResponse {
        let user = try requireStartedUser()
        let rows = try store.query(
            "SELECT protocol FROM files WHERE user_id = ? AND file_id = ?", [.integer(user.userId), .integer(a.fileId)])
        guard rows.first?.first?.text != nil else { throw .errorStore(.fileNotFound(fileId: a.fileId)) }
        throw .errorStore(.localFileNoTransfer(fileId: a.fileId))
    }

    /// `/_download info <fileDescriptionURI>`: the JSON object a file description link carries in its `data`
    /// parameter, read from the link alone — no user, no network (the core's `APIStandaloneFileInfo`). A `data` that is
    /// not a JSON object leaves `fileMeta` out.
    func standaloneFileInfo(_ a: ChatCommand.APIStandaloneFileInfo) throws(ChatError) -> ChatResponse {
        let link = try FileDescriptionLink(a.url)
        var meta: CanonicalJSON?
        if let data = link.clientData, let json = try? CanonicalJSON.parse(data), case .object = json { meta = json }
        return .standaloneFileInfo(fileMeta: meta)
    }
}
