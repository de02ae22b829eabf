/*
 * process_stats.h - this process's own resources, for the standard
 * process_* metrics every Prometheus client library exports.
 */
#ifndef BUTTERFLY_PROCESS_STATS_H
#define BUTTERFLY_PROCESS_STATS_H

#include <stdbool.h>

struct process_stats {
    double cpu_seconds;          /* user and system time */
    double resident_bytes;
    double virtual_bytes;
    double open_fds;
    double max_fds;              /* the soft limit on open files */
    double start_time_seconds;   /* since the Unix epoch */
};

/*
 * Reads this process's figures from /proc/self and getrlimit. Only
 * /proc/self is read (not /proc/stat), so it works under systemd's
 * ProcSubset=pid. False when /proc cannot be read; *out is then zeroed.
 */
bool process_stats_read(struct process_stats *out);

#endif
