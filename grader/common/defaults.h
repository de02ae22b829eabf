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
/* What a body may cost, counted on its code before anything that takes
 * time grows with it, so that a verdict never depends on how fast the
 * machine is (docs/VERDICT.md, "What a body can reach"): each bound is far
 * above every legitimate kernel (tests/unit/test_cost_bounds.c measures
 * the samples against them) and far below what could take the deadline
 * on a machine four times slower than the 2-core VM the figures are from.
 * Tokens the preprocessor handles, macro expansions included: counted
 * before glslang runs (grader/engine/checks/macro_cost.h). */
#define MAX_PREPROCESSED_TOKENS    100000u
/* Operators in one statement once macros are expanded (a+a+...+a):
 * glslang's tree is as deep as the chain and its walks recurse once per
 * operator, so a long chain crashes the compiler at a depth that depends
 * on the build (a sanitizer's frames are larger), and the time the crash
 * takes to be seen decided the verdict. Counted with the tokens above;
 * a butterfly's longest statement has about 15. */
#define MAX_EXPRESSION_OPERATORS   1000u
/* Cost units of the kernel once every call is inlined, as every driver
 * does (grader/engine/checks/spirv_cost.h): an instruction is 1 unit, a
 * transcendental function (sin, cos, exp, pow, atan, ...) is
 * COST_TRANSCENDENTAL_UNITS, since lavapipe's LLVM compiles each into a
 * long polynomial. */
#define MAX_KERNEL_COST_UNITS      30000u
#define COST_TRANSCENDENTAL_UNITS  100u
/* Cost units one thread may execute, each loop's code counted for every
 * iteration the largest loop budget allows (MAX_LOOP_BUDGET + 1). */
#define MAX_RUN_COST_UNITS         10000000u
/* The largest loop budget an exercise may give (its loop_budget: loop
 * iterations one thread may take, all loops together; see
 * grader/engine/checks/spirv_loops.h). Far below lavapipe's silent cap of
 * 65,535 iterations per loop, so that the driver never decides a verdict;
 * the static cost bound counts every loop at it. */
#define MAX_LOOP_BUDGET            10000u
/* Seeds are exact in a JSON number (a double) up to 2^53 - 1. */
#define MAX_SEED                   ((1ull << 53) - 1)

/* Compiler text in a verdict (grader/engine/compile/compile_text.h). glslang
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
/* The check on load (common/exercise/exercise_check.h): how long an
 * exercise's reference may take over all of its runs, twice, in the child
 * that probes it; a C reference of a few dozen cells takes microseconds. */
#define EXERCISE_REFERENCE_PROBE_MS 2000u
/* Longest problem message the check keeps (a file name and what it got). */
#define EXERCISE_CHECK_MESSAGE_MAX  512u
/* Kernels a worker keeps (engine/kernel_cache.h); the supervisor's record
 * of which bodies each worker holds is exactly as long (pool/). */
#define KERNEL_CACHE_ENTRIES       32u

/* The HTTP server. */
#define DEFAULT_PORT               8080u
#define DEFAULT_BIND               "127.0.0.1"
#define DEFAULT_MAX_CONNECTIONS    512u
#define DEFAULT_PER_IP_CONNECTIONS 64u
#define MAX_CONNECTIONS_LIMIT      100000u
/* exercises one server serves (--exercises, default all of the registry) */
#define MAX_SERVED_EXERCISES       64u
#define DEFAULT_IDLE_TIMEOUT_S     15u
/* A connection waiting for a request (just opened, or its last answer
 * sent) must have sent the whole header within this many seconds, however
 * it trickles it, or it is closed (server/conn_limit.h). A header is a
 * packet or two: a few round trips, even on a poor link. A trusted proxy
 * has its own (nginx: client_header_timeout) and is exempt. */
#define HEADER_DEADLINE_S          5         /* no suffix: --help spells it (HEADER_DEADLINE_TEXT) */
#define DEFAULTS_STR_(x)           #x
#define DEFAULTS_XSTR_(x)          DEFAULTS_STR_(x)
#define HEADER_DEADLINE_TEXT       DEFAULTS_XSTR_(HEADER_DEADLINE_S)
#define HEADER_DEADLINE_CHECK_MS   250u      /* how often the deadline is looked at */
/* Connections let in past --max-connections when none of those open waits
 * for a header (so none can be dropped to make room): each is answered
 * 503 and closed, rather than left unanswered in the listen queue. */
