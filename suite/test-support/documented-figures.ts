/**
 * The figures README's performance section gives for what a run spends, read from its table, so
 * that the tests that run the suite hold the document to what the runs print.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "./runner-fixtures.ts";

async function documentedValue(label: string): Promise<string> {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const row = readme.split("\n").find((line) => line.startsWith(`| ${label}: creates spent |`));
  const value = row === undefined ? undefined : /^\| [^|]+\| ([^|]+)\|/.exec(row)?.[1];
  if (value === undefined) throw new Error(`README.md has no row "| ${label}: creates spent | N …"`);
  return value;
}

/** The creates README's row starting with `label` (e.g. "`--only SSE-1`") says a run spends. */
export async function documentedCreates(label: string): Promise<number> {
  const value = /^(\d+)\b/.exec(await documentedValue(label))?.[1];
  if (value === undefined) throw new Error(`README.md's row "${label}: creates spent" does not start with a number`);
  return Number(value);
}

/**
 * What README's row says a profile spends: at most `cap`, of which the checks spend exactly
 * `checks` and the interaction property up to `property` (it stops early once a sequence adds no
 * new cell, so its own spend varies from run to run).
 */
export async function documentedProfileCreates(
  label: string,
): Promise<{ cap: number; checks: number; property: number }> {
  const value = await documentedValue(label);
  const match = /^at most (\d+): (\d+) by the checks, up to (\d+) by the interaction property\b/.exec(value);
  if (match === null)
    throw new Error(
      `README.md's row "${label}: creates spent" does not read "at most N: N by the checks, up to N by the interaction property"`,
    );
  return { cap: Number(match[1]), checks: Number(match[2]), property: Number(match[3]) };
}
