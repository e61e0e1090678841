/**
 * The files `npm run openapi` writes (openapi.json, fake.json and one JSON Schema per resource),
 * rendered in one place so the tests compare them with what is checked in.
 */
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { contractDocument } from "./contract-document.ts";
import { fakeDocument } from "./fake-document.ts";
import { schemaFiles } from "./json-schemas.ts";

/** Two-space JSON with a trailing newline; key order is the order the generator builds. */
const toFileText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Every generated file, by path relative to the output folder: `openapi.json` (the contract
 * every conforming service meets), `fake.json` (the reference fake's exact shapes) and
 * `schemas/<Name>.json` (the fake's shapes as standalone JSON Schemas).
 */
export function renderOpenApiFiles(): Map<string, string> {
  const files = new Map<string, string>([
    ["openapi.json", toFileText(contractDocument())],
    ["fake.json", toFileText(fakeDocument())],
  ]);
  for (const [name, schema] of schemaFiles()) files.set(`schemas/${name}.json`, toFileText(schema));
  return files;
}

/** Writes the files into `dir` and removes schema files that are no longer generated. */
export async function writeOpenApiFiles(dir: string): Promise<string[]> {
  const files = renderOpenApiFiles();
  await mkdir(join(dir, "schemas"), { recursive: true });
  for (const name of await readdir(join(dir, "schemas"))) {
    if (name.endsWith(".json") && !files.has(`schemas/${name}`)) await rm(join(dir, "schemas", name));
  }
  for (const [path, text] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return [...files.keys()];
}
