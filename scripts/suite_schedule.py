#!/usr/bin/python3
"""suite_schedule.py: the spec jobs' schedule of tests/run.sh, from a suite.

  scripts/suite_schedule.py LOG TIMES [--jobs J] [--shards 'N name=N ...']
                            [--cap S] [--host HOSTLOG] [--weights]

LOG is a side-by-side run's output (its '-- FILE, shard k/n (N s)' lines),
TIMES its SPECK_TEST_TIMES file (tests/shard.lua: a line a test, in each
process's order, so a file's tests are put back in registration order).
A job is modelled as its tests' seconds plus the file's start-up (its jobs'
seconds less their tests', averaged over its shards). Prints the jobs'
sum, the makespan of the log's own shards in LPT order, and that of
--shards (default: the log's) on J slots (default 16), its longest jobs;
--cap S picks the shards instead: each file the fewest that keep its jobs
under S seconds (printed as SPECK_TEST_SHARDS);
--weights prints tests/suite-weights' lines instead (the cuda column from
LOG/TIMES, the host column from HOSTLOG: a host suite's log, a space's
job seconds averaged over its spaces).
"""
import argparse
import collections
import heapq
import re

JOB = re.compile(r'^-- (\S+), shard (\d+)/(\d+) \((\d+) s\)')


def jobs_of(log):
    """{(file, k, n): seconds} of each space in LOG, a list a space"""
    spaces, cur = [], None
    for line in open(log, errors='replace'):
        if line.startswith('== busted') or cur is None:
            cur = {}
            spaces.append(cur)
        m = JOB.match(line)
        if m:
            cur[(m[1], int(m[2]), int(m[3]))] = int(m[4])
    return [s for s in spaces if s]


def files_of(log, times):
    jobs = jobs_of(log)[0]
    tests = collections.defaultdict(list)
    for line in open(times):
        a = line.rstrip('\n').split('\t')
        k, n = map(int, a[2].split('/'))
        tests[(a[3], k, n)].append(float(a[1]))
    files = {}
    for (f, k, n), secs in jobs.items():
        d = files.setdefault(f, {'n': n, 'at': {}, 'start': []})
        for j, t in enumerate(tests.get((f, k, n), [])):
            d['at'][k + n * j] = t
        d['start'].append(secs - sum(tests.get((f, k, n), [])))
    for d in files.values():
        d['tests'] = [d['at'][i] for i in sorted(d['at'])]
        d['start'] = max(sum(d['start']) / len(d['start']), 0.5)
    return files


def shards(spec, files):
    """tests/run.sh's SPECK_TEST_SHARDS: 'name=N' for a file, a bare N the others"""
    named, default = {}, 1
    for w in spec.split():
        if '=' in w:
            name, n = w.split('=')
            named.setdefault(name, int(n))
        else:
            default = int(w)
    return {f: named.get(f.split('/')[-1][:-4], default) for f in files}


def model(files, nshards):
    return [(d['start'] + sum(d['tests'][k::nshards[f]]), f, k, nshards[f])
            for f, d in files.items() for k in range(nshards[f])]


def makespan(jobs, slots):
    free = [0.0] * slots
    for t, *_ in sorted(jobs, reverse=True):
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('times')
    ap.add_argument('--jobs', type=int, default=16)
    ap.add_argument('--shards')
    ap.add_argument('--cap', type=float)
    ap.add_argument('--host')
    ap.add_argument('--weights', action='store_true')
    a = ap.parse_args()
    files = files_of(a.log, a.times)
    if a.weights:
        host = collections.defaultdict(float)
        spaces = jobs_of(a.host) if a.host else []
        for sp in spaces:
            for (f, _, _), secs in sp.items():
                host[f] += secs / len(spaces)
        rows = {f: (round(d['start'] + sum(d['tests'])), round(host[f]))
                for f, d in files.items()}
        for f in host:
            rows.setdefault(f, (1, round(host[f])))
        for f, (c, h) in sorted(rows.items(), key=lambda r: (-r[1][0], -r[1][1], r[0])):
            if c >= 4 or h >= 2:
                name = f.split('/')[-1][:-4]
                print('%-24s %3d %3d' % (name, max(c, 1), max(h, 1)))
        return
    own = {f: d['n'] for f, d in files.items()}
    logged = jobs_of(a.log)[0]
    print('the log: %d jobs, %.0f s' % (len(logged), sum(logged.values())))
    jobs = model(files, own)
    print("its shards, modelled: %d jobs, %.0f s, LPT on %d slots %.1f s"
          % (len(jobs), sum(j[0] for j in jobs), a.jobs, makespan(jobs, a.jobs)))
    if a.cap is not None:
        picked = {}
        for f in files:
            picked[f] = 1
            while picked[f] < 16 and max(j[0] for j in model({f: files[f]}, picked)) > a.cap:
                picked[f] += 1
        a.shards = ' '.join(['1'] + ['%s=%d' % (f.split('/')[-1][:-4], n)
                                    for f, n in sorted(picked.items(), key=lambda x: -x[1])
                                    if n > 1])
        print('SPECK_TEST_SHARDS="%s"' % a.shards)
    if a.shards is not None:
        jobs = model(files, shards(a.shards, files))
        print("--shards: %d jobs, %.0f s (/%d: %.1f s), LPT on %d slots %.1f s"
              % (len(jobs), sum(j[0] for j in jobs), a.jobs, sum(j[0] for j in jobs) / a.jobs,
                 a.jobs, makespan(jobs, a.jobs)))
    for t, f, k, n in sorted(jobs, reverse=True)[:8]:
        print('  %5.1f s  %s %d/%d' % (t, f, k, n))


if __name__ == '__main__':
    main()
