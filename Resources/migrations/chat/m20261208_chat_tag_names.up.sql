-- A user's tags have distinct names and distinct emoji, as in the official core (`idx_chat_tags_user_id_chat_tag_text`,
-- `idx_chat_tags_user_id_chat_tag_emoji`): creating or renaming a tag to one the user has is refused by the index.
CREATE UNIQUE INDEX idx_chat_tags_user_id_chat_tag_text ON chat_tags(user_id, chat_tag_text);
CREATE UNIQUE INDEX idx_chat_tags_user_id_chat_tag_emoji ON chat_tags(user_id, chat_tag_emoji);
