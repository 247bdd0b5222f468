-- The agent's connections, queues, ratchets and messages (smp.md §4, §5.3): one-time invitations, contact addresses
-- and duplex connections. Keys are raw bytes (Ed25519 seeds and X25519 keys of 32 bytes, X448 keys of 56); the
-- ratchet is Ratchet's own stored form.
CREATE TABLE servers (
    server_id INTEGER PRIMARY KEY,
    -- smp://<keyHash>@<hosts>[:<port>], every host.
    address TEXT NOT NULL UNIQUE
) STRICT;

CREATE TABLE connections (
    -- The agent connection id the chat layer keeps (base64url of 12 random bytes, as the official agent makes them).
    conn_id BLOB NOT NULL PRIMARY KEY,
    mode TEXT NOT NULL CHECK (mode IN ('invitation', 'contact')),
    status TEXT NOT NULL CHECK (status IN ('new', 'joined', 'confirmed', 'duplex', 'deleted')),
    handshake_step TEXT NOT NULL,
    agent_version INTEGER NOT NULL,
    -- The initiator's X3DH private keys, from the link until the joiner's confirmation arrives (X448, 56 bytes).
    x3dh_key_1 BLOB,
    x3dh_key_2 BLOB,
    ratchet BLOB,
    -- One counter for sent and received messages: the ids the chat layer sees.
    last_internal_id INTEGER NOT NULL DEFAULT 0,
    -- The sender message id of the last message sent and the SHA-256 of its plaintext (the next one's prevMsgHash).
    last_snd_id INTEGER NOT NULL DEFAULT 0,
    last_snd_hash BLOB NOT NULL DEFAULT x'',
    -- The peer's last sender message id and the SHA-256 of its plaintext, for the integrity check.
    last_external_snd_id INTEGER NOT NULL DEFAULT 0,
    last_rcv_hash BLOB NOT NULL DEFAULT x'',
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE rcv_queues (
    rcv_queue_id INTEGER PRIMARY KEY,
    conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
    server_id INTEGER NOT NULL REFERENCES servers ON DELETE RESTRICT,
    rcv_id BLOB NOT NULL,
    snd_id BLOB NOT NULL,
    queue_mode TEXT NOT NULL CHECK (queue_mode IN ('messaging', 'contact')),
    rcv_auth_key BLOB NOT NULL,
    rcv_dh_key BLOB NOT NULL,
    -- X25519(server's DH key from IDS, rcv_dh_key): opens MSG bodies.
    rcv_dh_secret BLOB NOT NULL,
    e2e_dh_key BLOB NOT NULL,
    -- The per-queue secret with the sender, known from its first confirmation (contact addresses never keep one).
    e2e_dh_secret BLOB,
    smp_client_version INTEGER,
    status TEXT NOT NULL CHECK (status IN ('new', 'confirmed', 'secured', 'active', 'disabled')),
    subscribe_mode TEXT NOT NULL CHECK (subscribe_mode IN ('subscribe', 'onlyCreate')),
    -- The server's id of the message delivered and not ACKed yet: the next SUB delivers it again.
    unacked_msg_id BLOB,
    UNIQUE (server_id, rcv_id)
) STRICT;
CREATE INDEX idx_rcv_queues_conn ON rcv_queues (conn_id);

CREATE TABLE snd_queues (
    snd_queue_id INTEGER PRIMARY KEY,
    conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
    server_id INTEGER NOT NULL REFERENCES servers ON DELETE RESTRICT,
    snd_id BLOB NOT NULL,
    queue_mode TEXT NOT NULL CHECK (queue_mode IN ('messaging', 'contact')),
    -- Absent for a contact address, which nobody secures.
    snd_auth_key BLOB,
    e2e_key BLOB NOT NULL,
    e2e_public_key BLOB NOT NULL,
    e2e_dh_secret BLOB NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('new', 'confirmed', 'secured', 'active', 'disabled')),
    smp_client_version INTEGER NOT NULL,
    UNIQUE (server_id, snd_id)
) STRICT;
CREATE INDEX idx_snd_queues_conn ON snd_queues (conn_id);

-- Skipped message keys (smp.md §5.6), filed by header key and number; the ratchet bounds how many one step adds.
CREATE TABLE skipped_message_keys (
    conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
    header_key BLOB NOT NULL,
    msg_n INTEGER NOT NULL,
    msg_key BLOB NOT NULL,
    PRIMARY KEY (conn_id, header_key, msg_n)
) STRICT;

CREATE TABLE snd_messages (
    conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
    internal_id INTEGER NOT NULL,
    snd_id INTEGER NOT NULL,
    snd_queue_id INTEGER NOT NULL REFERENCES snd_queues ON DELETE CASCADE,
    kind TEXT NOT NULL,
    -- SHA-256 of the agent message plaintext: the next message's prevMsgHash and what a receipt must match.
    hash BLOB NOT NULL,
    notification INTEGER NOT NULL,
    -- What delivery seals: the agent message plaintext (unpadded) and the ratchet's message key with its encrypted
    -- header, both dropped once the server accepted the message.
    agent_message BLOB,
    encrypt_key BLOB,
    -- The clear ratchet parameters of a joiner's confirmation envelope, as their wire bytes.
    ratchet_params BLOB,
    delivery TEXT NOT NULL CHECK (delivery IN ('pending', 'sent', 'failed')),
    delivery_error TEXT,
    retries INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    receipt_status TEXT CHECK (receipt_status IN ('ok', 'badMsgHash')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (conn_id, internal_id),
    UNIQUE (conn_id, snd_id)
) STRICT;
CREATE INDEX idx_snd_messages_pending ON snd_messages (snd_queue_id, internal_id) WHERE delivery = 'pending';

CREATE TABLE rcv_messages (
    conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
    internal_id INTEGER NOT NULL,
    rcv_queue_id INTEGER NOT NULL REFERENCES rcv_queues ON DELETE CASCADE,
    kind TEXT NOT NULL,
    external_snd_id INTEGER NOT NULL,
    server_msg_id BLOB NOT NULL,
    server_ts INTEGER NOT NULL,
    -- SHA-256 of the agent message plaintext, for receipts.
    hash BLOB NOT NULL,
    integrity TEXT NOT NULL,
    ack TEXT NOT NULL CHECK (ack IN ('pending', 'acknowledged', 'serverAcked')),
    -- How many times the server delivered it: a duplicate of a message the chat layer has not acknowledged is given
    -- to it again, a bounded number of times.
    receive_attempts INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (conn_id, internal_id)
) STRICT;

-- SHA-256 of every received ratchet ciphertext, to recognise a message the server delivers again; kept apart from
-- rcv_messages so that messages can be dropped after their ACK while their hashes still catch duplicates.
CREATE TABLE rcv_ciphertext_hashes (
    conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
    hash BLOB NOT NULL,
    -- The message it was stored as, which may be gone since.
    internal_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (conn_id, hash)
) STRICT;
CREATE INDEX idx_rcv_ciphertext_hashes_created ON rcv_ciphertext_hashes (created_at);

-- Requests that arrived on a contact address, until the owner accepts or rejects them (smp.md §4.6).
CREATE TABLE address_requests (
    invitation_id BLOB NOT NULL PRIMARY KEY,
    conn_id BLOB NOT NULL REFERENCES connections ON DELETE CASCADE,
    -- The requester's invitation link as it came, and its conn info (the chat layer's x.contact).
    invitation_link TEXT NOT NULL,
    conn_info BLOB NOT NULL,
    -- Set on accept: the owner's conn info and the connection that joins the requester's link.
    accepted INTEGER NOT NULL DEFAULT 0,
    own_conn_info BLOB,
    joined_conn_id BLOB REFERENCES connections ON DELETE SET NULL,
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX idx_address_requests_conn ON address_requests (conn_id);
