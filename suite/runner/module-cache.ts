/**
 * Where vitest keeps the checks' transformed modules between conformance runs (its
 * experimental fsModuleCache, keyed by each module's content and vitest's settings, so an
 * edited file is transformed again). Every run in a fresh vitest transforms the checks and
 * everything they import; with the cache a run from a checkout starts with about 1 s less CPU,
 * which the proof gate's ninety-odd runs and every test that starts a run pay.
 */
import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The checkout's node_modules/.cache, when the project root has a writable node_modules. An
 * installed package runs its built checks from a root without one and is never written to.
 */
export function moduleCacheDir(root: string): string | undefined {
  const nodeModules = join(root, "node_modules");
  if (!existsSync(nodeModules)) return undefined;
  const dir = join(nodeModules, ".cache", "conformance-checks");
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}
