/*
 * The sealed VFS: a shim over the default VFS that encrypts and authenticates everything SQLite writes to
 * a database's main file, its WAL and its rollback journal. The layout of each file is in
 * docs/storage-encryption.md; in short:
 *
 *   main file  the key header (4096 bytes, written by ChatStore), then one 4096-byte page per SQLite page;
 *              the last 40 bytes of each page (SQLite's reserved bytes) hold the nonce and the tag.
 *   WAL        the 32-byte WAL header and each 24-byte frame header sealed on their own (+40 bytes each);
 *              each frame's page sealed in its own reserved bytes, so pages keep their size.
 *   journal    4096-byte blocks, each 4056 bytes of journal sealed with its nonce and tag.
 *
 * Each record is bound to its kind and position (associated data), so records cannot be moved between
 * places or files. Nonces are random (24 bytes, XChaCha20), so no counter has to survive a crash.
 *
 * The AEAD is XChaCha20-Poly1305 as libsodium defines it (crypto_aead_xchacha20poly1305_ietf): libsodium's
 * HChaCha20 makes the subkey, OpenSSL's ChaCha20-Poly1305 (about 1.5 times faster than libsodium 1.0.18's on
 * a 4 KiB page) does the rest. Registration checks the two agree before any file is opened.
 */
#include "sealed_vfs.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum {
    PAGE = SIMPLEX_SEALED_PAGE_SIZE,
    RESERVE = SIMPLEX_SEALED_RESERVE,
    PAYLOAD = PAGE - RESERVE,
    NONCE = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
    TAG = crypto_aead_xchacha20poly1305_ietf_ABYTES,
    HEADER = SIMPLEX_SEALED_HEADER_SIZE,
    WAL_HEADER = 32,
    WAL_FRAME_HEADER = 24,
    /* A WAL frame as SQLite sees it and as it is stored. */
    WAL_FRAME = WAL_FRAME_HEADER + PAGE,
    WAL_SEALED_HEADER = WAL_HEADER + NONCE + TAG,
    WAL_SEALED_FRAME_HEADER = WAL_FRAME_HEADER + NONCE + TAG,
    WAL_SEALED_FRAME = WAL_SEALED_FRAME_HEADER + PAGE,
};

_Static_assert(NONCE + TAG == RESERVE, "the reserved bytes hold exactly a nonce and a tag");

/* What a record is, bound into its associated data. */
enum record_kind { MAIN_PAGE = 1, WAL_FILE_HEADER = 2, WAL_FRAME_HEADER_RECORD = 3, WAL_PAGE = 4, JOURNAL_BLOCK = 5 };
enum file_kind { FILE_MAIN = 1, FILE_WAL = 2, FILE_JOURNAL = 3 };

typedef struct sealed_file {
    sqlite3_file base;
    sqlite3_file *real;
    EVP_CIPHER_CTX *cipher;
    int kind;
    unsigned char key[SIMPLEX_SEALED_KEY_SIZE];
    unsigned char buffer[PAGE]; /* one stored record at a time */
    /* Random nonces drawn 64 at a time: one getrandom call per 64 writes instead of one per write. (A process
       that forked with a database open would share them; SQLite forbids using a connection across fork.) */
    unsigned char nonces[64 * NONCE];
    int nonces_used;
} sealed_file;

static sqlite3_vfs sealed_vfs;
/* SIMPLEX_SEALED_VFS_NAME and this copy's address: another copy of this code in the process (libsimplex.so loaded
   by a program that links it too) registers under another name, so neither opens files with the other's slots. */
static char sealed_vfs_name[64];
static sqlite3_vfs *root_vfs(void) { return (sqlite3_vfs *)sealed_vfs.pAppData; }

/* MARK: key slots */

enum { SLOTS = 16 };
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char slot_keys[SLOTS][SIMPLEX_SEALED_KEY_SIZE];
static int slot_used[SLOTS];

