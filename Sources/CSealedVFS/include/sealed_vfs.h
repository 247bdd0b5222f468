#ifndef SIMPLEX_SEALED_VFS_H
#define SIMPLEX_SEALED_VFS_H
/*
 * An SQLite VFS that seals every page it stores with XChaCha20-Poly1305, for the chat and
 * agent databases at rest. docs/storage-encryption.md has the layout and the threat model.
 *
 * The VFS only ever holds a 32-byte page key; the passphrase, Argon2id and the file's key header are
 * handled above it (ChatStore). A key reaches the VFS through a numbered slot named in the database URI
 * (`?sealedkey=N`); the main file copies it on open, so the slot can be emptied as soon as the open returns.
 */
#include <stddef.h>

/* The start of the name the VFS is registered under (never the default VFS). Each copy of this code in a process
   (a program and a libsimplex.so it loads with RTLD_LOCAL share the system's libsqlite3, not their key slots)
   registers its own VFS, named this followed by a suffix of its own: simplex_sealed_vfs_name(). */
#define SIMPLEX_SEALED_VFS_NAME "simplex-sealed"
/* The URI parameter that names the key slot. */
#define SIMPLEX_SEALED_KEY_PARAMETER "sealedkey"
/* Bytes before page 1 in a sealed main file: the key header written by ChatStore. */
#define SIMPLEX_SEALED_HEADER_SIZE 4096
/* The only page size a sealed database may have. */
#define SIMPLEX_SEALED_PAGE_SIZE 4096
/* Reserved bytes at the end of each page: a 24-byte nonce and a 16-byte tag. */
#define SIMPLEX_SEALED_RESERVE 40
#define SIMPLEX_SEALED_KEY_SIZE 32

/* Registers the VFS once (thread-safe); returns an SQLite result code. */
int simplex_sealed_vfs_register(void);

/* The name this copy's VFS is registered under, once simplex_sealed_vfs_register succeeded. */
const char *simplex_sealed_vfs_name(void);

/* Stores a copy of a page key; returns its slot (>= 1), or 0 when every slot is taken. */
int simplex_sealed_key_put(const unsigned char *key, size_t length);

/* Wipes and frees a slot. */
void simplex_sealed_key_remove(int slot);

#endif
