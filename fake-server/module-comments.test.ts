/**
 * The house style of a source file's opening: a doc comment saying what the file is for, and
 * why, before its imports; in every source file of the fake and of the schemas (tests aside).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

test.each(["fake-server", "schemas"])("every source file of %s/ opens with a purpose comment", (folder) => {
  const sources = readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" }).filter(
    (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"),
  );
  expect(sources.length).toBeGreaterThan(10);
  const bare = sources.filter((name) => !readFileSync(join(ROOT, folder, name), "utf8").startsWith("/**"));
  expect(bare.map((name) => `${folder}/${name}`)).toEqual([]);
});
