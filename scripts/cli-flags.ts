import { parseArgs, type ParseArgsConfig } from "node:util";

/** A mistake in a command line: the entry point prints it with its usage and exits 2. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** What parseArgs gives for each flag (named here: the package's declarations need a nameable type). */
export type FlagValues<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: "boolean" }
    ? O[K] extends { multiple: true } ? boolean[] : boolean
    : O[K] extends { multiple: true } ? string[] : string;
};

/** util.parseArgs with no positionals and no unknown flags; its complaints become UsageErrors. */
export function parseFlagValues<const O extends Options>(args: string[], options: O): FlagValues<O> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as FlagValues<O>;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The flags of a command line, or the exit code when there is nothing to run: 0 after printing
 * the usage for --help, 2 after printing a usage error with the usage.
 */
export function flagsOrExit<F extends { help: boolean }>(command: string, usage: string, parse: () => F): F | 0 | 2 {
  let flags: F;
  try {
    flags = parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${command}: ${error.message}\n\n${usage}\n`);
    return 2;
  }
  if (!flags.help) return flags;
  process.stdout.write(`${usage}\n`);
  return 0;
}

/** A whole-number flag within [min, max]; undefined when the flag was not given. */
export function wholeNumberFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= min && parsed <= max)) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return parsed;
}
