/**
 * npm run build: the package's dist/ from scratch: the old one removed, tsc over
 * tsconfig.build.json (JavaScript and declarations, the bins agent-conformance and
 * agent-service-fake), then the single-file fake dist/agent-service-fake.mjs (bundle-fake.ts).
 * `npm pack` runs it (prepack). Exit 0 when built, 1 when a step failed, 2 on a usage error.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { flagsOrExit, flagValuesOrThrow, switchFlag, type FlagTable } from "../cli/flags.ts";
import { BUNDLE_NAME, bundleFake } from "./package/bundle-fake.ts";

const ROOT = resolve(import.meta.dirname, "..");

const FLAGS = {
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

const USAGE = `Usage: npm run build

Builds the package into dist/ from scratch: removes dist/, compiles with tsc
(tsconfig.build.json: JavaScript, declarations, the bins agent-conformance and
agent-service-fake), then bundles the single-file fake dist/${BUNDLE_NAME}.
npm pack and npm publish run it first (prepack).

  --help  show this help

Exit codes: 0 built; 1 a step failed; 2 a usage error.`;

function build(): number {
  rmSync(resolve(ROOT, "dist"), { recursive: true, force: true });
  // The compiler's own entry point, as node_modules/.bin/tsc runs it (its package exports no bin path).
  const tsc = resolve(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");
  const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
  return compiled.status ?? 1;
}

const flags = flagsOrExit("build", USAGE, () => flagValuesOrThrow(FLAGS, process.argv.slice(2)));
if (typeof flags === "number") {
  process.exitCode = flags;
} else {
  const code = build();
  if (code !== 0) process.exitCode = code;
  else await bundleFake(resolve(ROOT, "dist", BUNDLE_NAME));
}
