-- Items deleted by a moderator (chat-api.md §7.20, CIDeleted `moderated`; §7.23, CIContent `sndModerated`), as
-- `/_delete member item` leaves them. The moderator is a member of the item's group — in a local group the user's own
-- membership — named as the official core names it. `item_content_tag` is NULL for a message and `sndModerated` for an
-- item whose content a moderator removed (the core's `item_content_tag`; the message's tag stays in `msg_content_tag`).
-- No foreign key: SQLite cannot drop a column that has one, and a member goes only with its group, whose items go too.
ALTER TABLE chat_items ADD COLUMN item_deleted_by_group_member_id INTEGER;
ALTER TABLE chat_items ADD COLUMN item_content_tag TEXT;
