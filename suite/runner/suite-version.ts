/**
 * The suite's name and version, as its package.json gives them (in this repository, and in the
 * installed package, where this module sits in dist/): every report names it, and `merge` refuses
 * shards of different versions.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface SuiteVersion {
  readonly name: string;
  readonly version: string;
}

const PACKAGE = "agent-service-conformance";

function find(): SuiteVersion {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE && typeof manifest.version === "string")
        return { name: PACKAGE, version: manifest.version };
    }
    if (dirname(dir) === dir) return { name: PACKAGE, version: "unknown" };
  }
}

let found: SuiteVersion | undefined;

export function suiteVersion(): SuiteVersion {
  return (found ??= find());
}
