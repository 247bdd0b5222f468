-- Groups of the embedded chat core (chat-api.md §7.10–7.15): each group's profile, the group with the user's chat
-- settings for it, and its members — so far only the user's own membership, as groups are created locally. Table and
-- column names follow the official core's schema. Times are ISO-8601 text as the API writes them (§2.4).
CREATE TABLE group_profiles (
  group_profile_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  display_name TEXT NOT NULL,
  full_name TEXT NOT NULL,
  short_descr TEXT,
  description TEXT,
  image TEXT,
  -- JSON: publicGroup, groupPreferences and memberAdmission as the client sent them (typed on the way in).
  public_group TEXT,
  preferences TEXT,
  member_admission TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_group_profiles_user_id ON group_profiles(user_id);

CREATE TABLE groups (
  group_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  group_profile_id INTEGER NOT NULL REFERENCES group_profiles ON DELETE CASCADE,
  local_display_name TEXT NOT NULL,
  local_alias TEXT NOT NULL DEFAULT '',
  -- ChatSettings (§7.15): enable_ntfs is the MsgFilter text (all, none, mentions); send_rcpts NULL = user default.
  enable_ntfs TEXT NOT NULL DEFAULT 'all',
  send_rcpts INTEGER,
  favorite INTEGER NOT NULL DEFAULT 0,
  unread_chat INTEGER NOT NULL DEFAULT 0,
  -- The next member's index_in_group.
  member_index INTEGER NOT NULL DEFAULT 0,
  use_relays INTEGER NOT NULL DEFAULT 0,
  ui_themes TEXT,
  custom_data TEXT,
  -- Seconds; NULL = the user's setting.
  chat_item_ttl INTEGER,
  chat_ts TEXT,
  user_member_profile_sent_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, local_display_name)
);
CREATE INDEX idx_groups_group_profile_id ON groups(group_profile_id);

CREATE TABLE group_members (
  group_member_id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER NOT NULL REFERENCES groups ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  index_in_group INTEGER NOT NULL,
  -- The protocol's member id, base64url as the API writes it.
  member_id TEXT NOT NULL,
  member_role TEXT NOT NULL,
  member_category TEXT NOT NULL,
  member_status TEXT NOT NULL,
  show_messages INTEGER NOT NULL DEFAULT 1,
  blocked_by_admin INTEGER NOT NULL DEFAULT 0,
  -- InvitedBy: 'user', 'unknown' or 'contact' with invited_by_contact_id.
  invited_by TEXT NOT NULL,
  invited_by_contact_id INTEGER,
  invited_by_group_member_id INTEGER REFERENCES group_members ON DELETE SET NULL,
  local_display_name TEXT NOT NULL,
  contact_id INTEGER REFERENCES contacts ON DELETE SET NULL,
  contact_profile_id INTEGER NOT NULL REFERENCES contact_profiles ON DELETE CASCADE,
  -- The incognito profile the user joined with, if any.
  member_profile_id INTEGER REFERENCES contact_profiles ON DELETE SET NULL,
  peer_chat_min_version INTEGER NOT NULL,
  peer_chat_max_version INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (group_id, member_id)
);
CREATE INDEX idx_group_members_user_id ON group_members(user_id);
CREATE INDEX idx_group_members_contact_id ON group_members(contact_id);
CREATE INDEX idx_group_members_contact_profile_id ON group_members(contact_profile_id);
CREATE INDEX idx_group_members_member_profile_id ON group_members(member_profile_id);
CREATE INDEX idx_group_members_invited_by_group_member_id ON group_members(invited_by_group_member_id);
