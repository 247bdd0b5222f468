/* A C program written against simplex.h alone: links libsimplex and runs commands through it.
 *
 *   abi_client basic PREFIX                    commands, events, files, close/reopen, bad input
 *   abi_client concurrency PREFIX THREADS N    THREADS threads send N commands each while one thread polls events:
 *                                              every answer must match its request, every event must be seen once
 *   abi_client lines PREFIX                    a line driver for scripts: each stdin line `cmd TEXT` runs
 *                                              chat_send_cmd, `remote HOST_ID TEXT` chat_send_remote_cmd; each answer
 *                                              is written `A JSON`, each event from chat_recv_msg_wait `E JSON`,
 *                                              one per line; end of input closes the store
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "simplex.h"

static atomic_int failures = 0;

static void check(int ok, const char *what, const char *got) {
    if (!ok && atomic_fetch_add(&failures, 1) < 10) fprintf(stderr, "FAIL: %s: %s\n", what, got ? got : "(null)");
}

/* Runs a command and checks that its answer contains `expect`. */
static void expect(chat_ctrl ctrl, const char *cmd, const char *expect_text) {
    char *r = chat_send_cmd(ctrl, cmd);
    check(r != NULL && strstr(r, expect_text) != NULL, cmd, r);
    free(r);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static chat_ctrl open_store(const char *prefix) {
    chat_ctrl ctrl = NULL;
    char *r = chat_migrate_init(prefix, "", "yesUp", &ctrl);
    check(strcmp(r, "{\"type\":\"ok\"}") == 0 && ctrl != NULL, "chat_migrate_init", r);
    free(r);
    return ctrl;
}

static int basic(const char *prefix) {
    int argc = 1;
    char *args[] = {"abi_client", "+RTS", "-A64m", "-RTS", NULL};
    char **argv = args;
    hs_init_with_rtsopts(&argc, &argv);

    chat_ctrl ctrl = open_store(prefix);
    expect(ctrl, "/user", "\"noActiveUser\"");
    expect(ctrl, "/create user alice", "\"activeUser\"");
    expect(ctrl, "/users", "\"usersList\"");
    expect(ctrl, "/_get chats 1 pcc=on", "\"apiChats\"");
    expect(ctrl, "/_start", "\"chatStarted\"");
    expect(ctrl, "/_app suspend 0", "\"cmdOk\"");
    char *event = chat_recv_msg(ctrl);
    check(strcmp(event, "{\"result\":{\"type\":\"chatSuspended\"}}") == 0, "chat_recv_msg", event);
    free(event);
    event = chat_recv_msg_wait(ctrl, 20000);
    check(strcmp(event, "") == 0, "chat_recv_msg_wait timeout", event);
    free(event);

    /* An encrypted file written, then read back in the layout of chat-api.md §9.3. */
    char path[4096];
    snprintf(path, sizeof path, "%s_file", prefix);
    const uint8_t data[] = "the contents of a file";
    char *written = chat_write_file(ctrl, path, data, (int)sizeof data);
    char key[128] = {0}, nonce[128] = {0};
    const char *k = strstr(written, "\"fileKey\":\""), *n = strstr(written, "\"fileNonce\":\"");
    check(k != NULL && n != NULL, "chat_write_file", written);
    if (k && n) {
        sscanf(k + 11, "%127[^\"]", key);
        sscanf(n + 13, "%127[^\"]", nonce);
    }
    free(written);
    uint8_t *read = chat_read_file(path, key, nonce);
    uint32_t length;
    memcpy(&length, read + 1, 4);
    check(read[0] == 0 && length == sizeof data && memcmp(read + 5, data, sizeof data) == 0, "chat_read_file", NULL);
    free(read);
    read = chat_read_file(path, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", nonce);
    check(read[0] == 1 && strcmp((char *)read + 1, "FTCEInvalidAuthTag") == 0, "chat_read_file with a wrong key",
          (char *)read + 1);
    free(read);

    /* Bad input answers, never crashes. */
    char *r = chat_send_cmd(NULL, "/users");
    check(strstr(r, "chat controller is NULL") != NULL, "NULL controller", r);
    free(r);
    r = chat_send_cmd(ctrl, "/u\xff\xfe");
    check(strstr(r, "\"commandError\"") != NULL, "invalid UTF-8", r);
    free(r);
    r = chat_decrypt_file("/nonexistent/file", key, nonce, "/nonexistent/out");
    check(strstr(r, "No such file or directory") != NULL, "missing file", r);
    free(r);
    chat_ctrl unused = NULL;
    r = chat_migrate_init(prefix, "a wrong key", "yesUp", &unused);
    check(strstr(r, "\"errorNotADatabase\"") != NULL && unused == NULL, "wrong key", r);
    free(r);
    check(chat_json_length("a\"b") == 4, "chat_json_length", NULL);
    r = chat_valid_name(" @alice ");
    check(strcmp(r, "alice") == 0, "chat_valid_name", r);
    free(r);

    expect(ctrl, "/_stop", "\"chatStopped\"");
    r = chat_close_store(ctrl);
    check(strcmp(r, "") == 0, "chat_close_store", r);
    free(r);
    r = chat_reopen_store(ctrl);
    check(strcmp(r, "") == 0, "chat_reopen_store", r);
    free(r);
    expect(ctrl, "/users", "\"localDisplayName\":\"alice\"");
    r = chat_close_store(ctrl);
    free(r);

    /* The same store, opened again by a second controller. */
    chat_ctrl again = open_store(prefix);
    expect(again, "/user", "\"localDisplayName\":\"alice\"");
    if (atomic_load(&failures) == 0) printf("basic: ok\n");
    return atomic_load(&failures) == 0 ? 0 : 1;
}

struct sender {
    chat_ctrl ctrl;
    int index;
    int count;
    int suspends;
};

static atomic_int senders_left;

/* Each command names a user id no other command uses, which is not the active user's: the core's answer
 * (differentActiveUser) must name it back. Every 50th command is a
 * suspension, which answers cmdOk and queues one chatSuspended event. */
static void *send_commands(void *arg) {
    struct sender *s = arg;
    char cmd[64], expected[64];
    for (int i = 0; i < s->count; i++) {
        char *r;
        if (i % 50 == 49) {
            r = chat_send_cmd(s->ctrl, "/_app suspend 0");
            check(strcmp(r, "{\"result\":{\"type\":\"cmdOk\"}}") == 0, "/_app suspend 0", r);
            s->suspends++;
        } else {
            long id = 1000000L * (s->index + 1) + i;
            snprintf(cmd, sizeof cmd, "/_get chats %ld", id);
            snprintf(expected, sizeof expected, "\"commandUserId\":%ld,", id);
            r = chat_send_cmd(s->ctrl, cmd);
            check(strstr(r, "\"differentActiveUser\"") != NULL && strstr(r, expected) != NULL, cmd, r);
        }
        free(r);
    }
    atomic_fetch_sub(&senders_left, 1);
    return NULL;
}

struct poller {
    chat_ctrl ctrl;
    long events;
    long unexpected;
};

static void *poll_events(void *arg) {
    struct poller *p = arg;
    for (;;) {
        char *e = chat_recv_msg_wait(p->ctrl, 200000);
        int timeout = e[0] == 0;
        if (!timeout) {
            if (strcmp(e, "{\"result\":{\"type\":\"chatSuspended\"}}") == 0)
                p->events++;
            else
                p->unexpected++;
        }
        free(e);
        if (timeout && atomic_load(&senders_left) == 0) break;
    }
    return NULL;
}

static int concurrency(const char *prefix, int threads, int count) {
    chat_ctrl ctrl = open_store(prefix);
    expect(ctrl, "/create user alice", "\"activeUser\"");
    expect(ctrl, "/_start", "\"chatStarted\"");
    atomic_store(&senders_left, threads);
    struct poller p = {ctrl, 0, 0};
    pthread_t poller_thread;
    pthread_create(&poller_thread, NULL, poll_events, &p);
    struct sender *s = calloc((size_t)threads, sizeof *s);
    pthread_t *ts = calloc((size_t)threads, sizeof *ts);
    double start = now();
    for (int i = 0; i < threads; i++) {
        s[i] = (struct sender){ctrl, i, count, 0};
        pthread_create(&ts[i], NULL, send_commands, &s[i]);
    }
    long suspends = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(ts[i], NULL);
        suspends += s[i].suspends;
    }
    double elapsed = now() - start;
    pthread_join(poller_thread, NULL);
    char detail[128];
    snprintf(detail, sizeof detail, "%ld events for %ld suspensions, %ld unexpected", p.events, suspends, p.unexpected);
    check(p.events == suspends && p.unexpected == 0, "every event seen once", detail);
    printf("concurrency: %d threads x %d commands in %.2f s (%.0f commands/s); %s\n", threads, count, elapsed,
           threads * count / elapsed, detail);
    free(s);
    free(ts);
    return atomic_load(&failures) == 0 ? 0 : 1;
}

/* One writer at a time, so an answer and an event never interleave on a line. */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int lines_done = 0;

static void put_line(char kind, const char *json) {
    pthread_mutex_lock(&out_lock);
    printf("%c %s\n", kind, json);
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}

static void *relay_events(void *arg) {
    chat_ctrl ctrl = arg;
    while (!atomic_load(&lines_done)) {
        char *e = chat_recv_msg_wait(ctrl, 100000);
        if (e[0] != 0) put_line('E', e);
        free(e);
    }
    return NULL;
}

static int lines(const char *prefix) {
    hs_init_with_rtsopts(NULL, NULL);
    chat_ctrl ctrl = NULL;
    char *r = chat_migrate_init(prefix, "", "yesUp", &ctrl);
    put_line('A', r);
    int opened = ctrl != NULL;
    free(r);
    if (!opened) return 1;
    pthread_t relay;
    pthread_create(&relay, NULL, relay_events, ctrl);
    char *line = NULL;
    size_t size = 0;
    ssize_t n;
    while ((n = getline(&line, &size, stdin)) > 0) {
        if (line[n - 1] == '\n') line[--n] = 0;
        char *answer = NULL;
        int host_id = 0, skip = 0;
        if (strncmp(line, "cmd ", 4) == 0)
            answer = chat_send_cmd(ctrl, line + 4);
        else if (sscanf(line, "remote %d %n", &host_id, &skip) == 1 && skip > 0)
            answer = chat_send_remote_cmd(ctrl, host_id, line + skip);
        if (answer) {
            put_line('A', answer);
            free(answer);
        } else {
            put_line('A', "{\"driverError\":\"expected `cmd TEXT` or `remote HOST_ID TEXT`\"}");
        }
    }
    free(line);
    atomic_store(&lines_done, 1);
    pthread_join(relay, NULL);
    free(chat_close_store(ctrl));
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "lines") == 0) return lines(argv[2]);
    if (argc == 3 && strcmp(argv[1], "basic") == 0) return basic(argv[2]);
    if (argc == 5 && strcmp(argv[1], "concurrency") == 0) return concurrency(argv[2], atoi(argv[3]), atoi(argv[4]));
    fprintf(stderr, "usage: abi_client basic PREFIX | concurrency PREFIX THREADS N | lines PREFIX\n");
    return 2;
}
