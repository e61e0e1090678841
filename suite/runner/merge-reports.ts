/**
 * One conformance report from the reports of the N shards of a run (--shard I/N): pure, so the
 * rules are unit-tested on hand-made shards. Shards of different targets, suites or counts, a
 * shard missing or given twice, are refused with the reason. The whole is judged by the usual
 * rules: a requirement takes the worst verdict of the shards that judged it (fail, warn,
 * inconclusive, pass, then skip), with all their tests; one no shard judged keeps the reason of
 * the shard whose share held it. Counts, the incomplete MUSTs and the result are computed again;
 * creates, cleanup and the property's coverage are summed (the coverage as the union).
 */
import { z } from "zod";
import { mergeInteractions } from "../interactions/coverage.ts";
import type { ConformanceReport, RequirementReport, RequirementStatus } from "../report/report-types.ts";
import { InteractionsSummarySchema } from "../report/interactions-summary.ts";
import { staleMessage } from "./baseline.ts";
import { incompleteMusts, runResult } from "./build-report.ts";

const STATUSES = ["pass", "fail", "warn", "skip", "inconclusive", "not_observed"] as const;

/** What merge reads of a shard's conformance.json; the rest is carried as it is. */
export const ShardReportSchema = z.looseObject({
  target: z.string(),
  suite: z.object({ name: z.string(), version: z.string() }).optional(),
  result: z.enum(["pass", "fail", "incomplete", "error"]),
  strict: z.boolean(),
  runId: z.string(),
  seed: z.number(),
  startedAt: z.string(),
  durationMs: z.number(),
  counts: z.looseObject({ tests: z.number() }),
  creates: z.object({ budget: z.number(), spent: z.number() }),
  cleanup: z.looseObject({
    deleted: z.number(),
    failed: z.array(z.object({ conversationId: z.string(), reason: z.string() })),
    notFound: z.array(z.string()).optional(),
  }),
  harnessErrors: z.array(z.string()),
  diagnosis: z.string().optional(),
  baseline: z.object({ file: z.string(), baselined: z.array(z.string()), problems: z.array(z.string()) }).optional(),
  shard: z.object({ index: z.int().positive(), count: z.int().positive() }).optional(),
  interactions: InteractionsSummarySchema.optional(),
  requirements: z.array(
    z.looseObject({
      id: z.string(),
      level: z.enum(["MUST", "SHOULD"]),
      status: z.enum(STATUSES),
      excluded: z.boolean().optional(),
      reason: z.string().optional(),
      tests: z.array(z.looseObject({ name: z.string() })),
    }),
  ),
});

/** One shard's report, and the folder it came from (named in every refusal). */
export interface ShardInput {
  readonly dir: string;
  readonly report: ConformanceReport;
}

/** A shard's place, "2/4". */
const place = (report: ConformanceReport) =>
  report.shard === undefined ? "no shard" : `${report.shard.index}/${report.shard.count}`;

/** The embedded fake listens on another port in every shard: it is one target all the same. */
export function targetOf(report: Pick<ConformanceReport, "target">): string {
  return report.target.replace(/^\S+ \(embedded fake\)/, "the embedded fake");
}

const suiteOf = (report: ConformanceReport) =>
  report.suite === undefined ? "an unknown suite" : `${report.suite.name} ${report.suite.version}`;

/** Why these reports are not the shards of one run, or undefined when they are. */
export function refusal(shards: readonly ShardInput[]): string | undefined {
  if (shards.length === 0) return "no shard to merge: name the folders of every shard's reports";
  const unsharded = shards.find((s) => s.report.shard === undefined);
  if (unsharded !== undefined) {
    const why =
      unsharded.report.result === "error" && unsharded.report.diagnosis !== undefined
        ? ` (it stopped before any check: ${unsharded.report.diagnosis.split("\n")[0]})`
        : "";
    return `${unsharded.dir}: its conformance.json records no shard: it is not from a run with --shard I/N${why}`;
  }
  const [first] = shards as [ShardInput, ...ShardInput[]];
  const differing = (describe: (report: ConformanceReport) => string) =>
    shards.find((s) => describe(s.report) !== describe(first.report));
  const otherSuite = differing(suiteOf);
  if (otherSuite !== undefined)
    return `shards of different suites: ${first.dir} is from ${suiteOf(first.report)}, ${otherSuite.dir} from ${suiteOf(otherSuite.report)}`;
  const count = (report: ConformanceReport) => String(report.shard?.count);
  const otherCount = differing(count);
  if (otherCount !== undefined)
    return `shards of different counts: ${first.dir} is shard ${place(first.report)}, ${otherCount.dir} shard ${place(otherCount.report)}`;
  const otherTarget = differing(targetOf);
  if (otherTarget !== undefined)
    return `shards of different targets: ${first.dir} judged ${targetOf(first.report)}, ${otherTarget.dir} judged ${targetOf(otherTarget.report)}`;
  const otherStrict = differing((report) => String(report.strict));
  if (otherStrict !== undefined)
    return `shards run with and without --strict: ${first.dir} ${first.report.strict ? "with" : "without"}, ${otherStrict.dir} ${otherStrict.report.strict ? "with" : "without"}`;
  const n = first.report.shard?.count ?? 0;
  for (let index = 1; index <= n; index++) {
    const given = shards.filter((s) => s.report.shard?.index === index);
    if (given.length > 1) return `shard ${index}/${n} is given twice: ${given.map((s) => s.dir).join(", ")}`;
    if (given.length === 0)
      return `shard ${index}/${n} is missing (given: ${shards.map((s) => place(s.report)).join(", ")})`;
  }
  return undefined;
}

