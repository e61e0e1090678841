/**
 * One flag table per command line (the suite, the traffic proxy and judge, the fake, and the
 * proof's and the interaction property's scripts): each row names a flag, its environment
 * variable, its help text and its parser, so that parsing, environment and --help come from
 * one place. util.parseArgs reads the arguments, strictly. Outside suite/ and fake-server/, so
 * that the fake's command line takes it without any of the suite.
 */
import { parseArgs } from "node:util";
import { closestName } from "./closest-name.ts";

/** A mistake in a command line (one line per problem): the entry point prints it and exits 2. */
export class UsageError extends Error {
  readonly problems: readonly string[];

  constructor(...problems: [string, ...string[]]) {
    super(problems.join("\n"));
    this.problems = problems;
  }
}

/**
 * A flag the command does not have: one line naming the known flag it most likely meant, never
 * the whole usage (the entry points print `message` alone).
 */
export class UnknownFlagError extends UsageError {
  readonly flag: string;
  readonly suggestion: string | undefined;

  constructor(flag: string, known: readonly string[]) {
    const suggestion = closestName(flag.replace(/^-+/, ""), known);
    super(
      `Unknown option ${flag}: ${suggestion === undefined ? "--help lists the flags" : `did you mean --${suggestion}?`}`,
    );
    this.flag = flag;
    this.suggestion = suggestion === undefined ? undefined : `--${suggestion}`;
  }
}

/** What parseArgs refused: an unknown flag named with the closest known one, anything else as it said. */
function usageErrorOf(error: unknown, table: FlagTable): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if ((error as { code?: unknown }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown?.[1] !== undefined) {
    return new UnknownFlagError(
      unknown[1].split("=")[0] ?? unknown[1],
      Object.values(table).map((row) => row.name),
    );
  }
  const positional = /^Unexpected argument '([\s\S]*)'\. This command does not take positional arguments/.exec(message);
  if (positional?.[1] !== undefined)
    return new UsageError(
      `unexpected argument ${JSON.stringify(positional[1])}: this command takes flags only (--help lists them)`,
    );
  return new UsageError(message);
}

/**
 * What a flag was given: its text (or its texts, when repeatable), true for a switch, or its
 * environment variable's text; undefined when neither was given.
 */
export type RawFlag = string | readonly string[] | boolean | undefined;

/** Turns what a flag was given into the program's value; throws UsageError. A zod schema is one too. */
export interface FlagParser<T> {
  parse(raw: RawFlag): T;
}

/** One row of a flag table. */
export interface Flag<T = unknown> {
  /** Without its dashes: "max-creates". */
  name: string;
  /** Its value's placeholder in the help ("N", "URL"); a flag without one is a switch. */
  value?: string;
  /** Repeatable: its values arrive as a list. */
  multiple?: boolean;
  /** Read when the flag is absent (a flag wins; an empty variable counts as absent). */
  env?: string;
  /** The help text; a line break continues it under the first line. */
  help: string;
  parser: FlagParser<T>;
}

/** A command line's flags, by the name its program uses for each. */
export type FlagTable = Readonly<Record<string, Flag>>;

/** A table's parsed values, by row. */
type FlagValues<F extends FlagTable> = { [K in keyof F]: F[K] extends Flag<infer T> ? T : never };

interface ReadOptions {
  /** Where the rows' environment variables are read (none when absent). */
  env?: NodeJS.ProcessEnv;
  /** Whether arguments that are not flags are taken (default: they are a UsageError). */
  positionals?: boolean;
}

/** What each row was given (flag > environment), unparsed; util.parseArgs's complaints become UsageErrors. */
export function readFlags<F extends FlagTable>(
  table: F,
  argv: readonly string[],
  options: ReadOptions = {},
): { raw: { [K in keyof F]: RawFlag }; positionals: string[] } {
  const config: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const row of Object.values(table)) {
    config[row.name] = {
      type: row.value === undefined ? "boolean" : "string",
      ...(row.multiple ? { multiple: true } : {}),
    };
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: config,
      strict: true,
      allowPositionals: options.positionals === true,
    });
  } catch (error) {
    throw usageErrorOf(error, table);
  }
  const raw: Record<string, RawFlag> = {};
  for (const [key, row] of Object.entries(table)) {
    const fromFlag = parsed.values[row.name] as RawFlag;
    const fromEnv = row.env === undefined ? undefined : options.env?.[row.env];
    raw[key] = fromFlag ?? (fromEnv === "" ? undefined : fromEnv);
  }
  return { raw: raw as { [K in keyof F]: RawFlag }, positionals: parsed.positionals };
}

type ParsedFlags<F extends FlagTable> =
  | { ok: true; values: FlagValues<F>; positionals: string[] }
  /** What is wrong with the values given, one line per row that refused its value, in table order; and the values that were fine. */
  | { ok: false; problems: string[]; values: Partial<FlagValues<F>> };

/**
 * Reads and parses every row. A command line util.parseArgs refuses throws its UsageError;
 * values a row's parser refuses are collected as problems. Other errors are not caught.
 */
