-- Contacts and their connections (chat-api.md §7.6–7.9, §7.33): the columns a contact needs beyond the user's own
-- row, the chat side of agent connections (a pending connection is a contact connection without a contact yet), the
-- user's addresses with their settings, and the requests received through them. Names follow the official core's
-- schema. Times are ISO-8601 text as the API writes them (§2.4).
ALTER TABLE contacts ADD COLUMN contact_used INTEGER NOT NULL DEFAULT 0;
-- ContactStatus text: active, deleted, deletedByUser.
ALTER TABLE contacts ADD COLUMN contact_status TEXT NOT NULL DEFAULT 'active';
-- ChatSettings (§7.15): MsgFilter text; send_rcpts (NULL = the user's default) is in m20261201_chat_users.
ALTER TABLE contacts ADD COLUMN enable_ntfs TEXT NOT NULL DEFAULT 'all';
ALTER TABLE contacts ADD COLUMN favorite INTEGER NOT NULL DEFAULT 0;
ALTER TABLE contacts ADD COLUMN unread_chat INTEGER NOT NULL DEFAULT 0;
-- JSON Preferences: the user's own for this contact. With the user's and the contact's profile preferences it is
-- what the merged preferences are made from; merged_preferences keeps what was made (ContactUserPreferences).
ALTER TABLE contacts ADD COLUMN user_preferences TEXT NOT NULL DEFAULT '{}';
ALTER TABLE contacts ADD COLUMN merged_preferences TEXT;
ALTER TABLE contacts ADD COLUMN chat_ts TEXT;
ALTER TABLE contacts ADD COLUMN contact_request_id INTEGER;
-- A plain id (no REFERENCES) so that the down migration can drop it.
ALTER TABLE contacts ADD COLUMN contact_group_member_id INTEGER;
ALTER TABLE contacts ADD COLUMN contact_grp_inv_sent INTEGER NOT NULL DEFAULT 0;
-- Seconds; NULL = the user's setting.
ALTER TABLE contacts ADD COLUMN chat_item_ttl INTEGER;
ALTER TABLE contacts ADD COLUMN ui_themes TEXT;
ALTER TABLE contacts ADD COLUMN chat_deleted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE contacts ADD COLUMN custom_data TEXT;
-- PreparedContact: the link to connect to, its kind ('inv' or 'con') and the ids of the messages shown with it.
ALTER TABLE contacts ADD COLUMN conn_full_link_to_connect TEXT;
ALTER TABLE contacts ADD COLUMN conn_short_link_to_connect TEXT;
ALTER TABLE contacts ADD COLUMN ui_conn_link_type TEXT;
ALTER TABLE contacts ADD COLUMN welcome_shared_msg_id BLOB;
ALTER TABLE contacts ADD COLUMN request_shared_msg_id BLOB;
CREATE INDEX idx_contacts_contact_group_member_id ON contacts(contact_group_member_id);

-- The user's contact addresses (the user's own address has no group_id; group links come later).
CREATE TABLE user_contact_links (
  user_contact_link_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  conn_req_contact TEXT NOT NULL,
  short_link_contact TEXT,
  short_link_data_set INTEGER NOT NULL DEFAULT 0,
  short_link_large_data_set INTEGER NOT NULL DEFAULT 0,
  group_id INTEGER REFERENCES groups ON DELETE CASCADE,
  -- AddressSettings: auto_accept NULL/0 = each request waits for the user; auto_reply_msg_content is JSON MsgContent.
  business_address INTEGER NOT NULL DEFAULT 0,
  auto_accept INTEGER NOT NULL DEFAULT 0,
  auto_accept_incognito INTEGER NOT NULL DEFAULT 0,
  auto_reply_msg_content TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_user_contact_links_group_id ON user_contact_links(group_id);
CREATE UNIQUE INDEX idx_user_contact_links_user_address ON user_contact_links(user_id) WHERE group_id IS NULL;

CREATE TABLE connections (
  connection_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  agent_conn_id BLOB NOT NULL UNIQUE,
  conn_level INTEGER NOT NULL DEFAULT 0,
  via_contact INTEGER REFERENCES contacts (contact_id) ON DELETE SET NULL,
  via_user_contact_link INTEGER REFERENCES user_contact_links (user_contact_link_id) ON DELETE SET NULL,
  -- Set when the user joined through someone's address (PendingContactConnection.viaContactUri).
  via_contact_uri_hash BLOB,
  via_group_link INTEGER NOT NULL DEFAULT 0,
  group_link_id BLOB,
  xcontact_id BLOB,
  custom_user_profile_id INTEGER REFERENCES contact_profiles ON DELETE SET NULL,
  -- ConnType text: contact, member, user_contact; the owner is in the column of that kind.
  conn_type TEXT NOT NULL,
  -- ConnStatus as text (new, prepared, joined, requested, accepted, snd-ready, ready, deleted, failed).
  conn_status TEXT NOT NULL,
  conn_error TEXT,
  contact_conn_initiated INTEGER NOT NULL DEFAULT 0,
  local_alias TEXT NOT NULL DEFAULT '',
  contact_id INTEGER REFERENCES contacts ON DELETE CASCADE,
  group_member_id INTEGER REFERENCES group_members ON DELETE CASCADE,
  user_contact_link_id INTEGER REFERENCES user_contact_links ON DELETE CASCADE,
  -- The user's own invitation link of a pending connection (CreatedConnLink).
  conn_req_inv TEXT,
  short_link_inv TEXT,
  conn_chat_version INTEGER NOT NULL DEFAULT 1,
  peer_chat_min_version INTEGER NOT NULL DEFAULT 1,
  peer_chat_max_version INTEGER NOT NULL DEFAULT 1,
  -- The verified security code and when it was verified (Connection.connectionCode).
  security_code TEXT,
  security_code_verified_at TEXT,
  pq_support INTEGER NOT NULL DEFAULT 0,
  pq_encryption INTEGER NOT NULL DEFAULT 0,
  pq_snd_enabled INTEGER,
  pq_rcv_enabled INTEGER,
  auth_err_counter INTEGER NOT NULL DEFAULT 0,
  quota_err_counter INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_connections_user_id ON connections(user_id);
CREATE INDEX idx_connections_contact_id ON connections(contact_id);
CREATE INDEX idx_connections_group_member_id ON connections(group_member_id);
CREATE INDEX idx_connections_user_contact_link_id ON connections(user_contact_link_id);
CREATE INDEX idx_connections_via_contact ON connections(via_contact);
CREATE INDEX idx_connections_via_user_contact_link ON connections(via_user_contact_link);
CREATE INDEX idx_connections_custom_user_profile_id ON connections(custom_user_profile_id);

CREATE TABLE contact_requests (
  contact_request_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  user_contact_link_id INTEGER REFERENCES user_contact_links ON DELETE CASCADE,
  agent_invitation_id BLOB NOT NULL UNIQUE,
  contact_profile_id INTEGER NOT NULL REFERENCES contact_profiles ON DELETE CASCADE,
  local_display_name TEXT NOT NULL,
  -- The contact made for the request, once there is one.
  contact_id INTEGER REFERENCES contacts ON DELETE SET NULL,
  business_group_id INTEGER REFERENCES groups (group_id) ON DELETE SET NULL,
  peer_chat_min_version INTEGER NOT NULL,
  peer_chat_max_version INTEGER NOT NULL,
  xcontact_id BLOB,
  pq_support INTEGER NOT NULL DEFAULT 0,
  welcome_shared_msg_id BLOB,
  request_shared_msg_id BLOB,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_contact_requests_user_id ON contact_requests(user_id);
CREATE INDEX idx_contact_requests_user_contact_link_id ON contact_requests(user_contact_link_id);
CREATE INDEX idx_contact_requests_contact_profile_id ON contact_requests(contact_profile_id);
CREATE INDEX idx_contact_requests_contact_id ON contact_requests(contact_id);
CREATE INDEX idx_contact_requests_business_group_id ON contact_requests(business_group_id);
CREATE UNIQUE INDEX idx_contact_requests_xcontact_id ON contact_requests(user_id, xcontact_id) WHERE xcontact_id IS NOT NULL;