#define CONNECTION_SPARE           32u
#define CONNECTION_RETRY_AFTER_S   2u        /* their 503's, and a forwarded client's 429 */
/* libmicrohttpd's own messages on stderr: at most this many in a window,
 * then one line saying how many were left out. Each connection closed
 * mid-header writes one, and an attacker opens them by the thousand. */
#define HTTP_LOG_BURST             20u
#define HTTP_LOG_WINDOW_S          60u
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
#define STORE_STATEMENT_TIMEOUT_MS 30000u    /* PostgreSQL's statement_timeout: no statement of ours takes near this */
/* How long a PostgreSQL connection may keep us waiting for its next answer
 * (or to take what we send) before it is dropped as gone: past its own
 * statement_timeout, for a server that is alive but does not answer (a
 * frozen host, a stalled disk, a proxy whose far side is gone), where no
 * TCP timeout fires since the peer's kernel still acknowledges. */
#define STORE_PG_ANSWER_MS         35000u
#define MAX_RETENTION_DAYS         36500u    /* --retention-days: a hundred years */
/* The store's size limit (--store-max-mb, MiB; 0: none): past it a record
 * of a client not signed in as a student is not kept (recorded: false,
 * store_limit) while students' records still go in. Far below a disk that
 * holds a term's class (about 10 KB a record), far above what a flood of
 * budgets below can reach before an operator sees it. */
#define DEFAULT_STORE_MAX_MB       1024u
#define MAX_STORE_MAX_MB           (1u << 24)   /* 16 TiB */
#define STORE_SIZE_POLL_S          2u        /* the store's size is read this often */
/* What a client that is not a signed-in student (signed out, or an open
 * lab's unverified name) may have kept, per client as the fair share keys
 * it, in every window (server/record_budget.h); past it the answer says
 * recorded: false (over_budget) and grading goes on. A lab behind one
 * address shares one budget: 300 attempts in 10 minutes (--guest-records,
 * --guest-mb raise it). */
#define DEFAULT_GUEST_RECORDS        300u
#define DEFAULT_GUEST_MB             2u       /* MiB: source, verdict and overhead */
#define MAX_GUEST_BUDGET             1000000u
#define UNTRUSTED_BUDGET_WINDOW_S    600u
/* Of such a client's body, a record keeps the source up to this many
 * bytes (a butterfly is under 2 KB); a longer one is kept as its SHA-256
 * only, with the verdict. */
#define UNTRUSTED_SOURCE_KEPT        (16u * 1024u)
/* A record's columns and index entries besides its source and verdict, as
 * the budget and the size between two reads of it count them. */
#define RECORD_OVERHEAD_BYTES        512u

/* A roster (butterfly-admin class import, butterfly-batch --roster): what
 * one student's row may hold; a longer cell is refused, naming its line.
 * An id is carried whole in a session cookie (server/session.h) and in the
 * store (STORE_MAX_STUDENT_ID); a name is shown on the page and in every
 * gradebook. */
#define ROSTER_ID_MAX              159       /* bytes of a student's id; no suffix: messages spell it */
#define ROSTER_NAME_MAX            256       /* bytes of a student's name */

/* Sessions and the records over HTTP (server/). */
#define DEFAULT_RETENTION_DAYS     0u        /* keep records for ever */
#define RETENTION_SWEEP_S          3600u     /* how often old records are removed */
/* Over TLS every cookie of ours is named with COOKIE_HOST_PREFIX
 * (__Host-: Secure, Path=/, no Domain), so that no sibling host
 * (a.example.edu next to grader.example.edu) and no plain-http page can
 * set one the browser would send us; over plain http the bare name. */
