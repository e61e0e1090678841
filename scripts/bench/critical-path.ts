/**
 * A run's critical path: the longest chain of requests in which each starts after the one
 * before it ended, weighted by how long each took. However cleverly a suite overlapped its
 * requests, it cannot finish sooner than that; its wall time divided by it is the overhead of
 * the suite itself (waits, idle time, its own work).
 */

export interface Span {
  /** Milliseconds on any one clock. */
  start: number;
  end: number;
}

export interface CriticalPath {
  ms: number;
  /** Requests on the path. */
  requests: number;
}

export function criticalPath(spans: readonly Span[]): CriticalPath {
  const byStart = [...spans].sort((a, b) => a.start - b.start);
  const byEnd = [...spans].sort((a, b) => a.end - b.end);
  const best = new Map<Span, CriticalPath>();
  let ended: CriticalPath = { ms: 0, requests: 0 };
  let longest: CriticalPath = { ms: 0, requests: 0 };
  let next = 0;
  for (const span of byStart) {
    // Every span that ended before this one started can precede it; each was reached already.
    for (; next < byEnd.length && (byEnd[next]?.end ?? Infinity) <= span.start; next++) {
      const done = best.get(byEnd[next] as Span);
      if (done !== undefined && done.ms > ended.ms) ended = done;
    }
    const path = { ms: ended.ms + (span.end - span.start), requests: ended.requests + 1 };
    best.set(span, path);
    if (path.ms > longest.ms) longest = path;
  }
  return longest;
}
