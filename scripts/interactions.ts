/**
 * npm run interactions -- [--seeds N] [--seed S] [--path P] [--variant NAME] [--mutant NAME] [--creates N]
 * Runs the interaction property against the reference fake (a variant or a mutant of it) for as
 * many seeds as asked, one sequence each, and prints every counterexample. `--seed S --path P`
 * runs exactly the sequence a counterexample names. Exit 0 when nothing was found, 1 when a
 * seed found a violation (a MUST) or a warning (a SHOULD), 2 on a usage error.
 */
import { requirementById } from "../requirements/catalog.ts";
import { propertyAgainstFake } from "../suite/interactions/against-fake.ts";
import { renderCounterexample } from "../suite/interactions/counterexample.ts";
import { baseSeed, MAX_SEED, seedsFrom } from "../suite/interactions/seeds.ts";
import { flagHelp, flagsOrExit, flagValuesOrThrow, listFlag, stringFlag, switchFlag, textFlag, UsageError, wholeNumberFlag, type FlagTable } from "../suite/runner/cli-flags.ts";

const FLAGS = {
  seeds: { name: "seeds", value: "N", help: "how many seeds, one sequence each (default 100)", parser: wholeNumberFlag("seeds", 1, 100_000, 100) },
  seed: { name: "seed", value: "S", help: "the first seed (default: random, printed)", parser: wholeNumberFlag("seed", 0, MAX_SEED) },
  path: {
    name: "path",
    value: "P",
    help: "with --seed, run exactly the run a counterexample names",
    parser: textFlag((path) => {
      if (path !== undefined && !/^\d+(:\d+)*$/.test(path)) throw new UsageError(`--path must look like 3 or 3:1:0, not ${JSON.stringify(path)}`);
      return path;
    }),
  },
  variants: { name: "variant", value: "NAME", multiple: true, help: 'a conforming variant of the fake (repeatable), or "all"', parser: listFlag() },
  mutant: { name: "mutant", value: "NAME", help: "one deliberately broken mutant of the fake", parser: stringFlag() },
  creates: { name: "creates", value: "N", help: "creates per sequence (default 12)", parser: wholeNumberFlag("creates", 1, 1_000, 12) },
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

const USAGE = `Usage: npm run interactions -- [options]

Runs the interaction property (the suite's stateful property, judged by the executable model of
the service) against the reference fake for many seeds, and prints what it finds.

${flagHelp(FLAGS, { helpAt: 18 })}

Exit codes: 0 nothing found; 1 a seed found a violation or a warning; 2 a usage error.`;

function parseFlags(argv: string[]) {
  const values = flagValuesOrThrow(FLAGS, argv);
  if (values.path !== undefined && values.seed === undefined) throw new UsageError("--path needs the --seed it was found with");
  return values;
}

async function main(): Promise<number> {
  const flags = flagsOrExit("interactions", USAGE, () => parseFlags(process.argv.slice(2)));
  if (typeof flags === "number") return flags;
  const base = flags.seed ?? baseSeed(undefined);
  const seeds = flags.path === undefined ? seedsFrom(base, flags.seeds) : [base];
  const fakeOptions = { ...(flags.variants === undefined ? {} : { variants: flags.variants }), ...(flags.mutant === undefined ? {} : { mutant: flags.mutant }) };
  const target = flags.mutant !== undefined ? `mutant ${flags.mutant}` : flags.variants !== undefined ? `variant ${flags.variants.join(", ")}` : "the plain fake";
  process.stdout.write(`interactions: ${seeds.length} seed(s) from ${base} against ${target}\n`);
  let outcomes;
  try {
    outcomes = await propertyAgainstFake({ fakeOptions, seeds, createsPerRun: flags.creates, stopAtFailure: false, ...(flags.path === undefined ? {} : { path: flags.path }) });
  } catch (error) {
    process.stderr.write(`interactions: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  let found = 0;
  let operations = 0;
  for (const { seed, outcome } of outcomes) {
    operations += outcome.operations;
    const all = [...(outcome.failure === undefined ? [] : [outcome.failure]), ...outcome.warnings.map((w) => w.counterexample)];
    for (const c of all) {
      found++;
      const level = requirementById(c.requirement)?.level ?? "MUST";
      process.stdout.write(`\nseed ${seed}, ${level === "MUST" ? "violation" : "warning"} of ${c.requirement}:\n${renderCounterexample(c)}\n`);
    }
  }
  process.stdout.write(`\n${outcomes.length} seed(s), ${operations} operations judged: ${found === 0 ? "nothing found" : `${found} finding(s)`}\n`);
  return found === 0 ? 0 : 1;
}

process.exitCode = await main();