int simplex_sealed_key_put(const unsigned char *key, size_t length) {
    if (length != SIMPLEX_SEALED_KEY_SIZE) return 0;
    int slot = 0;
    pthread_mutex_lock(&slots_lock);
    for (int i = 0; i < SLOTS; i++) {
        if (!slot_used[i]) {
            slot_used[i] = 1;
            memcpy(slot_keys[i], key, SIMPLEX_SEALED_KEY_SIZE);
            slot = i + 1;
            break;
        }
    }
    pthread_mutex_unlock(&slots_lock);
    return slot;
}

void simplex_sealed_key_remove(int slot) {
    if (slot < 1 || slot > SLOTS) return;
    pthread_mutex_lock(&slots_lock);
    sodium_memzero(slot_keys[slot - 1], SIMPLEX_SEALED_KEY_SIZE);
    slot_used[slot - 1] = 0;
    pthread_mutex_unlock(&slots_lock);
}

static int slot_key(int slot, unsigned char *out) {
    if (slot < 1 || slot > SLOTS) return 0;
    pthread_mutex_lock(&slots_lock);
    int found = slot_used[slot - 1];
    if (found) memcpy(out, slot_keys[slot - 1], SIMPLEX_SEALED_KEY_SIZE);
    pthread_mutex_unlock(&slots_lock);
    return found;
}

/* MARK: sealing */

static void associated_data(unsigned char out[13], int kind, sqlite3_uint64 index, unsigned length) {
    out[0] = (unsigned char)kind;
    for (int i = 0; i < 8; i++) out[1 + i] = (unsigned char)(index >> (8 * i));
    for (int i = 0; i < 4; i++) out[9 + i] = (unsigned char)(length >> (8 * i));
}

/* XChaCha20-Poly1305 over `length` bytes, `in` to `out` (which may be the same); 0 on success, and for
   decryption only when the tag is authentic. */
static int xchacha20poly1305(EVP_CIPHER_CTX *ctx, int encrypt, const unsigned char *key, const unsigned char *nonce,
                             const unsigned char *ad, int ad_length, const unsigned char *in, int length,
                             unsigned char *out, unsigned char *tag) {
    unsigned char subkey[32], iv[12] = {0};
    crypto_core_hchacha20(subkey, nonce, key, NULL);
    memcpy(iv + 4, nonce + 16, 8);
    int n = 0, ok;
    if (encrypt) {
        ok = EVP_EncryptInit_ex(ctx, NULL, NULL, subkey, iv) == 1 && EVP_EncryptUpdate(ctx, NULL, &n, ad, ad_length) == 1 &&
             EVP_EncryptUpdate(ctx, out, &n, in, length) == 1 && EVP_EncryptFinal_ex(ctx, out + n, &n) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG, tag) == 1;
    } else {
        ok = EVP_DecryptInit_ex(ctx, NULL, NULL, subkey, iv) == 1 && EVP_DecryptUpdate(ctx, NULL, &n, ad, ad_length) == 1 &&
             EVP_DecryptUpdate(ctx, out, &n, in, length) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAG, tag) == 1 && EVP_DecryptFinal_ex(ctx, out + n, &n) == 1;
        if (!ok) sodium_memzero(out, (size_t)length); /* nothing unauthenticated is ever handed on */
    }
    sodium_memzero(subkey, sizeof subkey);
    return ok ? 0 : -1;
}

/* Encrypts `length` bytes of `plain` into `out`, followed by the nonce and the tag (length + 40 bytes). */
static int seal(sealed_file *f, int kind, sqlite3_uint64 index, const unsigned char *plain, unsigned length,
                unsigned char *out) {
    unsigned char ad[13];
    associated_data(ad, kind, index, length);
    unsigned char *nonce = out + length;
    if (f->nonces_used == 0 || f->nonces_used == (int)(sizeof f->nonces / NONCE)) {
        randombytes_buf(f->nonces, sizeof f->nonces);
        f->nonces_used = 0;
    }
    memcpy(nonce, f->nonces + f->nonces_used * NONCE, NONCE);
    sodium_memzero(f->nonces + f->nonces_used * NONCE, NONCE); /* each is used once */
    f->nonces_used++;
    return xchacha20poly1305(f->cipher, 1, f->key, nonce, ad, sizeof ad, plain, (int)length, out, nonce + NONCE);
}

