-- Server operators, their usage conditions and each user's SMP and XFTP servers (chat-api.md §4.12, §7.29), as the
-- official schema names them. Operators and conditions are shared by all users; a user's servers belong to an
-- operator when a host ends with one of the operator's domains, and are the user's own otherwise.
CREATE TABLE server_operators (
  server_operator_id INTEGER PRIMARY KEY AUTOINCREMENT,
  server_operator_tag TEXT,
  trade_name TEXT NOT NULL,
  legal_name TEXT,
  server_domains TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  smp_role_storage INTEGER NOT NULL DEFAULT 1,
  smp_role_proxy INTEGER NOT NULL DEFAULT 1,
  xftp_role_storage INTEGER NOT NULL DEFAULT 1,
  xftp_role_proxy INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE usage_conditions (
  usage_conditions_id INTEGER PRIMARY KEY AUTOINCREMENT,
  conditions_commit TEXT NOT NULL UNIQUE,
  notified_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- One row per operator and conditions version it accepted (or was offered: accepted_at is then null).
CREATE TABLE operator_usage_conditions (
  operator_usage_conditions_id INTEGER PRIMARY KEY AUTOINCREMENT,
  server_operator_id INTEGER REFERENCES server_operators (server_operator_id) ON DELETE SET NULL ON UPDATE CASCADE,
  server_operator_tag TEXT,
  conditions_commit TEXT NOT NULL,
  accepted_at TEXT,
  auto_accepted INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_operator_usage_conditions_server_operator_id ON operator_usage_conditions(server_operator_id);
CREATE UNIQUE INDEX idx_operator_usage_conditions_conditions_commit
  ON operator_usage_conditions(conditions_commit, server_operator_id);

-- `host` holds the address's hosts joined by commas; `key_hash` the decoded key hash.
CREATE TABLE protocol_servers (
  smp_server_id INTEGER PRIMARY KEY,
  host TEXT NOT NULL,
  port TEXT NOT NULL,
  key_hash BLOB NOT NULL,
  basic_auth TEXT,
  preset INTEGER NOT NULL DEFAULT 0,
  tested INTEGER,
  enabled INTEGER NOT NULL DEFAULT 1,
  user_id INTEGER NOT NULL REFERENCES users ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  protocol TEXT NOT NULL DEFAULT 'smp',
  UNIQUE (user_id, host, port)
);
CREATE INDEX idx_smp_servers_user_id ON protocol_servers(user_id);
