/**
 * npm run interactions -- [--seeds N] [--seed S] [--path P] [--variant NAME] [--mutant NAME] [--creates N]
 * npm run interactions -- --kill-rate --runs N [--profile full|smoke] [--mutant NAME…] [--json FILE]
 * Runs the interaction property against the reference fake (a variant or a mutant of it) for as
 * many seeds as asked, one sequence each, and prints every counterexample with the command that
 * replays it. `--seed S --path P` runs exactly the sequence a counterexample names. Exit 0 when
 * nothing was found, 1 when a seed found a violation (a MUST) or a warning (a SHOULD), 2 on a
 * usage error.
 * `--kill-rate` instead runs each interaction mutant N times with seeds from a random base and
 * prints how many runs caught it by its own requirement (scripts/interactions/kill-rate.ts):
 * exit 0 when every run did, 1 when a run missed.
 */
import { writeFile } from "node:fs/promises";
import { requirementById } from "../requirements/catalog.ts";
import { mutantByName, MUTANTS } from "../fake-server/variants/mutants.ts";
import { propertyAgainstFake } from "../suite/interactions/against-fake.ts";
import { renderCounterexample } from "../suite/interactions/counterexample.ts";
import { baseSeed, MAX_SEED, seedsFrom } from "../suite/interactions/seeds.ts";
import {
  flagHelp,
  flagsOrExit,
  flagValuesOrThrow,
  listFlag,
  stringFlag,
  switchFlag,
  textFlag,
  UsageError,
  wholeNumberFlag,
  type FlagTable,
} from "../cli/flags.ts";
import {
  interactionMutants,
  killRate,
  killRateLines,
  PROFILE_CREATES,
  type KillProfile,
} from "./interactions/kill-rate.ts";

/** Creates per sequence unless --creates says otherwise. */
const DEFAULT_CREATES = 12;

