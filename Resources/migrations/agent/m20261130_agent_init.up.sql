-- The agent database holds the network layer's state; the embedded core has no network yet, so it only records
-- that it exists, as the official core's file does.
CREATE TABLE agent_info (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
