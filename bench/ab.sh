#!/bin/sh
# Runs two builds' bench_grade alternately, ROUNDS times each, and prints
# the warm medians of each run and the median of each build's medians: what
# a change of the grading path costs, measured in one sitting on one
# machine (a shared machine's speed moves by 20-40% over minutes).
#
# usage: bench/ab.sh OLD_BENCH_GRADE NEW_BENCH_GRADE [ROUNDS [WARM_N]]
# e.g.   git worktree add /tmp/old <commit> && meson setup /tmp/old/build /tmp/old &&
#        ninja -C /tmp/old/build bench/bench_grade &&
#        bench/ab.sh /tmp/old/build/bench/bench_grade build/bench/bench_grade 5
set -eu
old=$1 new=$2 rounds=${3:-5} warm=${4:-80}
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > /tmp/ab.$$.old
: > /tmp/ab.$$.new
for r in $(seq "$rounds"); do
    for which in old new; do
        bin=$old extra=
        [ "$which" = new ] && bin=$new extra="--loops 1"   # the old one has no --loops
        # shellcheck disable=SC2086
        m=$("$bin" --warm "$warm" --naive 1 $extra 2>/dev/null |
            sed -n 's/^warm: .*median \([0-9.]*\) ms.*/\1/p')
        echo "round $r $which: warm median $m ms"
        echo "$m" >> /tmp/ab.$$.$which
    done
done
o=$(med < /tmp/ab.$$.old)
n=$(med < /tmp/ab.$$.new)
rm -f /tmp/ab.$$.old /tmp/ab.$$.new
echo "old $o ms, new $n ms, new/old $(echo "$n / $o" | bc -l | cut -c1-5)"