export function parseFlags<F extends FlagTable>(
  table: F,
  argv: readonly string[],
  options: ReadOptions = {},
): ParsedFlags<F> {
  const { raw, positionals } = readFlags(table, argv, options);
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, row] of Object.entries(table)) {
    try {
      values[key] = row.parser.parse(raw[key]);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push(...error.problems);
    }
  }
  return problems.length > 0
    ? { ok: false, problems, values: values as Partial<FlagValues<F>> }
    : { ok: true, values: values as FlagValues<F>, positionals };
}

/**
 * One flag's text read straight from the arguments, without parsing the rest: where a command
 * that stops on a usage error still writes its reports (--report-dir).
 */
export function flagValueOf(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
    else if (arg === `--${name}` && argv[i + 1] !== undefined && !argv[i + 1]?.startsWith("--")) value = argv[i + 1];
  });
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** A parser from a function of the flag's text (undefined when absent). */
export function textFlag<T>(parse: (text: string | undefined) => T): FlagParser<T> {
  return { parse: (raw) => parse(typeof raw === "string" ? raw : undefined) };
}

/** The flag's text, or `fallback` when it was not given. */
export function stringFlag(): FlagParser<string | undefined>;
export function stringFlag(fallback: string): FlagParser<string>;
export function stringFlag(fallback?: string): FlagParser<string | undefined> {
  return textFlag((text) => text ?? fallback);
}

/** A repeatable flag's texts (undefined when never given). */
export function listFlag(): FlagParser<string[] | undefined> {
  return { parse: (raw) => (Array.isArray(raw) ? [...raw] : typeof raw === "string" ? [raw] : undefined) };
}

/** A switch: true when given. */
export function switchFlag(): FlagParser<boolean> {
  return { parse: (raw) => raw === true };
}

/** A whole-number flag within [min, max]; `fallback` (or undefined) when the flag was not given. */
export function wholeNumberFlag(name: string, min: number, max: number): FlagParser<number | undefined>;
export function wholeNumberFlag(name: string, min: number, max: number, fallback: number): FlagParser<number>;
export function wholeNumberFlag(
  name: string,
  min: number,
  max: number,
  fallback?: number,
): FlagParser<number | undefined> {
  return textFlag((value) => {
    if (value === undefined) return fallback;
    const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!(parsed >= min && parsed <= max)) {
      throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
    }
    return parsed;
  });
}

interface HelpLayout {
  /** The characters before each help text: where it starts, and where its further lines go. */
  helpAt: number;
  /** A flag too long for that column: help on the next line (default), or after one space. */
  longFlag?: "next-line" | "same-line";
  /** Each help ends with its environment variable, "[CONFORMANCE_…]". */
  showEnv?: boolean;
}

/** The table's lines of a --help text, two spaces in. */
export function flagHelp(table: FlagTable, layout: HelpLayout): string {
  const lines: string[] = [];
  const pad = " ".repeat(layout.helpAt);
  for (const row of Object.values(table)) {
    const flag = `--${row.name}${row.value === undefined ? "" : ` ${row.value}`}`;
    const help = row.help.split("\n");
    if (layout.showEnv && row.env !== undefined) help[help.length - 1] += ` [${row.env}]`;
    const [first = "", ...more] = help;
    if (2 + flag.length + 1 <= layout.helpAt) lines.push(`  ${flag.padEnd(layout.helpAt - 3)} ${first}`);
    else if (layout.longFlag === "same-line") lines.push(`  ${flag} ${first}`);
    else lines.push(`  ${flag}`, `${pad}${first}`);
    for (const line of more) lines.push(`${pad}${line}`);
  }
  return lines.join("\n");
}

/** A usage error as a command prints it: an unknown flag in one line, anything else followed by the usage. */
export function usageErrorText(command: string, error: UsageError, usage: string): string {
  return error instanceof UnknownFlagError
    ? `${command}: ${error.message}`
    : `${command}: ${error.message}\n\n${usage}`;
}

/**
 * The flags of a command line, or the exit code when there is nothing to run: 0 after printing
 * the usage for --help, 2 after printing a usage error (with the usage, unless it is an unknown
 * flag: that is one line naming the flag meant).
 */
export function flagsOrExit<F extends { help: boolean }>(command: string, usage: string, parse: () => F): F | 0 | 2 {
  let flags: F;
  try {
    flags = parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${usageErrorText(command, error, usage)}\n`);
    return 2;
  }
  if (!flags.help) return flags;
  process.stdout.write(`${usage}\n`);
  return 0;
}

/** parseFlags for the scripts whose every mistake is one UsageError printed with the usage (flagsOrExit). */
export function flagValuesOrThrow<F extends FlagTable>(table: F, argv: readonly string[]): FlagValues<F> {
  const parsed = parseFlags(table, argv);
  if (!parsed.ok) throw new UsageError(parsed.problems[0] ?? "");
  return parsed.values;
}