#define COOKIE_HOST_PREFIX         "__Host-"
#define SESSION_COOKIE             "butterfly_session"
#define SESSION_LIFETIME_S         (14u * 24u * 3600u)   /* a cookie lasts two weeks */
/* An instructor an LTI launch signed in: a working day. No token of ours
 * stands behind it (the platform vouched, once), so nothing renewed can end
 * it; whoever the course no longer lists as its teacher loses the class
 * view (students' code) by the next morning, not in two weeks. A new
 * launch from the course makes a new one. */
#define LTI_INSTRUCTOR_SESSION_S   (12u * 3600u)
/* A personal link opened on a page signed in as nobody signs it in only
 * once the page asks "Sign in as NAME?" and is answered: meanwhile this
 * signed cookie holds who the link was for, for ten minutes. (A link a
 * classmate sent would otherwise sign you in as them, silently.) */
#define PENDING_COOKIE             "butterfly_pending"
#define PENDING_LIFETIME_S         600u
/* bytes of a session or pending cookie's value, signed (what is read; a
 * browser keeps 4096): one that would be longer with its section is made
 * without it (session.c), and the Set-Cookie header that carries it is at
 * most SESSION_HEADER_MAX */
#define SESSION_VALUE_MAX          2048u
#define SESSION_HEADER_MAX         (SESSION_VALUE_MAX + 256u)
#define CREDENTIALS_REFRESH_S      3u        /* the current tokens are read this often: a renewal
                                                ends old sessions within twice this */
#define CREDENTIALS_MAX_STUDENTS   1000000u  /* students the table of current tokens holds */
#define IDENTITY_POLL_MS           500u      /* the store's changes of who may sign in (forget,
                                                renewed tokens: butterfly-admin) are read this
                                                often: sessions and class views follow within
                                                it and a read (the bound: 2 s) */
#define IDENTITY_CHANGES_KEEP_MS   86400000u /* a change's row is kept this long (one day) */
#define IDENTITY_CHANGES_PER_READ  1000u     /* changes read at once; more: read again */
#define MAX_DISPLAY_NAME_BYTES     64u       /* an open lab's display name, UTF-8 */
#define GUEST_NAME_SUFFIX_MAX      99u       /* a second "Zoë" in an open lab is "Zoë (2)", ...;
                                                past this many, the name is refused */
#define TOKEN_FAILURES_PER_WINDOW  20u       /* wrong tokens one client may send ... */
#define TOKEN_FAILURE_WINDOW_S     600u      /* ... in this many seconds, then 429 */
#define SIGN_INS_PER_WINDOW        300u      /* new guest sessions and LTI logins one client
                                                (a lab behind one address) may start ... */
#define SIGN_IN_WINDOW_S           60u       /* ... in this many seconds, then 429: each
                                                is a write to the store */
#define MAX_PAGE_SIZE              100u      /* records per page of a listing */
#define DEFAULT_PAGE_SIZE          20u
#define MAX_DETACHED               4096u     /* ?wait=false jobs in flight or unrecorded */
#define DETACHED_KEEP_S            600u      /* an unrecorded detached verdict is kept this long */
#define CSRF_HEADER                "X-Requested-With"   /* the page sends it on every POST */
/* Idempotency-Key on a submission (issue 31 item 6; the IETF draft's and
 * Stripe's header): the same key and body from the same principal within
 * the window answer the first record again, with the replay header. A
 * key is 1 to IDEMPOTENCY_KEY_MAX bytes of letters, digits and
 * IDEMPOTENCY_KEY_PUNCT (a UUID, base64url, a counter); else 400. */
#define IDEMPOTENCY_HEADER         "Idempotency-Key"
#define IDEMPOTENCY_REPLAY_HEADER  "Idempotent-Replayed"   /* "true" on an answer replayed */
#define IDEMPOTENCY_KEY_MAX        255u
#define IDEMPOTENCY_KEY_PUNCT      "-_.:+/="
#define IDEMPOTENCY_WINDOW_S       (24u * 3600u)   /* a day, as the draft suggests */
#define IDEMPOTENCY_IN_FLIGHT_MAX  4096u   /* keyed submissions being graded at once, per
                                              instance; past it 503 */
#define IDEMPOTENCY_RETRY_AFTER_S  2u      /* a key whose first request is being graded: 409 */

