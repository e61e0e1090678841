import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { expect, test } from "vitest";

// The catalog and the schemas are shared knowledge: the suite and the fake build on them, and
// neither of those two builds on the other. Every relative import is checked, tests included.
const ROOT = resolve(import.meta.dirname, "..");

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.includes("node_modules"))
    .map((name) => join(ROOT, folder, name));
}

/** Each file's relative imports, as folders of the project they land in. */
function importedFolders(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((match) => match[1] ?? "");
  return specifiers.map((specifier) => relative(ROOT, resolve(file, "..", specifier)).split("/")[0] ?? "");
}

// Tests may also use test-support/ (the headless browser, a CONNECT tunnel), which no shipped code imports.
// schemas/openapi/ is left out: it documents the fake's own choices, so it reads them from the fake.
const ALLOWED: Record<string, readonly string[]> = {
  requirements: ["requirements"],
  schemas: ["schemas"],
  "fake-server": ["fake-server", "schemas", "requirements"],
};

for (const [folder, allowed] of Object.entries(ALLOWED)) {
  test(`${folder}/ imports only from ${allowed.join(", ")}`, () => {
    const files = sourceFiles(folder).filter((file) => !relative(ROOT, file).startsWith("schemas/openapi/"));
    expect(files.length).toBeGreaterThan(0);
    const outside = files.flatMap((file) =>
      importedFolders(file)
        .filter((target) => !allowed.includes(target) && !(target === "test-support" && file.endsWith(".test.ts")))
        .map((target) => `${relative(ROOT, file)} -> ${target}/`),
    );
    expect(outside).toEqual([]);
  });
}
