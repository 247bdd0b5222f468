-- The embedded chat core's users (chat-api.md §7.4): each user's profile (§7.1–7.2), the contact row that stands for
-- the user, and the user's note folder (§7.16); the app settings kept for device migration (§7.28). Table and column
-- names follow the official core's schema. Times are ISO-8601 text as the API writes them (§2.4).
CREATE TABLE contact_profiles (
  contact_profile_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER REFERENCES users ON DELETE CASCADE,
  display_name TEXT NOT NULL,
  full_name TEXT NOT NULL,
  short_descr TEXT,
  description TEXT,
  image TEXT,
  contact_link TEXT,
  preferences TEXT,
  peer_type TEXT,
  badge TEXT,
  contact_domain TEXT,
  local_alias TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_contact_profiles_user_id ON contact_profiles(user_id);

CREATE TABLE users (
  user_id INTEGER PRIMARY KEY AUTOINCREMENT,
  agent_user_id INTEGER NOT NULL UNIQUE,
  -- Set once the user's own contact row exists (the two rows refer to each other).
  contact_id INTEGER UNIQUE REFERENCES contacts ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED,
  local_display_name TEXT NOT NULL UNIQUE,
  active_user INTEGER NOT NULL DEFAULT 0,
  active_order INTEGER NOT NULL DEFAULT 0,
  view_pwd_hash TEXT,
  view_pwd_salt TEXT,
  show_ntfs INTEGER NOT NULL DEFAULT 1,
  send_rcpts_contacts INTEGER NOT NULL DEFAULT 1,
  send_rcpts_small_groups INTEGER NOT NULL DEFAULT 1,
  auto_accept_member_contacts INTEGER NOT NULL DEFAULT 0,
  user_member_profile_updated_at TEXT,
  ui_themes TEXT,
  user_chat_relay INTEGER NOT NULL DEFAULT 0,
  client_service INTEGER NOT NULL DEFAULT 0,
  -- Seconds after which chat items expire; 0 = never.
  chat_item_ttl INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE contacts (
  contact_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  contact_profile_id INTEGER NOT NULL REFERENCES contact_profiles ON DELETE CASCADE,
  local_display_name TEXT NOT NULL,
  -- 1 for the row that stands for the user.
  is_user INTEGER NOT NULL DEFAULT 0,
  send_rcpts INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_contacts_user_id ON contacts(user_id);
CREATE INDEX idx_contacts_contact_profile_id ON contacts(contact_profile_id);

CREATE TABLE note_folders (
  note_folder_id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  chat_ts TEXT NOT NULL,
  favorite INTEGER NOT NULL DEFAULT 0,
  unread_chat INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_note_folders_user_id ON note_folders(user_id);

-- One row at most: the JSON AppSettings of /_save app settings.
CREATE TABLE app_settings (app_settings TEXT NOT NULL);
