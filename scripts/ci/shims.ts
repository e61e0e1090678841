/**
 * Stand-ins for the commands a CI snippet or the action runs, so they run as printed against
 * this checkout with no registry: `npm ci` (the service's install, which brings the package)
 * and `npm install --prefix DIR … agent-service-conformance@V` (the action's) leave an
 * `agent-conformance` that runs this repository's scripts/conformance.ts, and so does
 * `npx agent-conformance`. Anything else fails loudly: nothing may depend on a command the
 * test never ran.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { conformanceCli } from "../../suite/test-support/conformance-cli.ts";

const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * A deep run against the fake stops at this many creates unless the snippet sets its own cap:
 * the fake is free, and what a deep walk covers on it is the property's tests' to show (a deep
 * run goes on to 400 creates, most of a minute of CPU per shard, where the snippet's commands,
 * shards and merge are what this test runs).
 */
const DEEP_CREATES_AGAINST_THE_FAKE = 48;

const SHARED_RUN = join(import.meta.dirname, "shared-run.mjs");

/**
 * The suite's command line from the sources, as the installed `agent-conformance` bin would run
 * it (conformance-cli.ts); with `sharedRuns`, through shared-run.mjs, so that snippets that come
 * to the same command and settings share one run.
 */
const suiteCommand = (sharedRuns?: string) => {
  const suite = [process.execPath, ...conformanceCli()];
  const command = sharedRuns === undefined ? suite : [process.execPath, SHARED_RUN, sharedRuns, "--", ...suite, "--"];
  return [
    `if [ "\${CONFORMANCE_PROFILE:-}" = deep ] && [ -z "\${CONFORMANCE_MAX_CREATES:-}" ]; then export CONFORMANCE_MAX_CREATES=${DEEP_CREATES_AGAINST_THE_FAKE}; fi`,
    `exec ${command.map(quoted).join(" ")} "$@"`,
  ].join("\n");
};
const suiteScript = (sharedRuns?: string) => `#!/usr/bin/env bash\n${suiteCommand(sharedRuns)}\n`;

async function script(path: string, body: string): Promise<void> {
  await writeFile(path, `#!/usr/bin/env bash\n${body}\n`);
  await chmod(path, 0o755);
}

/** Bash that writes the suite's bin into the node_modules under $1. */
const installInto = (sharedRuns?: string) =>
  [
    "install_into() {",
    '  mkdir -p "$1/node_modules/.bin"',
    `  printf '%s' ${quoted(suiteScript(sharedRuns))} > "$1/node_modules/.bin/agent-conformance"`,
    '  chmod +x "$1/node_modules/.bin/agent-conformance"',
    "}",
  ].join("\n");

/**
 * A folder for the front of PATH with the `npm` and `npx` stand-ins; every npm command line
 * is appended to `log`. With `sharedRuns` (a folder), the suite's runs with the same command
 * and settings are run once (shared-run.mjs).
 */
export async function snippetCommands(
  folder: string,
  log = join(folder, "npm.log"),
  sharedRuns?: string,
): Promise<string> {
  await mkdir(folder, { recursive: true });
  await script(
    join(folder, "npm"),
    [
      installInto(sharedRuns),
      `printf '%s\\n' "$*" >> ${quoted(log)}`,
      'prefix=""; for arg in "$@"; do [ "$previous" = "--prefix" ] && prefix="$arg"; previous="$arg"; done',
      'case "$1" in',
      '  ci) install_into "$PWD"; echo "(npm ci: the service\'s devDependencies, agent-service-conformance among them)" ;;',
      '  install) [ -n "$prefix" ] || { echo "npm $*: the stand-in installs with --prefix only" >&2; exit 127; }',
      '    case "${!#}" in agent-service-conformance@*) install_into "$prefix" ;; *) echo "npm $*: not this package" >&2; exit 127 ;; esac ;;',
      '  *) echo "npm $*: not a command the CI snippets may use" >&2; exit 127 ;;',
      "esac",
    ].join("\n"),
  );
  await script(
    join(folder, "npx"),
    [
      `if [ "$1" = "agent-conformance" ]; then shift; ${suiteCommand(sharedRuns)}; fi`,
      'echo "npx $*: not a command the CI snippets may use" >&2; exit 127',
    ].join("\n"),
  );
  return folder;
}

/** `node_modules/.bin/agent-conformance` in `project`, as a devDependency install leaves it. */
export async function installedSuite(project: string): Promise<string> {
  const bin = join(project, "node_modules/.bin");
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, "agent-conformance"), suiteScript());
  await chmod(join(bin, "agent-conformance"), 0o755);
  return join(bin, "agent-conformance");
}
