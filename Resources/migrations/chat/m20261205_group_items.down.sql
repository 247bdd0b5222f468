DROP INDEX idx_chat_item_reactions_shared_msg_id;
DROP TABLE chat_item_reactions;
DROP INDEX idx_chat_items_groups_shared_msg_id;
ALTER TABLE chat_items DROP COLUMN quoted_sent;
ALTER TABLE chat_items DROP COLUMN quoted_content;
ALTER TABLE chat_items DROP COLUMN quoted_sent_at;
ALTER TABLE chat_items DROP COLUMN quoted_shared_msg_id;
