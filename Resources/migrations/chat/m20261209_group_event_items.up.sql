-- The items a group's events leave (chat-api.md §7.23: `chatBanner`, `sndGroupE2EEInfo`, `sndGroupFeature`,
-- `sndGroupEvent`), as the official core keeps them: `item_content_tag` names the kind and `item_content` holds the
-- content as the API writes it. Such an item has no message: its `msg_content` and `msg_content_tag` are empty, so no
-- `content=` filter and no content type takes it.
ALTER TABLE chat_items ADD COLUMN item_content TEXT;
