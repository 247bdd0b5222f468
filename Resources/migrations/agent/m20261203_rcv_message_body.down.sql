ALTER TABLE rcv_messages DROP COLUMN body;
