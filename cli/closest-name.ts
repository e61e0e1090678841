/**
 * The known name a mistyped one most likely meant: a flag (--base_url, --prot) or an environment
 * variable (CONFORMANCE_BASEURL). Case and the choice of '-' or '_' are not counted as typos.
 */

/** Edit distance with transpositions (optimal string alignment): "prot" is one step from "port". */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

const normal = (name: string) => name.toLowerCase().replace(/_/g, "-");

/**
 * The candidate nearest to `name`, or undefined when none is near enough to be what was meant
 * (more than a third of the name would have to change, and more than two characters).
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const wanted = normal(name);
  let best: { candidate: string; steps: number } | undefined;
  for (const candidate of candidates) {
    const steps = distance(wanted, normal(candidate));
    // A prefix of a known name (--max-create for --max-creates, --other for --other-api-key) counts as near.
    const prefix = normal(candidate).startsWith(wanted) && wanted.length >= 3 ? 1 : steps;
    const score = Math.min(steps, prefix);
    if (best === undefined || score < best.steps) best = { candidate, steps: score };
  }
  if (best === undefined) return undefined;
  return best.steps <= Math.max(2, Math.floor(wanted.length / 3)) ? best.candidate : undefined;
}
