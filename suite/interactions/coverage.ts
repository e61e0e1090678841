/**
 * What a run of the interaction property explored, as DESIGN ("Exploring the whole space")
 * publishes it in conformance.json: per dimension, the cells covered, how many the model can
 * reach, and the names of those missing. Plain data, so shards can be merged (the union of
 * what they covered) and every report format can print it.
 */

export const COVERAGE_DIMENSIONS = ["transitions", "orderings", "inputs", "client"] as const;
export type CoverageDimension = (typeof COVERAGE_DIMENSIONS)[number];

export interface DimensionCoverage {
  readonly covered: number;
  /** Reachable cells only. */
  readonly total: number;
  /** The names of the cells not covered, in the order the dimension lists them. */
  readonly missing: readonly string[];
}

export type CoverageReport = Readonly<Record<CoverageDimension, DimensionCoverage>>;

/** The top-level `interactions` object of conformance.json; absent when the property did not run. */
export interface InteractionsSummary {
  readonly seeds: readonly number[];
  readonly sequences: number;
  readonly operations: number;
  readonly creates: number;
  readonly coverage: CoverageReport;
}

/** The cells of each dimension, in the order reports list them. */
export type CellTable = Readonly<Record<CoverageDimension, readonly string[]>>;

/** The coverage of `covered` over `table`: counts and the missing cells, in the table's order. */
export function coverageOf(table: CellTable, covered: ReadonlySet<string>): CoverageReport {
  const of = (dimension: CoverageDimension): DimensionCoverage => {
    const cells = table[dimension];
    const missing = cells.filter((cell) => !covered.has(`${dimension}:${cell}`));
    return { covered: cells.length - missing.length, total: cells.length, missing };
  };
  return { transitions: of("transitions"), orderings: of("orderings"), inputs: of("inputs"), client: of("client") };
}

/**
 * The union of several runs' coverage (shards of one run): a cell is missing only when every
 * run missed it. Runs of one suite share their totals; where they differ the largest counts.
 */
export function mergeCoverage(reports: readonly CoverageReport[]): CoverageReport | undefined {
  if (reports.length === 0) return undefined;
  const of = (dimension: CoverageDimension): DimensionCoverage => {
    const total = Math.max(...reports.map((r) => r[dimension].total));
    const missing = reports
      .map((r) => r[dimension].missing)
      .reduce((kept, next) => kept.filter((cell) => next.includes(cell)));
    return { covered: total - missing.length, total, missing };
  };
  return { transitions: of("transitions"), orderings: of("orderings"), inputs: of("inputs"), client: of("client") };
}

/** Several runs' summaries as one: seeds, sequences, operations and creates summed, coverage the union. */
export function mergeInteractions(summaries: readonly InteractionsSummary[]): InteractionsSummary | undefined {
  const coverage = mergeCoverage(summaries.map((s) => s.coverage));
  if (coverage === undefined) return undefined;
  const sum = (pick: (s: InteractionsSummary) => number) => summaries.reduce((total, s) => total + pick(s), 0);
  return {
    seeds: summaries.flatMap((s) => s.seeds),
    sequences: sum((s) => s.sequences),
    operations: sum((s) => s.operations),
    creates: sum((s) => s.creates),
    coverage,
  };
}

/** The console's one line after the property. */
export function coverageLine(summary: InteractionsSummary): string {
  const c = summary.coverage;
  const part = (name: CoverageDimension) => `${name} ${c[name].covered}/${c[name].total}`;
  return `interactions: ${summary.sequences} sequence${summary.sequences === 1 ? "" : "s"}, ${summary.operations} operations, ${summary.creates} creates; ${COVERAGE_DIMENSIONS.map(part).join(", ")}`;
}
