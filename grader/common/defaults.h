/*
 * defaults.h - every default and bound that more than one program or
 * document states, written once. --help texts print these values, and
 * tests check the README against --help.
 */
#ifndef BUTTERFLY_DEFAULTS_H
#define BUTTERFLY_DEFAULTS_H

/* Grading: one deadline covers compile, the driver's compile and the run;
 * every program's --help says so in these words. */
#define DEADLINE_MEANING           "bound on grading one submission"
#define DEFAULT_DEADLINE_MS        5000u
#define MAX_DEADLINE_MS            600000u   /* ten minutes */
/* Seeds are exact in a JSON number (a double) up to 2^53 - 1. */
#define MAX_SEED                   ((1ull << 53) - 1)

/* Compiler text in a verdict (grader/engine/compile_text.h). glslang
 * echoes the body into its messages; each piece is cut to its bound after
 * every control character was made a visible escape, so the answer to any
 * body stays within MAX_ANSWER_BYTES. */
#define COMPILE_MAX_MESSAGE_BYTES  512u            /* one diagnostic's message, or its original */
#define COMPILE_MAX_DIAG_BYTES     (16u * 1024u)   /* every diagnostic's texts together */
#define COMPILE_MAX_LOG_BYTES      (16u * 1024u)   /* the raw compiler log (compile_log) */
/* A verdict's JSON, the largest answer to any accepted body: four times the
 * body limit (TASK_MAX_SOURCE, 64 KiB). A verdict the grader finds larger
 * loses its compiler text (grader/engine/grade.c). */
#define MAX_ANSWER_BYTES           (256u * 1024u)

/* The worker pool. */
#define MAX_WORKERS                64u
/* Jobs waiting, all clients together: a bound on memory only. Admission
 * is decided by the expected wait (DEFAULT_MAX_WAIT_MS) and the client's
 * share (DEFAULT_PER_CLIENT_QUEUE). */
#define DEFAULT_QUEUE_LENGTH       1024u
#define DEFAULT_PER_CLIENT_QUEUE   3u        /* jobs one client may have waiting */
#define DEFAULT_MAX_WAIT_MS        20000u    /* admit while the expected wait is below */
#define MAX_QUEUE_LENGTH           100000u
#define DEFAULT_RECYCLE_AFTER      1000u     /* jobs per worker before it is replaced */
#define MAX_RECYCLE_AFTER          1000000000u
#define DEFAULT_START_TIMEOUT_MS   30000u    /* a new worker must be warm by then */
#define DEFAULT_CPU_MEMORY_MB      3072u     /* address-space cap on a CPU device */
/* A worker's own bound on a job is the supervisor's deadline plus this:
 * the supervisor's kill always comes first. */
#define WORKER_DEADLINE_MARGIN_MS  1000u
/* Kernels a worker keeps (engine/kernel_cache.h); the supervisor's record
 * of which bodies each worker holds is exactly as long (pool/). */
#define KERNEL_CACHE_ENTRIES       32u

/* The HTTP server. */
#define DEFAULT_PORT               8080u
#define DEFAULT_BIND               "127.0.0.1"
#define DEFAULT_MAX_CONNECTIONS    512u
#define DEFAULT_PER_IP_CONNECTIONS 64u
#define MAX_CONNECTIONS_LIMIT      100000u
#define DEFAULT_IDLE_TIMEOUT_S     15u
#define MAX_IDLE_TIMEOUT_S         3600u
#define DEFAULT_CONNECTION_MEMORY  (64u * 1024u)
/* Behind a proxy: the header it writes the client into (deploy/nginx.conf
 * sets X-Forwarded-For), and the bits of an IPv6 address that name one
 * client for the fair share (a /64 is one home or one host). */
#define DEFAULT_PROXY_HEADER       "X-Forwarded-For"
#define DEFAULT_IPV6_CLIENT_PREFIX 64u

/* The records (grader/store/). */
#define DEFAULT_STATE_SUBDIR       "butterfly-grader"  /* under $XDG_STATE_HOME or ~/.local/state */
#define STORE_FILE_NAME            "records.sqlite"     /* the SQLite store in the state folder */
#define DEFAULT_STORE_QUEUE        4096u     /* jobs waiting for the store's writer thread */
#define DEFAULT_STORE_BATCH        64u       /* records the writer puts in one commit */
#define DEFAULT_STORE_BUSY_MS      5000u     /* SQLite's busy timeout; PostgreSQL's lock_timeout */
#define DEFAULT_STORE_CONNECT_S    5u        /* PostgreSQL's connect_timeout */
#define MAX_RETENTION_DAYS         36500u    /* --retention-days: a hundred years */

/* Sessions and the records over HTTP (server/). */
#define DEFAULT_RETENTION_DAYS     0u        /* keep records for ever */
#define RETENTION_SWEEP_S          3600u     /* how often old records are removed */
#define SESSION_COOKIE             "butterfly_session"
#define SESSION_LIFETIME_S         (14u * 24u * 3600u)   /* a cookie lasts two weeks */
#define CREDENTIALS_REFRESH_S      3u        /* the current tokens are read this often: a renewal
                                                ends old sessions within twice this */
#define CREDENTIALS_MAX_STUDENTS   1000000u  /* students the table of current tokens holds */
#define MAX_DISPLAY_NAME_BYTES     64u       /* an open lab's display name, UTF-8 */
#define TOKEN_FAILURES_PER_WINDOW  20u       /* wrong tokens one client may send ... */
#define TOKEN_FAILURE_WINDOW_S     600u      /* ... in this many seconds, then 429 */
#define MAX_PAGE_SIZE              100u      /* records per page of a listing */
#define DEFAULT_PAGE_SIZE          20u
#define MAX_DETACHED               4096u     /* ?wait=false jobs in flight or unrecorded */
#define DETACHED_KEEP_S            600u      /* an unrecorded detached verdict is kept this long */
#define CSRF_HEADER                "X-Requested-With"   /* the page sends it on every POST */

#endif