/* The live class view (server/class_*.c). */
#define DEFAULT_CLASS_STREAMS      64u       /* live event streams open at once; 503 past it */
#define MAX_CLASS_STREAMS          10000u
#define DEFAULT_HEARTBEAT_S        15u       /* a comment on every stream this often */
#define MAX_HEARTBEAT_S            20u       /* the bound: at least every 20 s */
#define DEFAULT_STUCK_ATTEMPTS     5u        /* stuck: this many attempts without passing ... */
#define DEFAULT_STUCK_MINUTES      10u       /* ... over at least this many minutes, or ... */
#define DEFAULT_STUCK_REPEATS      3u        /* ... the same mistake this many times in a row */
#define MAX_STUCK_VALUE            1000u
#define CLASS_SILENT_MINUTES       10u       /* silent: no attempt for this long (or none) */
#define CLASS_STREAM_BUFFER_MAX    (1u << 20)  /* bytes a slow view may fall behind; then closed */
#define CLASS_MAX_RECORDS          200000u   /* records the view keeps for replay and the chart */
#define CLASS_REPLAY_SLACK_MS      5000u     /* a replay also resends records graded this long
                                              * before the last one seen (another instance's
                                              * order); the page drops the ones it has */
#define CLASS_REPLAY_MAX_RECORDS   5000u     /* a reconnecting view missed more: a reset */
#define CLASS_REPLAY_MAX_BYTES     (CLASS_STREAM_BUFFER_MAX / 2)  /* ... or a replay this
                                              * long: a reset (the view reloads) rather than a
                                              * stream closed at once, for ever; the other half
                                              * is for events while it is read. The slack's
                                              * records fill what is left, nearest first */
#define CLASS_TOP_MISTAKES         5u        /* mistakes and compile errors in the summary */
#define CLASS_SERIES_POINTS        120u      /* points of the share-Accepted chart */
#define CLASS_MAX_ATTEMPTS         100u      /* attempts of one student in its history */
#define CLASS_MAX_TASKS            16u       /* exercises the class view tells apart (the built-in
                                              * ones first); a record of one more counts in the
                                              * whole class's figures only */
#define CLASS_GRADEBOOKS_AT_ONCE   1u        /* gradebook downloads being written at once (each
                                              * reads every record on the reader's thread) */
#define CLASS_GRADEBOOK_MAX_BYTES  (64u << 20)  /* of one download; past it, 503 and
                                                 * butterfly-batch --from-database */
/* An open lab's Canvas or Moodle download is refused (409 open_lab) with
 * this sentence, %s the system; the class view says it beside the buttons */
#define OPEN_LAB_LMS_REFUSED       "This is an open lab (no roster): its names are what the " \
                                   "students typed and its ids this server's own, which %s " \
                                   "cannot match to its users. Download the Gradebook (CSV) " \
                                   "(?layout=default), or import the roster before the lab " \
                                   "(butterfly-admin class import ROSTER.csv)."
#define CLASS_LTI_REFRESH_MS       3000u     /* the class view reads the LTI classes and the
                                              * scores not sent this often (and on a launch) */
#define CLASS_LISTEN_RETRY_S       3u        /* PostgreSQL listener: reconnect this often */

/* LTI 1.3 (server/lti_*.c, grader/store/store_lti.c). */
#define LTI_STATE_LIFETIME_S       600u      /* a login's state and nonce are good this long */
#define LTI_STATE_COOKIE           "butterfly_lti_state"
#define LTI_LAUNCH_HEADER          "X-Butterfly-Launch"  /* a submission's launch tag (the
                                              * page's #launch=, server/lti_tag.h) */
#define LTI_MAX_ID_TOKEN           (64u * 1024u)    /* bytes of an id_token */
#define LTI_MAX_FORM               (80u * 1024u)    /* bytes of a login's or launch's form */
#define LTI_MAX_KEY_SET            (256u * 1024u)   /* bytes of a platform's key set */
#define LTI_MAX_ANSWER             (64u * 1024u)    /* bytes of a token or score answer */
#define LTI_FETCH_TIMEOUT_MS       3000u     /* a key set fetch, all of it */
#define LTI_CONNECT_TIMEOUT_MS     2000u
#define LTI_SEND_TIMEOUT_MS        10000u    /* a token request or a score, all of it */
#define LTI_KEY_SET_TTL_S          300u      /* a platform's key set is kept this long */
#define LTI_KEY_SET_REFETCH_S      5u        /* a key set is fetched at most this often (an
                                                unknown kid, a platform that failed) */
