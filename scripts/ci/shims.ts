/**
 * Stand-ins for the commands a CI snippet runs in a service's repository, so the snippet runs
 * as printed against this checkout: `npm ci` (the service's install, which brings the package)
 * does nothing, and `npx agent-conformance` runs this repository's scripts/conformance.ts.
 * Anything else fails loudly: a snippet may not depend on a command the test never ran.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX_CLI = createRequire(import.meta.url).resolve("tsx/cli");
const CONFORMANCE = join(ROOT, "scripts/conformance.ts");

const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The suite's command line from the sources, as the installed `agent-conformance` bin would run it. */
export const SUITE_COMMAND = `exec ${quoted(process.execPath)} ${quoted(TSX_CLI)} ${quoted(CONFORMANCE)} "$@"`;

async function script(path: string, body: string): Promise<void> {
  await writeFile(path, `#!/usr/bin/env bash\n${body}\n`);
  await chmod(path, 0o755);
}

/** A folder for the front of PATH with `npm` and `npx` stand-ins. */
export async function snippetCommands(folder: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  await script(join(folder, "npm"), [
    'case "$1" in',
    '  ci|install) echo "(npm $*: the service\'s own install, skipped)"; exit 0 ;;',
    '  *) echo "npm $*: not a command the CI snippets may use" >&2; exit 127 ;;',
    "esac",
  ].join("\n"));
  await script(join(folder, "npx"), [
    'if [ "$1" = "agent-conformance" ]; then shift; ' + SUITE_COMMAND + "; fi",
    'echo "npx $*: not a command the CI snippets may use" >&2; exit 127',
  ].join("\n"));
  return folder;
}

/** `node_modules/.bin/agent-conformance` in `project`, as a devDependency install leaves it. */
export async function installedSuite(project: string): Promise<string> {
  const bin = join(project, "node_modules/.bin");
  await mkdir(bin, { recursive: true });
  await script(join(bin, "agent-conformance"), SUITE_COMMAND);
  return join(bin, "agent-conformance");
}
