DROP INDEX idx_chat_tags_chats_chat_tag_id;
DROP INDEX idx_chat_tags_chats_group;
DROP INDEX idx_chat_tags_chats_contact;
DROP TABLE chat_tags_chats;
DROP INDEX idx_chat_tags_user_id;
DROP TABLE chat_tags;
