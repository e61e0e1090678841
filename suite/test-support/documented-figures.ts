/**
 * The figures README's performance section gives for what a run spends, read from its table, so
 * that the tests that run the suite hold the document to what the runs print.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "./runner-fixtures.ts";

/** The creates README's row starting with `label` (e.g. "full run (`npm run conformance`)") says a run spends. */
export async function documentedCreates(label: string): Promise<number> {
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const row = readme.split("\n").find((line) => line.startsWith(`| ${label}: creates spent |`));
  const value = row === undefined ? undefined : /^\| [^|]+\| (\d+)\b/.exec(row)?.[1];
  if (value === undefined) throw new Error(`README.md has no row "| ${label}: creates spent | N …"`);
  return Number(value);
}
