/**
 * Node's flags to run a TypeScript entry point the way `npm run conformance` does: one process
 * with tsx's loader, registered by scripts/with-tsx.mjs once vitest's Node API has loaded
 * (that file says why). tsx's own launcher runs the script in a second process and, on SIGTERM,
 * kills it with SIGKILL when it does not confirm the signal within 30 ms, which a loaded machine
 * misses: a test that signals a command must signal the command itself.
 */

import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dirname, "../..");

export const WITH_TSX: readonly string[] = ["--import", pathToFileURL(join(ROOT, "scripts/with-tsx.mjs")).href];
