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
import { flagsOrExit, parseFlagValues, UsageError, wholeNumberFlag } from "./cli-flags.ts";

const USAGE = `Usage: npm run interactions -- [options]

Runs the interaction property (the suite's stateful property, judged by the executable model of
the service) against the reference fake for many seeds, and prints what it finds.

  --seeds N       how many seeds, one sequence each (default 100)
  --seed S        the first seed (default: random, printed)
  --path P        with --seed, run exactly the run a counterexample names
  --variant NAME  a conforming variant of the fake (repeatable), or "all"
  --mutant NAME   one deliberately broken mutant of the fake
  --creates N     creates per sequence (default 12)
  --help          show this help

Exit codes: 0 nothing found; 1 a seed found a violation or a warning; 2 a usage error.`;

function parseFlags(argv: string[]) {
  const values = parseFlagValues(argv, {
    seeds: { type: "string" },
    seed: { type: "string" },
    path: { type: "string" },
    variant: { type: "string", multiple: true },
    mutant: { type: "string" },
    creates: { type: "string" },
    help: { type: "boolean" },
  });
  if (values.path !== undefined && !/^\d+(:\d+)*$/.test(values.path)) throw new UsageError(`--path must look like 3 or 3:1:0, not ${JSON.stringify(values.path)}`);
  if (values.path !== undefined && values.seed === undefined) throw new UsageError("--path needs the --seed it was found with");
  return {
    help: values.help === true,
    seeds: wholeNumberFlag("seeds", values.seeds, 1, 100_000) ?? 100,
    seed: wholeNumberFlag("seed", values.seed, 0, MAX_SEED),
    path: values.path,
    variants: values.variant,
    mutant: values.mutant,
    creates: wholeNumberFlag("creates", values.creates, 1, 1_000) ?? 12,
  };
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
