-- Chat items (chat-api.md §7.19–7.20), their files (§7.25) and edit history (§7.26, ChatItemVersion), shared by every
-- chat that keeps items here: note folders now (`note_folder_id`), local groups later (`group_id`). Exactly one of the
-- two is set. `group_id` has no foreign key yet: SQLite refuses every write to a table whose foreign key names a table
-- that does not exist, and `groups` comes with its own migration — deleting a group deletes its items explicitly, as
-- the official core's `deleteGroupCIs` does. Names follow the official core's schema.
--
-- `item_ts` is nanoseconds since the epoch, not ISO-8601 text like the other times: pages are ordered by
-- (item_ts, chat_item_id), and text with a variable number of fraction digits does not sort as time does.
CREATE TABLE chat_items (
  chat_item_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  note_folder_id INTEGER REFERENCES note_folders ON DELETE CASCADE,
  group_id INTEGER,
  -- The sending member of a received group item.
  group_member_id INTEGER,
  -- 1: sent by the user (localSnd, groupSnd); 0: received.
  item_sent INTEGER NOT NULL,
  item_ts INTEGER NOT NULL,
  -- The MsgContent as the core writes it, and its tag (for `content=` and `/_get content types`).
  msg_content TEXT NOT NULL,
  msg_content_tag TEXT NOT NULL,
  item_text TEXT NOT NULL,
  -- snd_new, rcv_new, rcv_read (the core's text encoding of CIStatus).
  item_status TEXT NOT NULL,
  shared_msg_id BLOB,
  item_edited INTEGER NOT NULL DEFAULT 0,
  item_live INTEGER,
  item_deleted INTEGER NOT NULL DEFAULT 0,
  item_deleted_ts TEXT,
  user_mention INTEGER NOT NULL DEFAULT 0,
  timed_ttl INTEGER,
  timed_delete_at TEXT,
  -- CIForwardedFrom: unknown, contact or group (§7.20).
  fwd_from_tag TEXT,
  fwd_from_chat_name TEXT,
  fwd_from_msg_dir INTEGER,
  fwd_from_contact_id INTEGER,
  fwd_from_group_id INTEGER,
  fwd_from_chat_item_id INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- Pages, previews and `around=` anchors: (chat, item_ts) in order, with the rowid as the tie-break, index only.
CREATE INDEX idx_chat_items_notes_item_ts ON chat_items(user_id, note_folder_id, item_ts) WHERE note_folder_id IS NOT NULL;
CREATE INDEX idx_chat_items_groups_item_ts ON chat_items(user_id, group_id, item_ts) WHERE group_id IS NOT NULL;
-- `content=` pages and `/_get content types`.
CREATE INDEX idx_chat_items_notes_msg_content_tag
  ON chat_items(user_id, note_folder_id, msg_content_tag, item_ts) WHERE note_folder_id IS NOT NULL;
CREATE INDEX idx_chat_items_groups_msg_content_tag
  ON chat_items(user_id, group_id, msg_content_tag, item_ts) WHERE group_id IS NOT NULL;
-- Unread counts, the first unread item, `/_read chat`.
CREATE INDEX idx_chat_items_notes_item_status
  ON chat_items(user_id, note_folder_id, item_status, item_ts) WHERE note_folder_id IS NOT NULL;
CREATE INDEX idx_chat_items_groups_item_status
  ON chat_items(user_id, group_id, item_status, item_ts) WHERE group_id IS NOT NULL;

CREATE TABLE files (
  file_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  note_folder_id INTEGER REFERENCES note_folders ON DELETE CASCADE,
  group_id INTEGER,
  chat_item_id INTEGER REFERENCES chat_items ON DELETE CASCADE,
  file_name TEXT NOT NULL,
  -- Relative to the files folder, as the client gave it (CryptoFile.filePath).
  file_path TEXT,
  file_size INTEGER NOT NULL,
  file_crypto_key TEXT,
  file_crypto_nonce TEXT,
  -- The CIFileStatus tag, e.g. sndStored.
  ci_file_status TEXT NOT NULL,
  -- SMP, XFTP or LOCAL.
  protocol TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_files_chat_item_id ON files(chat_item_id);
CREATE INDEX idx_files_user_id ON files(user_id);
CREATE INDEX idx_files_note_folder_id ON files(note_folder_id);

CREATE TABLE chat_item_versions (
  chat_item_version_id INTEGER PRIMARY KEY AUTOINCREMENT,
  chat_item_id INTEGER NOT NULL REFERENCES chat_items ON DELETE CASCADE,
  msg_content TEXT NOT NULL,
  item_version_ts TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_chat_item_versions_chat_item_id ON chat_item_versions(chat_item_id);
