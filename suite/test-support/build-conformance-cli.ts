/**
 * Builds the bundle of the conformance command line that the tests start (conformance-cli.ts
 * says why): vitest's global setup (`setup`, named in vitest.config.ts), once per test run.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import type { TestProject } from "vitest/node";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = join(ROOT, "scripts/conformance.ts");
const CACHE = join(ROOT, "node_modules/.cache/conformance-cli");

/** Each source file's own `import.meta.dirname`, `filename` and `url`, not the bundle's. */
const ownImportMeta: Plugin = {
  name: "own-import-meta",
  setup(bundler) {
    bundler.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      if (path.includes("/node_modules/")) return undefined;
      const source = await readFile(path, "utf8");
      const contents = source
        .replaceAll("import.meta.dirname", JSON.stringify(dirname(path)))
        .replaceAll("import.meta.filename", JSON.stringify(path))
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href));
      return { contents, loader: "ts" };
    });
  },
};

/**
 * Bundles the script into a folder named by the bundle's content, and returns its entry. A
 * folder is never rewritten: a second vitest run beside the first builds the same one or
 * another, and the processes already started from it are not disturbed.
 */
export async function buildConformanceCli(): Promise<string> {
  const outdir = join(CACHE, "build");
  const built = await build({
    entryPoints: { conformance: SCRIPT },
    outdir,
    bundle: true,
    splitting: true,
    write: false,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    plugins: [ownImportMeta],
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
  });
  const hash = createHash("sha256");
  for (const file of built.outputFiles) hash.update(file.path).update(file.contents);
  const folder = join(CACHE, hash.digest("hex").slice(0, 16));
  const entry = join(folder, "conformance.mjs");
  const staging = `${folder}.${process.pid}.tmp`;
  for (const file of built.outputFiles) {
    const target = join(staging, relative(outdir, file.path));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.contents);
  }
  // Another run may have made the same folder first: then its copy serves.
  await rename(staging, folder).catch(() => rm(staging, { recursive: true, force: true }));
  await removeStale(folder);
  return entry;
}

/** Bundles of earlier sources: gone once no run can still be using them (an hour after they were made). */
async function removeStale(current: string): Promise<void> {
  const before = Date.now() - 60 * 60_000;
  for (const name of await readdir(CACHE)) {
    const folder = join(CACHE, name);
    if (folder === current) continue;
    const made = await stat(folder).then(
      (info) => info.mtimeMs,
      () => Date.now(),
    );
    if (made < before) await rm(folder, { recursive: true, force: true });
  }
}

/**
 * One build per vitest process: every project of the configuration runs the global setup (the
 * root and each project that extends it), each importing this file anew, so the build in flight
 * is kept on the process.
 */
const BUILD = Symbol.for("agent-service-conformance.conformance-cli-build");
const processWide = globalThis as { [BUILD]?: Promise<string> };

/** vitest's global setup: the bundle, built once for every file of the run. */
export async function setup(project: TestProject): Promise<void> {
  processWide[BUILD] ??= buildConformanceCli();
  project.provide("conformanceCli", await processWide[BUILD]);
}
