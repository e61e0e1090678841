/**
 * The conformance command line (scripts/conformance.ts) as the project's tests start it: the
 * repository's TypeScript bundled by esbuild into plain ES modules under
 * node_modules/.cache/conformance-cli, the packages left as imports, the subcommands and the run
 * in chunks of their own that load when used, as the script's own lazy imports load them.
 *
 * Why: on Node 20, tsx's loader hooks run in a thread of their own and every module the script
 * imports crosses to it and back; a run of `--only AUTH-1` against the embedded fake takes
 * 3.2 s of CPU that way and 2.2 s from the bundle, and npm test starts about a hundred such
 * processes. What the bundle does is what the sources do: the same esbuild transform tsx uses,
 * and each file's `import.meta` paths those of its source. `npm run conformance`, npx and the
 * installed bin are still started as such by the tests that are about them (the interruptions,
 * the package, the replay lines).
 *
 * vitest's global setup (build-conformance-cli.ts) builds it once per test run and provides its
 * path; outside a vitest run the script starts through tsx as before.
 */
import { join, resolve } from "node:path";
import { inject } from "vitest";
import { WITH_TSX } from "./node-with-tsx.ts";

const SCRIPT = join(resolve(import.meta.dirname, "../.."), "scripts/conformance.ts");

declare module "vitest" {
  export interface ProvidedContext {
    /** The bundled conformance command line's entry. */
    conformanceCli: string;
  }
}

/** Node's arguments that start the conformance command line: the bundle, or the script through tsx in a run without the global setup. */
export function conformanceCli(): readonly string[] {
  const bundle = inject("conformanceCli") as string | undefined;
  return bundle === undefined ? [...WITH_TSX, SCRIPT] : [bundle];
}
