DELETE FROM chat_items WHERE item_content IS NOT NULL;
ALTER TABLE chat_items DROP COLUMN item_content;
