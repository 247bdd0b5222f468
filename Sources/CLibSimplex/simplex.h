/*
 * libsimplex: the C ABI of the SimpleX Chat core (chat-api.md §9), served by simplex-host's embedded core.
 *
 * Programs written for the official libsimplex (the iOS app, the `simplex-chat` Python and Node packages) load this
 * library unchanged. The same header declares the functions for a program that loads any libsimplex at run time:
 * each function also has a pointer type (`chat_send_cmd_fn`, ...) for dlsym.
 *
 * Memory. Input strings are NUL-terminated, owned by the caller and only read during the call. Every returned
 * `char *` and `uint8_t *` is one new allocation from malloc(3), released by the caller with free(3); no function
 * returns NULL, whatever its input (a failed allocation aborts, as a Haskell core's would).
 *
 * Threads. Every function may be called from any thread and several threads at once: commands run one at a time,
 * whole, in arrival order, while another thread waits for events. The calls block their thread. Do not call them
 * from a thread that an async runtime needs to make progress (in a Swift process: never from a task of the
 * cooperative pool, whose few threads a blocked call would hold; use a thread of your own).
 *
 * Bad input never crashes the library; each function documents what it answers. A `chat_ctrl` that is not NULL
 * must come from chat_migrate_init*; controllers are never freed (as the official core's stable pointers).
 */
#ifndef SIMPLEX_H
#define SIMPLEX_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An opaque chat controller, made by chat_migrate_init*. */
typedef void *chat_ctrl;

/* The answer of the functions below when their controller is NULL, or their command is NULL or not UTF-8
 * (chat_send_cmd*, chat_recv_msg*): a ChatError envelope of type "exception" or "commandError", e.g.
 *   {"error":{"type":"error","errorType":{"type":"exception","message":"chat controller is NULL"}}}
 * Functions answering plain text (chat_close_store, ...) answer the message alone. */

/* Accepted and ignored: there is no Haskell runtime to start. Clients call it once before anything else. */
void hs_init_with_rtsopts(int *argc, char ***argv);

/* Opens (creating) <path>_chat.db and <path>_agent.db, migrates them as `confirm` allows ("yesUp", "yesUpDown",
 * "error", "console" = "error") and makes a controller. Answers a DBMigrationResult (chat-api.md §9.6):
 *   {"type":"ok"}                                              *ctrl is set
 *   {"type":"invalidConfirmation"}                             confirm is NULL or none of the four
 *   {"type":"errorNotADatabase","dbFile":F}                    not a database, or a wrong key
 *   {"type":"errorMigration","dbFile":F,"migrationError":E}    migrations need confirmation or cannot run
 *   {"type":"errorSQL","dbFile":F,"migrationSQLError":S}       SQLite failed; path or ctrl NULL
 * `key` is the passphrase the files are encrypted with ("" or NULL: plaintext files). The official core hands it to
 * SQLCipher; this one seals the files itself (docs/storage-encryption.md, not SQLCipher's format): a new store made
 * with a key is sealed, and a wrong key, a key for plaintext files or no key for sealed ones is errorNotADatabase. */
char *chat_migrate_init(const char *path, const char *key, const char *confirm, chat_ctrl *ctrl);
/* The same; `keepKey` and `background` are accepted (the key is always kept for chat_reopen_store, which opens the
 * files under the key `/_db encryption` last gave them; there is no background mode). */
char *chat_migrate_init_key(const char *path, const char *key, int keepKey, const char *confirm, int background,
                            chat_ctrl *ctrl);

/* Closes both databases: "" or the error text. Commands sent while closed answer an "exception" error; events wait
 * for the store to reopen. The controller's session state (started chat, file folders) does not survive a close. */
char *chat_close_store(chat_ctrl ctrl);
/* Reopens them: "" (also when open) or the error text. */
char *chat_reopen_store(chat_ctrl ctrl);

/* Runs one command line; answers {"result":ChatResponse} or {"error":ChatError} (chat-api.md §1.2). */
char *chat_send_cmd(chat_ctrl ctrl, const char *cmd);
/* The same; `retryNum` (0 = first attempt) has no effect on this core's commands. */
char *chat_send_cmd_retry(chat_ctrl ctrl, const char *cmd, int retryNum);
/* Runs a command on a connected remote host (the controller role). The envelope carries "remoteHostId"; a host with
 * no session answers {"remoteHostId":N,"error":{"type":"errorRemoteHost","rhKey":{"type":"id","remoteHostId":N},
 * "remoteHostError":{"type":"missing"}}}. */
char *chat_send_remote_cmd(chat_ctrl ctrl, int remoteHostId, const char *cmd);
char *chat_send_remote_cmd_retry(chat_ctrl ctrl, int remoteHostId, const char *cmd, int retryNum);

/* The next event envelope, waiting as long as it takes. */
char *chat_recv_msg(chat_ctrl ctrl);
/* The next event envelope, or "" when none came within `waitMicroseconds` (chat-api.md §1.3). */
char *chat_recv_msg_wait(chat_ctrl ctrl, int waitMicroseconds);

