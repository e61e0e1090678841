/**
 * Node's flags to run a TypeScript entry point the way `npm run conformance` and `npm run fake`
 * do: one process with tsx's loader. tsx's own launcher runs the script in a second process and,
 * on SIGTERM, kills it with SIGKILL when it does not confirm the signal within 30 ms, which a
 * loaded machine misses: a test that signals a command must signal the command itself.
 */

import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "../..");

export const WITH_TSX: readonly string[] = [
  "--import",
  pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href,
];