#define LTI_KEY_SET_WAITERS        64u       /* launches of one platform waiting for its key
                                                set's fetch; past it they are decided at once */
#define LTI_MAX_JWT_HEADER         4096u     /* bytes of an id_token's header, base64url */
#define LTI_CLOCK_SKEW_S           60u       /* iat may be this far ahead of our clock */
#define LTI_KEY_OVERLAP_S          (7u * 24u * 3600u)  /* a rotated-out key stays published */
#define LTI_KEYS_REFRESH_S         5u        /* the server rereads its keys (rotate-key) */
#define LTI_QUEUE_LENGTH           256u      /* logins and launches waiting for the LTI thread */
#define LTI_ASSERTION_LIFETIME_S   300u      /* the exp of our client assertion */
#define LTI_RETRY_FIRST_MS         1000u     /* a score that failed is tried again after ... */
#define LTI_RETRY_MAX_MS           60000u    /* ... doubling up to this */
#define LTI_SEND_ATTEMPTS          50u       /* then it is marked failed */
#define LTI_SENDER_POLL_MS         500u      /* the outbox is read this often when idle */
#define LTI_MAKE_LEASE_MS          60000u    /* a line item being made is one sender's this
                                                long (past its token, look-up and creation
                                                calls); a failure is tried again then */
#define LTI_RSA_BITS               2048u
/* Deep Linking 2.0 and the Canvas configuration (server/lti/lti_deep_link.c). */
#define LTI_CHOICE_LIFETIME_S      600u      /* a deep-linking chooser's choice is good this long */
#define LTI_CHOICE_COOKIE          "butterfly_lti_choice"  /* binds the choice to the browser */
#define LTI_MAX_DL_DATA            1024u     /* bytes of the platform's deep-linking data echoed */
#define LTI_TOOL_TITLE             "Butterfly grader"
#define LTI_TOOL_DESCRIPTION       "GPU-programming exercises graded on the server: the " \
                                   "student's kernel runs, each output cell is checked, " \
                                   "and the score goes to the gradebook."
#define LTI_CANVAS_PRIVACY         "name_only"   /* the class view needs names, never emails */
/* Dynamic Registration 1.0 (server/lti/lti_register.c, butterfly-admin lti registration-url). */
#define LTI_REGISTRATION_LIFETIME_S 3600u    /* a one-time registration address is good this long */
#define LTI_MAX_REG_CONFIG         (64u * 1024u)   /* bytes of a platform's openid configuration */
#define LTI_MAX_REG_TOKEN          4096u     /* bytes of the platform's registration_token */
#define LTI_MAX_REG_URL            1024u     /* bytes of the openid_configuration address */
#define LTI_UNKNOWN_PLATFORM_TRIES 3u        /* a score of a platform this instance does not
                                                know is tried this often (another instance may
                                                have just registered it), then failed */
/* Names and Role Provisioning Services 2.0: the course's roster
 * (server/lti/lti_nrps.c). A read is every page of it, each page bounded
 * in time, all of them in count and bytes. */
#define LTI_NRPS_SCOPE             "https://purl.imsglobal.org/spec/lti-nrps/scope/" \
                                   "contextmembership.readonly"
#define LTI_ROSTER_REFRESH_S       300u      /* a course's roster is read at most this often */
#define LTI_ROSTER_MAX_PAGES       20u       /* pages of one read (rel="next" followed) */
#define LTI_ROSTER_MAX_BYTES       (4u * 1024u * 1024u)  /* bytes of one read, all pages */
#define LTI_ROSTER_PAGE_TIMEOUT_MS 10000u    /* a page, all of it */
#define LTI_ROSTER_POLL_MS         2000u     /* the rosters asked for are looked for this often */
#define LTI_ROSTER_BATCH           8u        /* rosters read in one pass */
#define DEFAULT_LTI_SCORE_POLICY   "best"

#endif
