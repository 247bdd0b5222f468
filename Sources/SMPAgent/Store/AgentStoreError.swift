public import ChatStore

/// Why an agent store operation failed; the operation changed nothing.
public enum AgentStoreError: Error, Equatable, Sendable {
    /// No connection with this id (`SEConnNotFound`).
    case connectionNotFound(AgentConnId)
    /// A connection with this id exists already (`SEConnDuplicate`).
    case connectionExists(AgentConnId)
    /// No queue with this id, or none of this connection's.
    case queueNotFound(String)
    /// A queue with this server and id exists already: the same link was joined twice (`SESndQueueExists`).
    case queueExists(String)
    /// No sent message with this sender id (`SEMsgNotFound`).
    case messageNotFound(String)
    /// No request with this invitation id on the address (`SEInvitationNotFound`).
    case requestNotFound(String)
    /// The connection is not in a state that allows the operation (`SEBadConnType`).
    case badConnectionState(String)
    /// A stored value does not decode: a key of the wrong size, an unknown enum tag, an unparsable server.
    case invalidStoredValue(String)
    /// SQLite refused or failed.
    case sqlite(SQLiteError)
    /// The agent database's schema could not be brought to this version's.
    case migration(MigrationError)
    /// The caller's own step inside an operation failed (it encrypts or decrypts between the store's reads and
    /// writes); the operation was rolled back.
    case step(String)
}
