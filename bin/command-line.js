// Where a bin's command line comes from. Installed from the registry or a tarball, it is the
// JavaScript `npm run build` (prepack) wrote to dist/. In a checkout of the repository that was
// never built, it is the TypeScript source, through tsx (a dev dependency there), so that
// `npm ci && npx agent-conformance …`, as the CI snippets print it, runs in a fresh clone too.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Runs scripts/NAME: dist/scripts/NAME.js when built, else scripts/NAME.ts. */
export async function runCommandLine(name) {
  const built = new URL(`../dist/scripts/${name}.js`, import.meta.url);
  if (existsSync(fileURLToPath(built))) return import(built.href);
  const source = new URL(`../scripts/${name}.ts`, import.meta.url);
  if (!existsSync(fileURLToPath(source))) throw new Error(`${fileURLToPath(built)} is missing: run npm run build`);
  // The suite's command line as `npm run conformance` starts it: vitest loaded before tsx's hooks.
  if (name === "conformance") await import("../scripts/with-tsx.mjs");
  else (await import("tsx/esm/api")).register();
  return import(source.href);
}