/* The inverse of seal, in place; 0 when the record is authentic. */
static int unseal(const sealed_file *f, int kind, sqlite3_uint64 index, unsigned char *record, unsigned length) {
    unsigned char ad[13];
    associated_data(ad, kind, index, length);
    unsigned char *nonce = record + length;
    return xchacha20poly1305(f->cipher, 0, f->key, nonce, ad, sizeof ad, record, (int)length, record, nonce + NONCE);
}

static int all_zero(const unsigned char *p, int n) {
    unsigned char acc = 0;
    for (int i = 0; i < n; i++) acc |= p[i];
    return acc == 0;
}

/* Reads one stored record of `length` bytes into `out`; 1 when it is all there, 0 when the file ends first. */
static int read_stored(sealed_file *f, unsigned char *out, sqlite3_int64 offset, int length, int *rc) {
    *rc = f->real->pMethods->xRead(f->real, out, length, offset);
    if (*rc == SQLITE_IOERR_SHORT_READ) {
        *rc = SQLITE_OK;
        return 0;
    }
    return *rc == SQLITE_OK;
}

/*
 * A record in logical (SQLite's) and stored coordinates, with where its plaintext sits in the stored bytes.
 * For pages the last 40 logical bytes are SQLite's reserved bytes, which read as zeros and are never stored.
 */
typedef struct record {
    int kind;
    sqlite3_uint64 index;
    sqlite3_int64 logical_start;
    int logical_length;
    sqlite3_int64 stored_start;
    int sealed_length; /* plaintext bytes sealed; the stored record is this plus 40 */
} record;

static record record_at(const sealed_file *f, sqlite3_int64 offset) {
    record r;
    switch (f->kind) {
    case FILE_MAIN: {
        sqlite3_int64 page = offset / PAGE;
        r = (record){MAIN_PAGE, (sqlite3_uint64)page + 1, page * PAGE, PAGE, HEADER + page * PAGE, PAYLOAD};
        break;
    }
    case FILE_JOURNAL: {
        sqlite3_int64 block = offset / PAYLOAD;
        r = (record){JOURNAL_BLOCK, (sqlite3_uint64)block, block * PAYLOAD, PAYLOAD, block * PAGE, PAYLOAD};
        break;
    }
    default: {
        if (offset < WAL_HEADER) {
            r = (record){WAL_FILE_HEADER, 0, 0, WAL_HEADER, 0, WAL_HEADER};
            break;
        }
        sqlite3_int64 frame = (offset - WAL_HEADER) / WAL_FRAME;
        sqlite3_int64 logical = WAL_HEADER + frame * WAL_FRAME;
        sqlite3_int64 stored = WAL_SEALED_HEADER + frame * WAL_SEALED_FRAME;
        if (offset - logical < WAL_FRAME_HEADER) {
            r = (record){WAL_FRAME_HEADER_RECORD, (sqlite3_uint64)frame, logical, WAL_FRAME_HEADER, stored,
                         WAL_FRAME_HEADER};
        } else {
            r = (record){WAL_PAGE, (sqlite3_uint64)frame, logical + WAL_FRAME_HEADER, PAGE,
                         stored + WAL_SEALED_FRAME_HEADER, PAYLOAD};
        }
        break;
    }
    }
    return r;
}

static sqlite3_int64 wal_frame_header_start(const record *r) {
    return WAL_HEADER + (sqlite3_int64)r->index * WAL_FRAME;
}

/*
 * What a record that fails authentication reads as. A main-file page is corruption: an error, never data.
 * Journal blocks, WAL headers and frame headers read as zeros, which SQLite takes for the end of the log
 * (a torn tail after a crash looks exactly like this). A WAL page fetched on its own must authenticate; one
 * read together with its frame header (recovery scanning the log) reads as zeros, failing SQLite's checksum,
 * so its frame counts as the torn tail.
 */
static int reads_as_zeros(const record *r, sqlite3_int64 read_start) {
    switch (r->kind) {
    case MAIN_PAGE: return 0;
    case WAL_PAGE: return read_start <= wal_frame_header_start(r);
    default: return 1;
    }
}

