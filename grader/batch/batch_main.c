/* batch_main.c - butterfly-batch: grade a whole class into a gradebook. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"
#include "batch/batch_output.h"
#include "common/config.h"
#include "common/defaults.h"
#include "common/due/late_policy.h"
#include "common/exercise/exercise.h"
#include "common/parse_num.h"
#include "pool/pool.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: butterfly-batch [options] -o OUT INPUT\n"
        "       butterfly-batch --from-database URL [options] -o OUT\n"
        "Grades every submission in INPUT and writes OUT/gradebook.csv,\n"
        "OUT/summary.json, OUT/summary.html, OUT/%s/ID.html and\n"
        "OUT/students/ID/results.json (Gradescope's format). INPUT is a folder (one\n"
        "file per student: the id is the file name without its extension; or one\n"
        "folder per student holding the kernel file), a CSV file with a header row\n"
        "(',' or ';' between fields), a JSON Lines file, or - for a CSV or JSON Lines\n"
        "export on standard input. A rerun reuses each result recorded for the same\n"
        "source and seed. With --from-database the inputs are the records a grading\n"
        "server kept: one per student, written with the verdict the student was\n"
        "answered, graded again only with --regrade.\n"
        "\n"
        "  -o, --output DIR      the output folder (created if missing; required)\n"
        "      --task ID         the exercise graded, or whose records are read (default:\n"
        "                        %s); all, with --from-database and --gradebook\n"
        "                        canvas|moodle: that file alone, a column per exercise\n"
        "  -j, --jobs N          submissions graded at once: worker processes (default:\n"
        "                        the number of cores, at most %u)\n"
        "      --seed N          seed of the hidden spectra, 0 to %llu\n"
        "                        (default: the one the output folder's earlier run\n"
        "                        kept, else a new one drawn from the operating system)\n"
        "      --deadline-ms N   " DEADLINE_MEANING " (default %u,\n"
        "                        at most %u)\n"
        "      --device SEL      Vulkan device by index or name substring\n"
        "                        (env BUTTERFLY_DEVICE; default: the best GPU, else lavapipe)\n"
        "      --force           regrade everything, reusing nothing, with a new seed\n"
        "  -q, --quiet           no progress and no summary; errors only\n"
        "      --format F        dir, csv or jsonl (default: from INPUT)\n"
        "      --id-column NAME  the id's column or key (default: id, student_id, student)\n"
        "      --source-column NAME  the source's (default: source, code, submission)\n"
        "      --gradebook L     also write a learning system's gradebook: canvas\n"
        "                        (OUT/%s) or moodle\n"
        "                        (OUT/%s); default: only gradebook.csv\n"
        "      --roster FILE     for canvas: the class roster (Canvas's gradebook export)\n"
        "      --assignment NAME for canvas: the points column's header (default: the\n"
        "                        exercise's title)\n"
        "      --excel           start CSV files with a UTF-8 byte-order mark, for Excel\n"
        "      --from-database URL  the records of a server's store (sqlite:PATH or\n"
        "                        postgresql://...) in place of INPUT; canvas takes its\n"
        "                        students as the roster unless --roster is given\n"
        "      --until TIME      with --from-database: records received by TIME\n"
        "                        (2026-12-01T23:59:00Z, an offset, or @UNIX_SECONDS)\n"
        "      --policy P        with --from-database: best (the most points, the latest\n"
        "                        on a tie; default) or last (the latest)\n"
        "      --regrade         with --from-database: grade each chosen source again with\n"
        "                        a new seed (or --seed), recorded in its results.json\n"
        "      --late-policy P   with --from-database: what an attempt after its due date\n"
        "                        counts for in the canvas and moodle scores, as the\n"
        "                        server's --late-policy: none (never above the best on-time\n"
        "                        attempt; default), accept, or penalty:P%% (its points\n"
        "                        less P percent)\n"
        "      --version, --help\n"
        "\n"
        "environment: BUTTERFLY_DEVICE (see --device), NO_COLOR (no colours), TERM=dumb\n"
        "             (progress as plain lines, as when standard error is no terminal),\n"
        "             BUTTERFLY_WORKER (the grading worker program; default:\n"
        "             PREFIX/LIBEXECDIR/butterfly-worker beside this program)\n"
        "exit status: 0 every input has its row, 1 so it has but some rows are Internal\n"
        "             Errors (run again), 2 no gradebook (see the message), 64 usage,\n"
        "             128+signal interrupted (run the same command again to go on)\n",
        BATCH_REPORTS_DIR, exercise_default()->id, POOL_MAX_WORKERS, (unsigned long long)MAX_SEED,
        DEFAULT_DEADLINE_MS, MAX_DEADLINE_MS, gradebook_layout_file(GRADEBOOK_LAYOUT_CANVAS),
        gradebook_layout_file(GRADEBOOK_LAYOUT_MOODLE));
}

int main(int argc, char **argv)
{
    enum { OPT_SEED = 256, OPT_DEADLINE, OPT_DEVICE, OPT_FORCE, OPT_FORMAT, OPT_ID_COLUMN,
           OPT_SOURCE_COLUMN, OPT_GRADEBOOK, OPT_ROSTER, OPT_ASSIGNMENT, OPT_EXCEL,
           OPT_FROM_DATABASE, OPT_UNTIL, OPT_POLICY, OPT_REGRADE, OPT_LATE_POLICY, OPT_TASK,
           OPT_VERSION };
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "jobs", required_argument, NULL, 'j' },
        { "seed", required_argument, NULL, OPT_SEED },
        { "deadline-ms", required_argument, NULL, OPT_DEADLINE },
        { "device", required_argument, NULL, OPT_DEVICE },
        { "force", no_argument, NULL, OPT_FORCE },
        { "quiet", no_argument, NULL, 'q' },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "id-column", required_argument, NULL, OPT_ID_COLUMN },
        { "source-column", required_argument, NULL, OPT_SOURCE_COLUMN },
        { "gradebook", required_argument, NULL, OPT_GRADEBOOK },
        { "roster", required_argument, NULL, OPT_ROSTER },
        { "assignment", required_argument, NULL, OPT_ASSIGNMENT },
        { "excel", no_argument, NULL, OPT_EXCEL },
        { "from-database", required_argument, NULL, OPT_FROM_DATABASE },
        { "until", required_argument, NULL, OPT_UNTIL },
        { "policy", required_argument, NULL, OPT_POLICY },
        { "regrade", no_argument, NULL, OPT_REGRADE },
        { "late-policy", required_argument, NULL, OPT_LATE_POLICY },
        { "task", required_argument, NULL, OPT_TASK },
        { "version", no_argument, NULL, OPT_VERSION },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct batch_options o;
    uint64_t x;
    int c;

    batch_options_init(&o);
    o.device = getenv("BUTTERFLY_DEVICE");
    while ((c = getopt_long(argc, argv, "o:j:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o.output = optarg; break;
        case 'j':
            if (!parse_u64(optarg, POOL_MAX_WORKERS, &x) || x == 0) {
                fprintf(stderr, "butterfly-batch: bad --jobs '%s' (1..%d)\n", optarg,
                        POOL_MAX_WORKERS);
                return BATCH_EXIT_USAGE;
            }
            o.jobs = (unsigned)x;
            break;
        case OPT_SEED:
            if (!parse_u64(optarg, MAX_SEED, &o.seed)) {
                fprintf(stderr, "butterfly-batch: bad --seed '%s' (0..%llu)\n", optarg,
                        (unsigned long long)MAX_SEED);
                return BATCH_EXIT_USAGE;
            }
            o.seed_given = true;
            break;
        case OPT_DEADLINE:
            if (!parse_u64(optarg, MAX_DEADLINE_MS, &x) || x == 0) {
                fprintf(stderr, "butterfly-batch: bad --deadline-ms '%s' (1..%u)\n", optarg,
                        MAX_DEADLINE_MS);
                return BATCH_EXIT_USAGE;
            }
            o.deadline_ms = (uint32_t)x;
            break;
        case OPT_DEVICE: o.device = optarg; break;
        case OPT_FORCE: o.force = true; break;
        case 'q': o.quiet = true; break;
        case OPT_FORMAT:
            if (!strcmp(optarg, "dir"))
                o.format = BATCH_FORMAT_DIR;
            else if (!strcmp(optarg, "csv"))
                o.format = BATCH_FORMAT_CSV;
            else if (!strcmp(optarg, "jsonl"))
                o.format = BATCH_FORMAT_JSONL;
            else {
                fprintf(stderr, "butterfly-batch: bad --format '%s' (dir, csv or jsonl)\n", optarg);
                return BATCH_EXIT_USAGE;
            }
            break;
        case OPT_ID_COLUMN: o.id_column = optarg; break;
        case OPT_SOURCE_COLUMN: o.source_column = optarg; break;
        case OPT_GRADEBOOK:
            if (!gradebook_layout_from_str(optarg, &o.gradebook)) {
                fprintf(stderr, "butterfly-batch: bad --gradebook '%s' (canvas or moodle)\n",
                        optarg);
                return BATCH_EXIT_USAGE;
            }
            break;
        case OPT_ROSTER: o.roster = optarg; break;
        case OPT_ASSIGNMENT: o.assignment = optarg; break;
        case OPT_EXCEL: o.excel = true; break;
        case OPT_FROM_DATABASE: o.from_database = optarg; break;
        case OPT_UNTIL:
            if (!batch_until_parse(optarg, &o.until_ms)) {
                fprintf(stderr, "butterfly-batch: bad --until '%s' (2026-12-01T23:59:00Z, "
                        "2026-12-01T23:59+01:00 or @UNIX_SECONDS)\n", optarg);
                return BATCH_EXIT_USAGE;
            }
            break;
        case OPT_POLICY:
            if (!store_policy_from_str(optarg, &o.policy)) {
                fprintf(stderr, "butterfly-batch: bad --policy '%s' (best or last)\n", optarg);
                return BATCH_EXIT_USAGE;
            }
            break;
        case OPT_REGRADE: o.regrade = true; break;
        case OPT_LATE_POLICY:
            if (!late_policy_parse(optarg, &o.late_policy)) {
                fprintf(stderr, "butterfly-batch: bad --late-policy '%s' (%s)\n", optarg,
                        LATE_POLICY_CHOICES);
                return BATCH_EXIT_USAGE;
            }
            o.late_policy_given = true;
            break;
        case OPT_TASK: o.task = optarg; break;
        case OPT_VERSION: printf("butterfly-batch %s\n", BUTTERFLY_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return BATCH_EXIT_USAGE;
        }
    }
    if (argc - optind != (o.from_database ? 0 : 1) || !o.output) {
        usage(stderr);
        return BATCH_EXIT_USAGE;
    }
    o.input = o.from_database ? NULL : argv[optind];
    const char *problem = batch_options_problem(&o);
    if (problem) {
        fprintf(stderr, "butterfly-batch: %s\n", problem);
        return BATCH_EXIT_USAGE;
    }
    /* a closed pipe on stdout must not kill a batch halfway */
    signal(SIGPIPE, SIG_IGN);
    return batch_run(&o);
}
