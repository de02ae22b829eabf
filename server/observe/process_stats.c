/* process_stats.c - /proc/self/stat and /proc/self/fd, read the way Prometheus names them. */
#include "server/observe/process_stats.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>


/* The fields of /proc/self/stat after the command's name, counted from
 * the state (field 3 of proc(5)): utime 14, stime 15, starttime 22,
 * vsize 23, rss 24. */
enum { F_UTIME = 14 - 3, F_STIME = 15 - 3, F_START = 22 - 3, F_VSIZE = 23 - 3, F_RSS = 24 - 3 };

static bool read_stat(double field[F_RSS + 1])
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* the name is in parentheses and may hold spaces and parentheses
     * itself: the fields start after the last ')' */
    char *p = strrchr(buf, ')');
    if (!p)
        return false;
    p++;
    for (int i = 0; i <= F_RSS; i++) {
        char *end;
        while (*p == ' ')
            p++;
        if (i == 0) {                /* the state, a letter */
            p += *p ? 1 : 0;
            field[i] = 0;
            continue;
        }
        field[i] = strtod(p, &end);
        if (end == p)
            return false;
        p = end;
    }
    return true;
}

/* Open descriptors: the entries of /proc/self/fd, less the one that
 * reading the folder opens. */
static bool count_fds(double *out)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return false;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    *out = (double)(n - 1);
    return true;
}

bool process_stats_read(struct process_stats *out)
{
    double field[F_RSS + 1];
    memset(out, 0, sizeof *out);
    if (!read_stat(field) || !count_fds(&out->open_fds)) {
        memset(out, 0, sizeof *out);
        return false;
    }
    double ticks = (double)sysconf(_SC_CLK_TCK);
    double page = (double)sysconf(_SC_PAGESIZE);
    out->cpu_seconds = (field[F_UTIME] + field[F_STIME]) / ticks;
    out->virtual_bytes = field[F_VSIZE];
    out->resident_bytes = field[F_RSS] * page;
    /* starttime counts ticks since boot: the wall clock now, less the
     * time since then on the boot clock (no /proc/stat's btime needed) */
    struct timespec real, boot;
    clock_gettime(CLOCK_REALTIME, &real);
    clock_gettime(CLOCK_BOOTTIME, &boot);
    double since_boot = (double)boot.tv_sec + (double)boot.tv_nsec / 1e9;
    out->start_time_seconds = (double)real.tv_sec + (double)real.tv_nsec / 1e9 -
                              (since_boot - field[F_START] / ticks);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        out->max_fds = rl.rlim_cur == RLIM_INFINITY ? 1e18 : (double)rl.rlim_cur;
    return true;
}