/* A page stores as many bytes as SQLite sees (its nonce and tag sit in the reserved bytes), so a read of one
   whole page can go straight into SQLite's buffer. */
static int stored_in_place(const record *r) { return r->sealed_length + RESERVE == r->logical_length; }

/* Loads a record's plaintext into `out` (logical_length bytes, and room for the stored record), zero-filled past
   what exists; sets *present. */
static int load(sealed_file *f, const record *r, sqlite3_int64 read_start, unsigned char *out, int *present) {
    int rc;
    *present = read_stored(f, out, r->stored_start, r->sealed_length + RESERVE, &rc);
    if (rc != SQLITE_OK) return rc;
    if (!*present) {
        memset(out, 0, (size_t)r->logical_length);
        return SQLITE_OK;
    }
    if (unseal(f, r->kind, r->index, out, (unsigned)r->sealed_length) != 0) {
        if (!reads_as_zeros(r, read_start)) return SQLITE_IOERR_DATA;
        *present = 0;
        memset(out, 0, (size_t)r->logical_length);
        return SQLITE_OK;
    }
    memset(out + r->sealed_length, 0, (size_t)(r->logical_length - r->sealed_length));
    return SQLITE_OK;
}

static int sealed_read(sqlite3_file *file, void *out, int amount, sqlite3_int64 offset) {
    sealed_file *f = (sealed_file *)file;
    unsigned char *dst = out;
    int short_read = 0;
    sqlite3_int64 position = offset, end = offset + amount;
    while (position < end) {
        record r = record_at(f, position);
        sqlite3_int64 within = position - r.logical_start;
        sqlite3_int64 n = r.logical_length - within;
        if (n > end - position) n = end - position;
        int whole = within == 0 && n == r.logical_length && stored_in_place(&r);
        int present, rc = load(f, &r, offset, whole ? dst + (position - offset) : f->buffer, &present);
        if (rc != SQLITE_OK) return rc;
        if (!present) short_read = 1;
        if (!whole) memcpy(dst + (position - offset), f->buffer + within, (size_t)n);
        position += n;
    }
    return short_read ? SQLITE_IOERR_SHORT_READ : SQLITE_OK;
}

static int sealed_write(sqlite3_file *file, const void *in, int amount, sqlite3_int64 offset) {
    sealed_file *f = (sealed_file *)file;
    const unsigned char *src = in;
    sqlite3_int64 position = offset, end = offset + amount;
    unsigned char plain[PAGE];
    while (position < end) {
        record r = record_at(f, position);
        sqlite3_int64 within = position - r.logical_start;
        sqlite3_int64 n = r.logical_length - within;
        if (n > end - position) n = end - position;
        const unsigned char *content = src + (position - offset);
        if (within != 0 || n != r.logical_length) {
            /* A part of a record: read, change, seal again. Only the journal does this in practice. */
            int present, rc = load(f, &r, r.logical_start, plain, &present);
            if (rc != SQLITE_OK) return rc;
            memcpy(plain + within, content, (size_t)n);
            content = plain;
        }
        /* The reserved bytes carry our nonce and tag: SQLite must have left them zero, as it does. A page
           that says otherwise (wrong reserve) would lose data, so it is refused instead. */
        if (r.logical_length > r.sealed_length &&
            !all_zero(content + r.sealed_length, r.logical_length - r.sealed_length))
            return SQLITE_IOERR_WRITE;
        if (r.kind == MAIN_PAGE && r.index == 1 &&
            (content[20] < RESERVE || content[16] != (PAGE >> 8) || content[17] != 0))
            return SQLITE_IOERR_WRITE;
        int rc = seal(f, r.kind, r.index, content, (unsigned)r.sealed_length, f->buffer);
        if (content == plain) sodium_memzero(plain, sizeof plain);
        if (rc != 0) return SQLITE_IOERR_WRITE;
        rc = f->real->pMethods->xWrite(f->real, f->buffer, r.sealed_length + RESERVE, r.stored_start);
        if (rc != SQLITE_OK) return rc;
        position += n;
    }
    return SQLITE_OK;
}

