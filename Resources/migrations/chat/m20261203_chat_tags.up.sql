-- Chat tags (chat-api.md §4.6, §7.26): the user's tags in their order, and which chats carry them. A tag marks a
-- contact or a group (exactly one of the two).
CREATE TABLE chat_tags (
  chat_tag_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  chat_tag_text TEXT NOT NULL,
  chat_tag_emoji TEXT,
  tag_order INTEGER NOT NULL
);
CREATE INDEX idx_chat_tags_user_id ON chat_tags(user_id);

CREATE TABLE chat_tags_chats (
  contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
  group_id INTEGER REFERENCES groups ON DELETE CASCADE,
  chat_tag_id INTEGER NOT NULL REFERENCES chat_tags ON DELETE CASCADE,
  CHECK ((contact_id IS NULL) != (group_id IS NULL))
);
CREATE UNIQUE INDEX idx_chat_tags_chats_contact ON chat_tags_chats(contact_id, chat_tag_id);
CREATE UNIQUE INDEX idx_chat_tags_chats_group ON chat_tags_chats(group_id, chat_tag_id);
CREATE INDEX idx_chat_tags_chats_chat_tag_id ON chat_tags_chats(chat_tag_id);
