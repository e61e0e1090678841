/**
 * npm run openapi -- [--out DIR]
 * Regenerates the published OpenAPI documents from the Zod schemas: openapi/openapi.json (the
 * contract every conforming service meets), openapi/fake.json (the reference fake's exact
 * shapes) and openapi/schemas/*.json (the fake's shapes as standalone JSON Schemas).
 * Exit 0 when written, 2 on a usage error.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { flagHelp, flagsOrExit, flagValuesOrThrow, stringFlag, switchFlag, type FlagTable } from "../cli/flags.ts";
import { writeOpenApiFiles } from "../schemas/openapi/files.ts";

const DEFAULT_OUT = fileURLToPath(new URL("../openapi/", import.meta.url));

const FLAGS = {
  out: {
    name: "out",
    value: "DIR",
    help: "where the files go (default: the repository's openapi/)",
    parser: stringFlag(DEFAULT_OUT),
  },
  help: { name: "help", help: "show this help", parser: switchFlag() },
} satisfies FlagTable;

const USAGE = `Usage: npm run openapi -- [options]

Regenerates the OpenAPI documents from the Zod schemas (a test fails while the
committed ones are stale):
  openapi.json     the contract: what every conforming service answers
  fake.json        the reference fake's exact shapes, for client developers
  schemas/*.json   the fake's shapes as standalone JSON Schemas

${flagHelp(FLAGS, { helpAt: 13 })}

Exit codes: 0 written; 2 a usage error.`;

const flags = flagsOrExit("openapi", USAGE, () => flagValuesOrThrow(FLAGS, process.argv.slice(2)));
if (typeof flags === "number") {
  process.exitCode = flags;
} else {
  const outDir = resolve(flags.out);
  const written = await writeOpenApiFiles(outDir);
  console.log(`wrote ${written.length} files to ${outDir}`);
}
