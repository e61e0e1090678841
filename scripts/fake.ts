/**
 * npm run --silent fake -- [--port N] [--host H] [--key TOKEN=AGENT[,AGENT...][@CHANNEL]]...
 *   [--seed N] [--no-faults] [--fault SPEC] [--answers FILE] [--state FILE] [--no-cors]
 *   [--max-conversations N] [--max-sessions N] [--idempotency-ttl SECONDS] [--mutant NAME] [--variant NAME[,NAME]]
 * Runs the in-memory reference fake until SIGINT or SIGTERM (or, under npm or npx, until the
 * process that started it is gone), then prints a summary of the client violations it saw on
 * stderr. First stdout line: "listening on http://HOST:PORT" (`--silent` keeps npm's banner out
 * of the way). Bad flags: a message on stderr and exit code 2.
 */
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
  type RawFlag,
} from "../cli/flags.ts";
import { AnswersFileError, answerRulesFromFile } from "./fake-answers-file.ts";
import { mergedCounts, summaryLines } from "../fake-server/client-rules/summary.ts";
import { createFakeServer, DEFAULT_KEYS, type FakeServerOptions } from "../fake-server/index.ts";
import { MUTANT_NAMES, mutantByName } from "../fake-server/variants/mutants.ts";
import { ALL_VARIANTS, VARIANT_NAMES, variantByName, variantList } from "../fake-server/variants/variants.ts";

/** Names as lines of at most about 60 columns, for the help text. */
function nameLines(names: readonly string[]): string {
  const lines: string[] = [];
  let line = "";
  for (const name of names) {
    const next = line === "" ? name : `${line}, ${name}`;
    if (next.length > 60 && line !== "") {
      lines.push(`${line},`);
      line = name;
    } else {
      line = next;
    }
  }
  lines.push(line);
  return lines.join("\n");
}

