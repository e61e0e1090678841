/**
 * `npm run bench -- [--quick] [--only NAME]...`: which sections run and at what size.
 * --quick keeps every section but shortens durations and shrinks counts, for a smoke run;
 * its figures are noisier and are labelled as such in bench.json.
 */

import { parseArgs } from "node:util";

export const SECTION_NAMES = [
  "throughput",
  "listing",
  "streams",
  "memory",
  "suite",
  "controls",
  "startup",
  "proxy",
] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export interface BenchSettings {
  readonly quick: boolean;
  readonly only: readonly SectionName[];
  readonly out: string;
  readonly throughput: { connections: number; warmupSeconds: number; durationSeconds: number; rounds: number };
  readonly listing: { smallMessages: number; largeMessages: number; samples: number; pageSize: number };
  readonly streams: { streams: number; deltas: number; deltaDelayMs: number };
  readonly memory: { messages: number; conversations: number; textLength: number };
  readonly suite: { runs: number };
  readonly proxy: {
    streams: number;
    deltas: number;
    delayMs: number;
    rounds: number;
    pacedConnections: number;
    harExchanges: number;
    harConnections: number;
    harLimitSeconds: number;
    judgeConversations: number;
  };
  readonly startup: { inProcessRounds: number; processRounds: number; npmRounds: number };
  readonly controls: {
    seconds: number;
    ratePerSecond: number;
    everySeconds: number;
    sessions: number;
    maxSessions: number;
    maxConversations: number;
    idempotencyTtlMs: number;
  };
}

const FULL: Omit<BenchSettings, "quick" | "only" | "out"> = {
  throughput: { connections: 16, warmupSeconds: 2, durationSeconds: 10, rounds: 5 },
  listing: { smallMessages: 100, largeMessages: 100_000, samples: 2_000, pageSize: 50 },
  streams: { streams: 1_000, deltas: 20, deltaDelayMs: 50 },
  memory: { messages: 1_000_000, conversations: 1_000, textLength: 100 },
  suite: { runs: 3 },
  proxy: {
    streams: 100,
    deltas: 20,
    delayMs: 50,
    rounds: 9,
    pacedConnections: 100,
    harExchanges: 100_000,
    harConnections: 16,
    harLimitSeconds: 300,
    judgeConversations: 20_000,
  },
  startup: { inProcessRounds: 50, processRounds: 15, npmRounds: 5 },
  controls: {
    seconds: 60,
    ratePerSecond: 800,
    everySeconds: 2,
    sessions: 40,
    maxSessions: 20,
    maxConversations: 200,
    idempotencyTtlMs: 5_000,
  },
};

const QUICK: typeof FULL = {
  throughput: { connections: 16, warmupSeconds: 1, durationSeconds: 2, rounds: 1 },
  listing: { smallMessages: 100, largeMessages: 100_000, samples: 300, pageSize: 50 },
  streams: { streams: 200, deltas: 20, deltaDelayMs: 50 },
  memory: { messages: 100_000, conversations: 100, textLength: 100 },
  suite: { runs: 1 },
  proxy: {
    streams: 100,
    deltas: 20,
    delayMs: 50,
    rounds: 3,
    pacedConnections: 100,
    harExchanges: 20_000,
    harConnections: 16,
    harLimitSeconds: 120,
    judgeConversations: 5_000,
  },
  startup: { inProcessRounds: 10, processRounds: 3, npmRounds: 1 },
  controls: {
    seconds: 16,
    ratePerSecond: 800,
    everySeconds: 1,
    sessions: 40,
    maxSessions: 20,
    maxConversations: 200,
    idempotencyTtlMs: 5_000,
  },
};

export const USAGE = `Usage: npm run bench -- [--quick] [--only NAME]... [--out FILE]

Measures the reference fake and the conformance suite; prints a table and writes JSON.

  --quick        shorter durations and smaller counts (a smoke run; noisier figures)
  --only NAME    run only this section (repeatable): ${SECTION_NAMES.join(", ")}
  --out FILE     where the JSON goes (default reports/bench.json)
  --help         show this help

Exit codes: 0 every target met; 1 a target missed; 2 bad flags or a section could not run.`;

export type ParsedSettings = { ok: true; settings: BenchSettings } | { ok: false; error: string } | { ok: "help" };

export function parseSettings(argv: readonly string[]): ParsedSettings {
  let values: { quick?: boolean; only?: string[]; out?: string; help?: boolean };
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        quick: { type: "boolean" },
        only: { type: "string", multiple: true },
        out: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  if (values.help) return { ok: "help" };
  const only: SectionName[] = [];
  for (const name of (values.only ?? []).flatMap((item) => item.split(","))) {
    const known = SECTION_NAMES.find((section) => section === name.trim());
    if (!known) return { ok: false, error: `--only ${name}: not a section; use one of ${SECTION_NAMES.join(", ")}` };
    only.push(known);
  }
  const quick = values.quick ?? false;
  return {
    ok: true,
    settings: {
      ...(quick ? QUICK : FULL),
      quick,
      only: only.length > 0 ? only : [...SECTION_NAMES],
      out: values.out ?? "reports/bench.json",
    },
  };
}
