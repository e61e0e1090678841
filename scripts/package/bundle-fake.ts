/**
 * The fake as one self-contained file, dist/agent-service-fake.mjs: `node agent-service-fake.mjs
 * [flags]` runs it in an empty folder, with no node_modules, for teams that do not use npm.
 * `npm run build` (scripts/build.ts) calls this after tsc; tests call `bundleFake` into a folder of their own.
 */
import { resolve } from "node:path";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "../..");
export const BUNDLE_NAME = "agent-service-fake.mjs";

/** Bundles scripts/fake.ts and everything it imports into `outFile`. */
export async function bundleFake(outFile: string): Promise<void> {
  await build({
    entryPoints: [resolve(ROOT, "scripts/fake.ts")],
    outfile: outFile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // A CommonJS dependency inside an ESM file calls require(): give it Node's.
    banner: {
      js: '#!/usr/bin/env node\nimport { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
    },
    legalComments: "linked",
    logLevel: "warning",
  });
}
