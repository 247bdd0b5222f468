DROP INDEX idx_remote_controllers_ctrl_fingerprint;
DROP TABLE remote_controllers;
DROP INDEX idx_remote_hosts_host_fingerprint;
DROP TABLE remote_hosts;
