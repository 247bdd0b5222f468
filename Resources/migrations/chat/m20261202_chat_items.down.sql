DROP TABLE chat_item_versions;
DROP TABLE files;
DROP TABLE chat_items;
