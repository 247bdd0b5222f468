// The embedded chat core (chat-api.md): to be written.