/* Stored size → the logical size of the complete records it holds (a torn tail does not count). */
static sqlite3_int64 logical_size(int kind, sqlite3_int64 stored) {
    switch (kind) {
    case FILE_MAIN: return stored <= HEADER ? 0 : (stored - HEADER) / PAGE * PAGE;
    case FILE_JOURNAL: return stored / PAGE * PAYLOAD;
    default: {
        if (stored < WAL_SEALED_HEADER) return 0;
        sqlite3_int64 frames = (stored - WAL_SEALED_HEADER) / WAL_SEALED_FRAME;
        sqlite3_int64 rest = (stored - WAL_SEALED_HEADER) % WAL_SEALED_FRAME;
        return WAL_HEADER + frames * WAL_FRAME + (rest >= WAL_SEALED_FRAME_HEADER ? WAL_FRAME_HEADER : 0);
    }
    }
}

/* Logical size → stored size, rounding a partial record up to the whole record. */
static sqlite3_int64 stored_size(int kind, sqlite3_int64 logical) {
    switch (kind) {
    case FILE_MAIN: return HEADER + (logical + PAGE - 1) / PAGE * PAGE;
    case FILE_JOURNAL: return (logical + PAYLOAD - 1) / PAYLOAD * PAGE;
    default: {
        if (logical <= 0) return 0;
        if (logical <= WAL_HEADER) return WAL_SEALED_HEADER;
        sqlite3_int64 frames = (logical - WAL_HEADER) / WAL_FRAME;
        sqlite3_int64 rest = (logical - WAL_HEADER) % WAL_FRAME;
        sqlite3_int64 stored = WAL_SEALED_HEADER + frames * WAL_SEALED_FRAME;
        if (rest > WAL_FRAME_HEADER) return stored + WAL_SEALED_FRAME;
        if (rest > 0) return stored + WAL_SEALED_FRAME_HEADER;
        return stored;
    }
    }
}

static int sealed_truncate(sqlite3_file *file, sqlite3_int64 size) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xTruncate(f->real, stored_size(f->kind, size));
}

static int sealed_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    sealed_file *f = (sealed_file *)file;
    sqlite3_int64 stored = 0;
    int rc = f->real->pMethods->xFileSize(f->real, &stored);
    if (rc == SQLITE_OK) *size = logical_size(f->kind, stored);
    return rc;
}

static int sealed_close(sqlite3_file *file) {
    sealed_file *f = (sealed_file *)file;
    sodium_memzero(f->key, sizeof f->key);
    sodium_memzero(f->buffer, sizeof f->buffer);
    EVP_CIPHER_CTX_free(f->cipher);
    f->cipher = NULL;
    return f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
}

static int sealed_sync(sqlite3_file *file, int flags) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xSync(f->real, flags);
}

static int sealed_lock(sqlite3_file *file, int level) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xLock(f->real, level);
}

static int sealed_unlock(sqlite3_file *file, int level) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xUnlock(f->real, level);
}

static int sealed_check_reserved_lock(sqlite3_file *file, int *out) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xCheckReservedLock(f->real, out);
}

static int sealed_file_control(sqlite3_file *file, int op, void *arg) {
    sealed_file *f = (sealed_file *)file;
    switch (op) {
    /* Size hints and chunks would grow the stored file in logical units: the layout decides sizes. */
    case SQLITE_FCNTL_SIZE_HINT:
    case SQLITE_FCNTL_CHUNK_SIZE: return SQLITE_OK;
    case SQLITE_FCNTL_VFSNAME:
        *(char **)arg = sqlite3_mprintf("%s", sealed_vfs_name);
        return SQLITE_OK;
    default: return f->real->pMethods->xFileControl(f->real, op, arg);
    }
}

static int sealed_sector_size(sqlite3_file *file) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xSectorSize(f->real);
}

