-- What group items have and notes do not (chat-api.md §7.19): the quote of an earlier item of the same group, and
-- reactions. A quote keeps what the item quoted when it was sent (as the official core's `quoted_*` columns do); the
-- quoted item itself is found again by its shared message id, so a quote outlives the item it quotes.
ALTER TABLE chat_items ADD COLUMN quoted_shared_msg_id BLOB;
ALTER TABLE chat_items ADD COLUMN quoted_sent_at TEXT;
ALTER TABLE chat_items ADD COLUMN quoted_content TEXT;
ALTER TABLE chat_items ADD COLUMN quoted_sent INTEGER;
CREATE INDEX idx_chat_items_groups_shared_msg_id ON chat_items(group_id, shared_msg_id) WHERE group_id IS NOT NULL;

-- A reaction to a group item, named as the item is on the network: by the group and the item's shared message id.
-- `reaction_sent` is 1 for the user's own reactions, the only ones a local group has.
CREATE TABLE chat_item_reactions (
  chat_item_reaction_id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER NOT NULL REFERENCES groups ON DELETE CASCADE,
  shared_msg_id BLOB NOT NULL,
  reaction TEXT NOT NULL,
  reaction_sent INTEGER NOT NULL,
  reaction_ts TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_chat_item_reactions_shared_msg_id ON chat_item_reactions(group_id, shared_msg_id);