const FLAGS = {
  seeds: {
    name: "seeds",
    value: "N",
    help: "how many seeds, one sequence each (default 100)",
    parser: wholeNumberFlag("seeds", 1, 100_000, 100),
  },
  seed: {
    name: "seed",
    value: "S",
    help: "the first seed (default: random, printed)",
    parser: wholeNumberFlag("seed", 0, MAX_SEED),
  },
  path: {
    name: "path",
    value: "P",
    help: "with --seed, run exactly the run a counterexample names",
    parser: textFlag((path) => {
      if (path !== undefined && !/^\d+(:\d+)*$/.test(path))
        throw new UsageError(`--path must look like 3 or 3:1:0, not ${JSON.stringify(path)}`);
      return path;
    }),
  },
  variants: {
    name: "variant",
    value: "NAME",
    multiple: true,
    help: 'a conforming variant of the fake (repeatable), or "all"',
    parser: listFlag(),
  },
  mutants: {
    name: "mutant",
    value: "NAME",
    multiple: true,
    help: "a deliberately broken mutant of the fake (one; with --kill-rate\nrepeatable, default every interaction mutant)",
    parser: listFlag(),
  },
  creates: {
    name: "creates",
    value: "N",
    help: `creates per sequence (default ${DEFAULT_CREATES})`,
    parser: wholeNumberFlag("creates", 1, 1_000, DEFAULT_CREATES),
  },
  killRate: {
    name: "kill-rate",
    help: "run each interaction mutant --runs times and print how many runs caught it\nby its own requirement",
    parser: switchFlag(),
  },
  runs: {
    name: "runs",
    value: "N",
    help: "with --kill-rate: runs per mutant, each with its own seed (default 10)",
    parser: wholeNumberFlag("runs", 1, 10_000, 10),
  },
  profile: {
    name: "profile",
    value: "full|smoke",
    help: `with --kill-rate: the property's creates in that profile's conformance run\n(full ${PROFILE_CREATES.full}, smoke ${PROFILE_CREATES.smoke}; default full)`,
    parser: textFlag((profile): KillProfile => {
      if (profile === undefined) return "full";
      if (profile === "full" || profile === "smoke") return profile;
      throw new UsageError(`--profile must be full or smoke, not ${JSON.stringify(profile)}`);
    }),
  },
  json: {
    name: "json",
    value: "FILE",
    help: "with --kill-rate: also write the table to FILE as JSON",
    parser: stringFlag(),
  },
  concurrency: {
    name: "concurrency",
    value: "N",
    help: "with --kill-rate: runs at once, each against a fake of its own (default 4)",
    parser: wholeNumberFlag("concurrency", 1, 64, 4),
  },
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

const USAGE = `Usage: npm run interactions -- [options]
       npm run interactions -- --kill-rate --runs N [--profile full|smoke] [--mutant NAME...] [--json FILE]

Runs the interaction property (the suite's stateful property, judged by the executable model of
the service) against the reference fake for many seeds, and prints what it finds. With
--kill-rate, runs each interaction mutant of the fake N times and prints how many runs caught it
by its own requirement.

${flagHelp(FLAGS, { helpAt: 22 })}

Exit codes: 0 nothing found (--kill-rate: every run caught its mutant); 1 a seed found a
violation or a warning (--kill-rate: a run missed its mutant); 2 a usage error.`;

type Flags = ReturnType<typeof parseFlags>;

function parseFlags(argv: string[]) {
  const values = flagValuesOrThrow(FLAGS, argv);
  if (values.path !== undefined && values.seed === undefined)
    throw new UsageError("--path needs the --seed it was found with");
  for (const name of values.mutants ?? []) {
    if (mutantByName(name) === undefined)
      throw new UsageError(
        `--mutant ${name}: no such mutant (${MUTANTS.filter((m) => m.interaction)
          .map((m) => m.name)
          .join(", ")} are the interaction mutants)`,
      );
  }
  if (!values.killRate && (values.mutants?.length ?? 0) > 1)
    throw new UsageError("--mutant: one mutant at a time (several only with --kill-rate)");
  if (values.killRate && (values.variants !== undefined || values.path !== undefined))
    throw new UsageError("--kill-rate runs the mutants: --variant and --path do not apply");
  return values;
}

/** The command that runs exactly this sequence again, against the same fake. */
function replayLine(flags: Flags, seed: number, path: string): string {
  const parts = ["npm run interactions --", `--seed ${seed}`, `--path ${path}`];
  if (flags.creates !== DEFAULT_CREATES) parts.push(`--creates ${flags.creates}`);
  for (const variant of flags.variants ?? []) parts.push(`--variant ${variant}`);
  for (const mutant of flags.mutants ?? []) parts.push(`--mutant ${mutant}`);
  return parts.join(" ");
}

async function seedsRun(flags: Flags): Promise<number> {
  const base = flags.seed ?? baseSeed(undefined);
  const seeds = flags.path === undefined ? seedsFrom(base, flags.seeds) : [base];
  const mutant = flags.mutants?.[0];
  const fakeOptions = {
    ...(flags.variants === undefined ? {} : { variants: flags.variants }),
    ...(mutant === undefined ? {} : { mutant }),
  };
  const target =
    mutant !== undefined
      ? `mutant ${mutant}`
      : flags.variants !== undefined
        ? `variant ${flags.variants.join(", ")}`
        : "the plain fake";
  process.stdout.write(`interactions: ${seeds.length} seed(s) from ${base} against ${target}\n`);
  let outcomes;
  try {
    outcomes = await propertyAgainstFake({
      fakeOptions,
      seeds,
      createsPerRun: flags.creates,
      stopAtFailure: false,
      ...(flags.path === undefined ? {} : { path: flags.path }),
    });
  } catch (error) {
    process.stderr.write(`interactions: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  let found = 0;
  let operations = 0;
  for (const { seed, outcome } of outcomes) {
    operations += outcome.operations;
    const all = [
      ...(outcome.failure === undefined ? [] : [outcome.failure]),
      ...outcome.warnings.map((w) => w.counterexample),
    ];
    for (const c of all) {
      found++;
      const level = requirementById(c.requirement)?.level ?? "MUST";
      // The fake's options belong in the replay: the same seed against the plain fake runs another sequence.
      const shown = { ...c, replay: replayLine(flags, c.seed, c.path) };
      process.stdout.write(
        `\nseed ${seed}, ${level === "MUST" ? "violation" : "warning"} of ${c.requirement}:\n${renderCounterexample(shown)}\n`,
      );
    }
  }
  process.stdout.write(
    `\n${outcomes.length} seed(s), ${operations} operations judged: ${found === 0 ? "nothing found" : `${found} finding(s)`}\n`,
  );
  return found === 0 ? 0 : 1;
}

async function killRateRun(flags: Flags): Promise<number> {
  const mutants =
    flags.mutants === undefined
      ? interactionMutants()
      : flags.mutants.map((name) => mutantByName(name)).filter((m) => m !== undefined);
  const base = flags.seed ?? baseSeed(undefined);
  process.stdout.write(
    `kill rate: ${mutants.length} mutant(s) × ${flags.runs} run(s), seeds from ${base}, profile ${flags.profile} (${PROFILE_CREATES[flags.profile]} creates per run), ${flags.concurrency} at once\n`,
  );
  let table;
  try {
    table = await killRate({
      mutants,
      runs: flags.runs,
      profile: flags.profile,
      baseSeed: base,
      concurrency: flags.concurrency,
    });
  } catch (error) {
    process.stderr.write(`interactions: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  for (const line of killRateLines(table)) process.stdout.write(`${line}\n`);
  if (flags.json !== undefined) {
    await writeFile(flags.json, `${JSON.stringify(table, null, 2)}\n`);
    process.stdout.write(`written: ${flags.json}\n`);
  }
  return table.total.caught === table.total.runs ? 0 : 1;
}

async function main(): Promise<number> {
  const flags = flagsOrExit("interactions", USAGE, () => parseFlags(process.argv.slice(2)));
  if (typeof flags === "number") return flags;
  return flags.killRate ? killRateRun(flags) : seedsRun(flags);
}

process.exitCode = await main();