const FLAGS = {
  port: {
    name: "port",
    value: "N",
    help: "port to listen on (default 0: any free port)",
    parser: wholeNumberFlag("port", 0, 65_535),
  },
  host: { name: "host", value: "HOST", help: "address to listen on (default 127.0.0.1)", parser: stringFlag() },
  keys: {
    name: "key",
    value: "TOKEN=AGENT[,AGENT...][@CHANNEL]",
    multiple: true,
    help: `an API key and the agents it grants on one channel
(repeatable; channel defaults to "default";
default keys: ${DEFAULT_KEYS.join(" and ")})`,
    parser: listFlag(),
  },
  seed: {
    name: "seed",
    value: "N",
    help: "seed of the answer engine (default 1)",
    parser: wholeNumberFlag("seed", 0, 0xffff_ffff),
  },
  noFaults: { name: "no-faults", help: "refuse the X-Fake-Fault header and fault rules (400)", parser: switchFlag() },
  fault: {
    name: "fault",
    value: "SPEC",
    help: `a fault for every /v1 request that sends no X-Fake-Fault
and matches no fault rule, in the header's syntax,
e.g. first-event-delay=800,delta-delay=60`,
    parser: stringFlag(),
  },
  answers: {
    name: "answers",
    value: "FILE",
    help: `answer rules to load at start: a JSON array of the
bodies POST /__fake/answers takes`,
    // A file that cannot be used throws AnswersFileError, which is not a mistake in the command line.
    parser: textFlag((file) => (file === undefined ? undefined : answerRulesFromFile(file))),
  },
  state: {
    name: "state",
    value: "FILE",
    help: `load every session's conversations from FILE at start
when it exists; write them to it on a clean stop`,
    parser: stringFlag(),
  },
  noCors: { name: "no-cors", help: "no CORS headers, no answers to preflight requests", parser: switchFlag() },
  maxConversations: {
    name: "max-conversations",
    value: "N",
    help: `conversations kept per session; past it the oldest
goes (default 10000)`,
    parser: wholeNumberFlag("max-conversations", 1, 100_000_000),
  },
  maxSessions: {
    name: "max-sessions",
    value: "N",
    help: `sessions kept; past it the least recently used one
goes, never "default" (default 1000)`,
    parser: wholeNumberFlag("max-sessions", 2, 1_000_000),
  },
  idempotencyTtlSeconds: {
    name: "idempotency-ttl",
    value: "SECONDS",
    help: "how long idempotency records live (default 86400)",
    parser: wholeNumberFlag("idempotency-ttl", 1, 10 * 365 * 24 * 3600),
  },
  variants: {
    name: "variant",
    value: "NAME[,NAME]",
    multiple: true,
    help: `other legal choices in the spec's gaps (repeatable;
"${ALL_VARIANTS}": every one that combines with the others):
${nameLines(VARIANT_NAMES)}`,
    parser: {
      parse: (raw: RawFlag) => {
        const variants = (listFlag().parse(raw) ?? []).flatMap((v) => variantList(v));
        for (const name of variants) {
          if (name !== ALL_VARIANTS && variantByName(name) === undefined) {
            throw new UsageError(
              `--variant: unknown variant ${JSON.stringify(name)}; known: ${[...VARIANT_NAMES, ALL_VARIANTS].join(", ")}`,
            );
          }
        }
        return variants;
      },
    },
  },
  mutant: {
    name: "mutant",
    value: "NAME",
    help: `break one requirement on purpose, to prove a test suite
(fake-server/variants/mutants.ts says which):
${nameLines(MUTANT_NAMES)}`,
    parser: textFlag((mutant) => {
      if (mutant !== undefined && mutantByName(mutant) === undefined) {
        throw new UsageError(`--mutant: unknown mutant ${JSON.stringify(mutant)}; known: ${MUTANT_NAMES.join(", ")}`);
      }
      return mutant;
    }),
  },
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

const USAGE = `Usage: agent-service-fake [options]
       (in this repository: npm run --silent fake -- [options])

Runs the in-memory reference fake of the Conversational Agent Service.

${flagHelp(FLAGS, { helpAt: 28 })}

See fake-server/README.md for the routes, the scope rule and fault injection.`;

function parseFlags(argv: string[]): FakeServerOptions & { help: boolean } {
  const values = flagValuesOrThrow(FLAGS, argv);
  return {
    help: values.help,
    port: values.port,
    host: values.host,
    keys: values.keys,
    seed: values.seed,
    faults: !values.noFaults,
    fault: values.fault,
    answers: values.answers,
    stateFile: values.state,
    cors: !values.noCors,
    maxConversations: values.maxConversations,
    maxSessions: values.maxSessions,
    idempotencyTtlMs: values.idempotencyTtlSeconds === undefined ? undefined : values.idempotencyTtlSeconds * 1000,
    mutant: values.mutant,
    variants: values.variants,
  };
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = flagsOrExit("agent-service-fake", USAGE, () => parseFlags(process.argv.slice(2)));
  } catch (error) {
    // A file that cannot be used is not a mistake in the command line: one line, not the usage.
    if (!(error instanceof AnswersFileError)) throw error;
    process.stderr.write(`agent-service-fake: ${error.message}\n`);
    return 2;
  }
  if (typeof parsed === "number") return parsed;
  const { help: _help, ...flags } = parsed;
  let server;
  try {
    server = await createFakeServer(flags);
  } catch (error) {
    // Invalid keys or an unusable address are configuration errors, like a bad flag.
    process.stderr.write(`agent-service-fake: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const running = server;
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    // The handlers stay: under `npm run fake` one Ctrl-C arrives twice, from the terminal and
    // forwarded by npm, and a second signal without a handler would kill the fake mid-close.
    const stop = () => {
      if (stopping) return;
      stopping = true;
      clearInterval(orphanWatch);
      void running.close().then(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    // npx, and npm scripts without `exec` (npm_lifecycle_event is set), run the fake under `sh -c`,
    // which dies of the signal npm forwards without passing it on (dash does not exec the last
    // command). Node has no event for a parent's exit: the fake watches for being re-parented.
    const parent = process.ppid;
    const orphanWatch =
      process.env.npm_lifecycle_event === undefined
        ? undefined
        : setInterval(() => process.ppid !== parent && stop(), 200).unref();
  });
  // Printed once the handlers are in place: whoever reads this line may signal the fake at once.
  process.stdout.write(`listening on ${running.url}\n`);
  const broken = flags.mutant === undefined ? undefined : mutantByName(flags.mutant);
  // A mutant is not the reference fake: say so where a person will see it.
  if (broken)
    process.stderr.write(
      `fake: mutant ${broken.name} breaks ${broken.requirement} on purpose: ${broken.description}\n`,
    );
  await stopped;
  // What the clients broke while the fake ran (fake-server/CLIENT-TESTING.md), for the developer who stopped it.
  const counts = mergedCounts(running.sessions().map((session) => running.clientViolationCounts({ session })));
  process.stderr.write(`${summaryLines(counts).join("\n")}\n`);
  return 0;
}

process.exitCode = await main();