static int sealed_device_characteristics(sqlite3_file *file) {
    sealed_file *f = (sealed_file *)file;
    /* Stored records are larger than SQLite's writes, so no write is atomic at the device level. */
    int atomic = SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_ATOMIC512 | SQLITE_IOCAP_ATOMIC1K | SQLITE_IOCAP_ATOMIC2K |
                 SQLITE_IOCAP_ATOMIC4K | SQLITE_IOCAP_ATOMIC8K | SQLITE_IOCAP_ATOMIC16K | SQLITE_IOCAP_ATOMIC32K |
                 SQLITE_IOCAP_ATOMIC64K | SQLITE_IOCAP_BATCH_ATOMIC;
    return f->real->pMethods->xDeviceCharacteristics(f->real) & ~atomic;
}

/* The wal-index (-shm) holds page and frame numbers only, no content: passed through. */
static int sealed_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xShmMap(f->real, page, size, extend, out);
}

static int sealed_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xShmLock(f->real, offset, n, flags);
}

static void sealed_shm_barrier(sqlite3_file *file) {
    sealed_file *f = (sealed_file *)file;
    f->real->pMethods->xShmBarrier(f->real);
}

static int sealed_shm_unmap(sqlite3_file *file, int delete_flag) {
    sealed_file *f = (sealed_file *)file;
    return f->real->pMethods->xShmUnmap(f->real, delete_flag);
}

/* Version 2: shared memory for WAL, and no xFetch, so SQLite never maps the stored (sealed) bytes. */
static const sqlite3_io_methods sealed_io = {
    2,
    sealed_close,
    sealed_read,
    sealed_write,
    sealed_truncate,
    sealed_sync,
    sealed_file_size,
    sealed_lock,
    sealed_unlock,
    sealed_check_reserved_lock,
    sealed_file_control,
    sealed_sector_size,
    sealed_device_characteristics,
    sealed_shm_map,
    sealed_shm_lock,
    sealed_shm_barrier,
    sealed_shm_unmap,
    NULL,
    NULL,
};

/*
 * Opens the main file with the key of the slot its URI names, and the WAL and journal with the key of their
 * main file. Every other file (temporary databases and journals, statement and super journals) is refused:
 * the connection keeps temporaries in memory, and a refusal is loud where a plaintext file would be silent.
 */
static int sealed_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    sealed_file *f = (sealed_file *)file;
    memset(f, 0, sizeof *f);
    if (name == NULL) return SQLITE_CANTOPEN;
    if (flags & SQLITE_OPEN_MAIN_DB) {
        f->kind = FILE_MAIN;
        if (!slot_key((int)sqlite3_uri_int64(name, SIMPLEX_SEALED_KEY_PARAMETER, 0), f->key)) return SQLITE_CANTOPEN;
    } else if (flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL)) {
        f->kind = (flags & SQLITE_OPEN_WAL) ? FILE_WAL : FILE_JOURNAL;
        sqlite3_file *main_file = sqlite3_database_file_object(name);
        if (main_file == NULL || main_file->pMethods != &sealed_io) return SQLITE_CANTOPEN;
        memcpy(f->key, ((sealed_file *)main_file)->key, sizeof f->key);
    } else {
        return SQLITE_CANTOPEN;
    }
    f->real = (sqlite3_file *)&f[1];
    f->cipher = EVP_CIPHER_CTX_new();
    int rc = f->cipher != NULL && EVP_EncryptInit_ex(f->cipher, EVP_chacha20_poly1305(), NULL, NULL, NULL) == 1
                 ? root_vfs()->xOpen(root_vfs(), name, f->real, flags, out_flags)
                 : SQLITE_NOMEM;
    if (rc != SQLITE_OK) {
        sodium_memzero(f->key, sizeof f->key);
        EVP_CIPHER_CTX_free(f->cipher);
        f->cipher = NULL;
        return rc;
    }
    f->base.pMethods = &sealed_io;
    return SQLITE_OK;
}

static int sealed_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    return root_vfs()->xDelete(root_vfs(), name, sync_dir);
}

static int sealed_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return root_vfs()->xAccess(root_vfs(), name, flags, out);
}

static int sealed_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out) {
    (void)vfs;
    return root_vfs()->xFullPathname(root_vfs(), name, n, out);
}

static void *sealed_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return root_vfs()->xDlOpen(root_vfs(), name);
}