/* {"formattedText":[FormattedText]}, the key omitted when the text has no markdown. */
char *chat_parse_markdown(const char *text);
/* {"serverAddress":{...},"parseError":""} or {"parseError":"<why>"}. */
char *chat_parse_server(const char *address);
/* {"uriInfo":{"scheme":S,"sanitized":S?},"parseError":""} or {"parseError":"<why>"}; `safe` != 0: safe mode. */
char *chat_parse_uri(const char *uri, int safe);

/* base64url(SHA-512(password ‖ base64url-decode(salt))); "" when the salt is not base64url or an argument is NULL. */
char *chat_password_hash(const char *password, const char *salt);
/* The valid display name made from `name` (the core's rule); "" for NULL. Invalid UTF-8 is read as U+FFFD. */
char *chat_valid_name(const char *name);
/* UTF-8 length of `s` escaped as a JSON string, without the quotes; 0 for NULL. Invalid UTF-8 is read as U+FFFD. */
int chat_json_length(const char *s);

/* WebRTC frames, AES-256-GCM in place: the last 28 bytes of `buf` are reserved for the 16-byte tag and the 12-byte
 * IV (encrypting writes them; decrypting reads them and zeroes them). `key`: base64url of 32 bytes. Answers "" or
 * the error text (short frame, invalid key, failed authentication: the frame is then left unchanged). */
char *chat_encrypt_media(chat_ctrl ctrl, const char *key, uint8_t *buf, int len);
char *chat_decrypt_media(const char *key, uint8_t *buf, int len);

/* Encrypted local files in simplexmq's CryptoFile format: XSalsa20 under HSalsa20(key, 0^16) with the nonce, its
 * first 32 keystream bytes keying Poly1305, the content XORed from keystream byte 32 on, the 16-byte tag over the
 * ciphertext appended. Keys and nonces travel as base64url (32 and 24 bytes). */

/* Writes `buf` encrypted under a fresh key and nonce. Answers a WriteFileResult (chat-api.md §9.4):
 * {"type":"result","cryptoArgs":{"fileKey":K,"fileNonce":N}} or {"type":"error","writeError":"<why>"}. */
char *chat_write_file(chat_ctrl ctrl, const char *path, const uint8_t *buf, int len);
/* Reads and decrypts a file (chat-api.md §9.3): byte 0 is 0, bytes 1-4 the plaintext length (host order), then the
 * plaintext; or byte 0 is 1 and a NUL-terminated error message follows. */
uint8_t *chat_read_file(const char *path, const char *key, const char *nonce);
/* Encrypts the file at `fromPath` into `toPath` under a fresh key and nonce: a WriteFileResult. */
char *chat_encrypt_file(chat_ctrl ctrl, const char *fromPath, const char *toPath);
/* Decrypts into `toPath`: "" or the error text. A file that fails authentication leaves no `toPath` behind. */
char *chat_decrypt_file(const char *fromPath, const char *key, const char *nonce, const char *toPath);

/* Pointer types, for loading a libsimplex with dlopen/dlsym. */
typedef void (*hs_init_with_rtsopts_fn)(int *, char ***);
typedef char *(*chat_migrate_init_fn)(const char *, const char *, const char *, chat_ctrl *);
typedef char *(*chat_migrate_init_key_fn)(const char *, const char *, int, const char *, int, chat_ctrl *);
typedef char *(*chat_close_store_fn)(chat_ctrl);
typedef char *(*chat_reopen_store_fn)(chat_ctrl);
typedef char *(*chat_send_cmd_fn)(chat_ctrl, const char *);
typedef char *(*chat_send_cmd_retry_fn)(chat_ctrl, const char *, int);
typedef char *(*chat_send_remote_cmd_fn)(chat_ctrl, int, const char *);
typedef char *(*chat_send_remote_cmd_retry_fn)(chat_ctrl, int, const char *, int);
typedef char *(*chat_recv_msg_fn)(chat_ctrl);
typedef char *(*chat_recv_msg_wait_fn)(chat_ctrl, int);
typedef char *(*chat_parse_markdown_fn)(const char *);
typedef char *(*chat_parse_server_fn)(const char *);
typedef char *(*chat_parse_uri_fn)(const char *, int);
typedef char *(*chat_password_hash_fn)(const char *, const char *);
typedef char *(*chat_valid_name_fn)(const char *);
typedef int (*chat_json_length_fn)(const char *);
typedef char *(*chat_encrypt_media_fn)(chat_ctrl, const char *, uint8_t *, int);
typedef char *(*chat_decrypt_media_fn)(const char *, uint8_t *, int);
typedef char *(*chat_write_file_fn)(chat_ctrl, const char *, const uint8_t *, int);
typedef uint8_t *(*chat_read_file_fn)(const char *, const char *, const char *);
typedef char *(*chat_encrypt_file_fn)(chat_ctrl, const char *, const char *);
typedef char *(*chat_decrypt_file_fn)(const char *, const char *, const char *, const char *);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLEX_H */
