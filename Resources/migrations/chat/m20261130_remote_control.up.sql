-- Pairings of both remote-control roles (xrcp.md §2).
-- A controller's known hosts: its own CA and identity per host, the host's CA fingerprint and last DH key.
CREATE TABLE remote_hosts (
  remote_host_id INTEGER PRIMARY KEY AUTOINCREMENT,
  host_device_name TEXT NOT NULL,
  store_path TEXT NOT NULL,
  ca_key BLOB NOT NULL,
  ca_cert BLOB NOT NULL,
  id_key BLOB NOT NULL,
  host_fingerprint BLOB NOT NULL,
  host_dh_pub BLOB NOT NULL,
  bind_addr TEXT,
  bind_iface TEXT,
  bind_port INTEGER,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX idx_remote_hosts_host_fingerprint ON remote_hosts(host_fingerprint);

-- A host's known controllers: its own CA per controller, the controller's CA fingerprint and identity key,
-- and the DH keys of its last two successful HELLOs.
CREATE TABLE remote_controllers (
  remote_ctrl_id INTEGER PRIMARY KEY AUTOINCREMENT,
  ctrl_device_name TEXT NOT NULL,
  ca_key BLOB NOT NULL,
  ca_cert BLOB NOT NULL,
  ctrl_fingerprint BLOB NOT NULL,
  id_pub BLOB NOT NULL,
  dh_priv_key BLOB NOT NULL,
  prev_dh_priv_key BLOB,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX idx_remote_controllers_ctrl_fingerprint ON remote_controllers(ctrl_fingerprint);
