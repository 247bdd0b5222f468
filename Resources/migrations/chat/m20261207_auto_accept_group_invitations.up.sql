-- Whether the user joins the groups contacts invite them to without being asked (`/_set accept group invitations`,
-- chat-api.md §4.19): the official core's `users.auto_accept_group_invitations`. Nothing arrives without a network, so
-- the setting is kept for when invitations can.
ALTER TABLE users ADD COLUMN auto_accept_group_invitations INTEGER NOT NULL DEFAULT 0;