/** fail > warn > inconclusive > pass > skip, as one run's rules rank a requirement's tests. */
const RANK: Record<RequirementStatus, number> = {
  fail: 5,
  warn: 4,
  inconclusive: 3,
  pass: 2,
  skip: 1,
  not_observed: 0,
};

function mergeRequirement(entries: readonly RequirementReport[]): RequirementReport {
  const judged = entries.filter((e) => e.excluded !== true);
  if (judged.length === 0) {
    // Left out everywhere: the reason of the shard whose share held it (not "judged in shard …").
    const own = entries.find((e) => !(e.reason ?? "").startsWith("judged in shard")) ?? entries[0];
    return { ...(own as RequirementReport), tests: [] };
  }
  const worst = judged.reduce((a, b) => (RANK[b.status] > RANK[a.status] ? b : a));
  return { ...worst, tests: judged.flatMap((e) => e.tests) };
}

/** The whole run's report from its shards (refusal() first: they must be the N shards of one run). */
export function mergeReports(shards: readonly ShardInput[]): ConformanceReport {
  const ordered = [...shards].sort((a, b) => (a.report.shard?.index ?? 0) - (b.report.shard?.index ?? 0));
  const reports = ordered.map((s) => s.report);
  const [first] = reports as [ConformanceReport, ...ConformanceReport[]];
  const n = first.shard?.count ?? reports.length;
  const tag = (report: ConformanceReport) => `shard ${report.shard?.index ?? "?"}/${n}`;

  const ids = [...new Set(reports.flatMap((r) => r.requirements.map((x) => x.id)))];
  const requirements = ids.map((id) =>
    mergeRequirement(reports.flatMap((r) => r.requirements.filter((x) => x.id === id))),
  );

  const counts = {
    pass: 0,
    fail: 0,
    warn: 0,
    skip: 0,
    inconclusive: 0,
    tests: reports.reduce((sum, r) => sum + r.counts.tests, 0),
  };
  for (const r of requirements) if (r.status !== "not_observed") counts[r.status]++;
  const incomplete = incompleteMusts(requirements);

  const harnessErrors = reports.flatMap((r) => {
    const own = r.harnessErrors.map((e) => `${tag(r)}: ${e}`);
    // A shard that stopped or judged nothing says why; the whole is then an error too.
    if (r.result === "error" && own.length === 0)
      own.push(`${tag(r)}: ${r.diagnosis?.split("\n")[0] ?? "no check was executed"}`);
    return own;
  });
  const diagnoses = reports.filter((r) => r.diagnosis !== undefined).map((r) => `${tag(r)}: ${r.diagnosis ?? ""}`);

  const baseline = mergedBaseline(reports, requirements);
  const failed =
    requirements.some((r) => r.status === "fail" && r.baselined !== true) || (baseline?.problems.length ?? 0) > 0;
  const interactions = mergeInteractions(
    reports.flatMap((r) => (r.interactions === undefined ? [] : [r.interactions])),
  );

  const starts = reports.map((r) => Date.parse(r.startedAt));
  const start = Math.min(...starts);
  const end = Math.max(...reports.map((r, i) => (starts[i] ?? start) + r.durationMs));
  const notFound = reports.flatMap((r) => r.cleanup.notFound ?? []);

  return {
    target: targetOf(first),
    ...(first.suite === undefined ? {} : { suite: { ...first.suite } }),
    result: runResult({ harnessError: harnessErrors.length > 0, failed, incomplete: incomplete.length > 0 }),
    strict: first.strict,
    runId: reports.map((r) => r.runId).join(","),
    seed: first.seed,
    startedAt: new Date(start).toISOString(),
    durationMs: Math.round(end - start),
    counts,
    incomplete,
    creates: {
      budget: reports.reduce((sum, r) => sum + r.creates.budget, 0),
      spent: reports.reduce((sum, r) => sum + r.creates.spent, 0),
    },
    cleanup: {
      deleted: reports.reduce((sum, r) => sum + r.cleanup.deleted, 0),
      failed: reports.flatMap((r) => r.cleanup.failed),
      ...(notFound.length > 0 ? { notFound } : {}),
    },
    harnessErrors,
    ...(diagnoses.length > 0 ? { diagnosis: diagnoses.join("\n") } : {}),
    ...(baseline === undefined ? {} : { baseline }),
    ...(interactions === undefined ? {} : { interactions }),
    requirements,
  };
}

/**
 * The baseline of the whole: what it excused, and its problems. A shard that judged a listed
 * requirement only by the property may have seen it pass where its own shard saw it fail: it is
 * stale only when it passed in the whole.
 */
function mergedBaseline(
  reports: readonly ConformanceReport[],
  requirements: readonly RequirementReport[],
): ConformanceReport["baseline"] {
  const file = reports.find((r) => r.baseline !== undefined)?.baseline?.file;
  if (file === undefined) return undefined;
  const notStale = new Set(requirements.filter((r) => r.status !== "pass").map((r) => staleMessage(r.id)));
  const problems = [...new Set(reports.flatMap((r) => r.baseline?.problems ?? []))].filter((p) => !notStale.has(p));
  return { file, baselined: requirements.filter((r) => r.baselined === true).map((r) => r.id), problems };
}
