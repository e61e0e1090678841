/**
 * npm run verify-suite -- [--out FILE] [--lanes N] [--runs N] [--seed N]
 * Runs the whole conformance suite against the plain fake, every variant and every mutant
 * (the same runs as the gate, suite/proof/gate.test.ts), prints the kill matrix, the
 * mutation score and the variants' verdicts, and writes them as JSON
 * (default reports/verify-suite.json). Exit 0 when the suite is proven, 1 when the gate
 * would fail, 2 on a usage error.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import {
  flagHelp,
  flagsOrExit,
  flagValuesOrThrow,
  stringFlag,
  switchFlag,
  wholeNumberFlag,
  type FlagTable,
} from "../cli/flags.ts";
import { runTargets } from "../suite/proof/run-targets.ts";
import { summarise, summaryText } from "../suite/proof/summary.ts";
import { labelOf, proofTargets } from "../suite/proof/targets.ts";

const FLAGS = {
  out: {
    name: "out",
    value: "FILE",
    help: "where the JSON goes (default reports/verify-suite.json)",
    parser: stringFlag("reports/verify-suite.json"),
  },
  lanes: {
    name: "lanes",
    value: "N",
    help: "runs in parallel (default 2)",
    parser: wholeNumberFlag("lanes", 1, 16, 2),
  },
  runs: {
    name: "runs",
    value: "N",
    help: "fast-check runs per property (default: the suite's own)",
    parser: wholeNumberFlag("runs", 1, 10_000),
  },
  seed: {
    name: "seed",
    value: "N",
    help: "one fast-check seed for every run (default: a fresh one per run)",
    parser: wholeNumberFlag("seed", 0, 2 ** 31 - 1),
  },
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

const USAGE = `Usage: npm run verify-suite -- [options]

Runs the full conformance suite against the plain fake, every variant, all variants together
and every mutant of the fake, and reports which mutants the suite kills.

${flagHelp(FLAGS, { helpAt: 17 })}

Exit codes: 0 the suite is proven; 1 a mutant survived, a variant failed, or a MUST has no
killing mutant; 2 a usage error.`;

function parseFlags(argv: string[]) {
  const values = flagValuesOrThrow(FLAGS, argv);
  return { ...values, out: resolve(values.out) };
}

async function main(): Promise<number> {
  const flags = flagsOrExit("verify-suite", USAGE, () => parseFlags(process.argv.slice(2)));
  if (typeof flags === "number") return flags;
  const targets = proofTargets({ everyVariantAlone: true });
  const reportRoot = await mkdtemp(join(tmpdir(), "verify-suite-"));
  try {
    process.stdout.write(`verify-suite: ${targets.length} full conformance runs, ${flags.lanes} at a time\n`);
    const started = performance.now();
    const runs = await runTargets(targets, {
      reportRoot,
      lanes: flags.lanes,
      ...(flags.runs === undefined ? {} : { runs: flags.runs }),
      ...(flags.seed === undefined ? {} : { seed: flags.seed }),
      onRun: (run, done, total) =>
        process.stdout.write(
          `  [${String(done).padStart(2)}/${total}] ${labelOf(run.target)}: exit ${run.exitCode} (${(run.durationMs / 1000).toFixed(1)} s)\n`,
        ),
    });
    const summary = summarise(runs, performance.now() - started, flags.lanes);
    process.stdout.write(`\n${summaryText(summary).join("\n")}\n`);
    await mkdir(dirname(flags.out), { recursive: true });
    await writeFile(flags.out, `${JSON.stringify(summary, null, 2)}\n`);
    process.stdout.write(`\nWritten: ${flags.out}\n`);
    return summary.problems.length === 0 ? 0 : 1;
  } finally {
    await rm(reportRoot, { recursive: true, force: true });
  }
}

process.exitCode = await main();
