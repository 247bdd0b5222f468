-- The body of a received message until its ACK reaches the server: a message delivered again before the chat layer
-- acknowledged it (the agent restarted in between) is given to it again, as the reference agent does.
ALTER TABLE rcv_messages ADD COLUMN body BLOB;