static void sealed_dl_error(sqlite3_vfs *vfs, int n, char *out) {
    (void)vfs;
    root_vfs()->xDlError(root_vfs(), n, out);
}

static void (*sealed_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return root_vfs()->xDlSym(root_vfs(), handle, symbol);
}

static void sealed_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    root_vfs()->xDlClose(root_vfs(), handle);
}

static int sealed_randomness(sqlite3_vfs *vfs, int n, char *out) {
    (void)vfs;
    return root_vfs()->xRandomness(root_vfs(), n, out);
}

static int sealed_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return root_vfs()->xSleep(root_vfs(), microseconds);
}

static int sealed_current_time(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return root_vfs()->xCurrentTime(root_vfs(), out);
}

static int sealed_get_last_error(sqlite3_vfs *vfs, int n, char *out) {
    (void)vfs;
    return root_vfs()->xGetLastError(root_vfs(), n, out);
}

static int sealed_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return root_vfs()->xCurrentTimeInt64(root_vfs(), out);
}

static pthread_once_t registration = PTHREAD_ONCE_INIT;
static int registration_result = SQLITE_ERROR;

/* Seals a known record with both libsodium and this file's construction: they must agree byte for byte, so
   the stored format is libsodium's XChaCha20-Poly1305 whichever library did the work. */
static int construction_agrees_with_libsodium(void) {
    unsigned char key[32], nonce[NONCE], ad[13], plain[100], ours[100], theirs[100], tag[TAG], their_tag[TAG];
    for (int i = 0; i < 32; i++) key[i] = (unsigned char)(i * 7 + 1);
    for (int i = 0; i < NONCE; i++) nonce[i] = (unsigned char)(i * 13 + 5);
    for (int i = 0; i < 100; i++) plain[i] = (unsigned char)i;
    associated_data(ad, MAIN_PAGE, 1, sizeof plain);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx != NULL && EVP_EncryptInit_ex(ctx, EVP_chacha20_poly1305(), NULL, NULL, NULL) == 1 &&
             xchacha20poly1305(ctx, 1, key, nonce, ad, sizeof ad, plain, sizeof plain, ours, tag) == 0 &&
             crypto_aead_xchacha20poly1305_ietf_encrypt_detached(theirs, their_tag, NULL, plain, sizeof plain, ad,
                                                                 sizeof ad, NULL, nonce, key) == 0 &&
             memcmp(ours, theirs, sizeof ours) == 0 && memcmp(tag, their_tag, TAG) == 0 &&
             xchacha20poly1305(ctx, 0, key, nonce, ad, sizeof ad, ours, sizeof ours, ours, tag) == 0 &&
             memcmp(ours, plain, sizeof plain) == 0;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

static void register_once(void) {
    if (sodium_init() < 0 || !construction_agrees_with_libsodium()) return;
    sqlite3_vfs *root = sqlite3_vfs_find(NULL);
    if (root == NULL) return;
    snprintf(sealed_vfs_name, sizeof sealed_vfs_name, "%s-%jx", SIMPLEX_SEALED_VFS_NAME, (uintmax_t)(uintptr_t)&sealed_vfs);
    sealed_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(sealed_file) + root->szOsFile,
        .mxPathname = root->mxPathname,
        .zName = sealed_vfs_name,
        .pAppData = root,
        .xOpen = sealed_open,
        .xDelete = sealed_delete,
        .xAccess = sealed_access,
        .xFullPathname = sealed_full_pathname,
        .xDlOpen = sealed_dl_open,
        .xDlError = sealed_dl_error,
        .xDlSym = sealed_dl_sym,
        .xDlClose = sealed_dl_close,
        .xRandomness = sealed_randomness,
        .xSleep = sealed_sleep,
        .xCurrentTime = sealed_current_time,
        .xGetLastError = sealed_get_last_error,
        .xCurrentTimeInt64 = sealed_current_time_int64,
    };
    registration_result = sqlite3_vfs_register(&sealed_vfs, 0);
}

int simplex_sealed_vfs_register(void) {
    pthread_once(&registration, register_once);
    return registration_result;
}

const char *simplex_sealed_vfs_name(void) { return sealed_vfs_name; }
