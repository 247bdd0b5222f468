ALTER TABLE chat_items DROP COLUMN item_content_tag;
ALTER TABLE chat_items DROP COLUMN item_deleted_by_group_member_id;
