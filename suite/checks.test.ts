/**
 * Coverage gate for the conformance checks: read every `.check.ts` file under suite/checks as text, take
 * the requirement IDs out of each `check([...], ...)` call, and fail when a service
 * requirement has no check or a check names an ID the catalog does not have.
 * Read statically so the gate runs without a target (the checks only run through the runner).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test, vi } from "vitest";
import { DEFAULTS } from "./runner/config.ts";
import type { CheckOptions } from "./checks/runtime/types.ts";
import { REQUIREMENTS, SERVICE_REQUIREMENTS } from "../requirements/catalog.ts";

// Loading the check files registers their checks; here `check` only records what is registered.
const registered = vi.hoisted(() => [] as { ids: readonly string[]; name: string; options: CheckOptions }[]);
vi.mock("./checks/runtime/check.ts", () => ({
  check: (ids: readonly string[], name: string, options: CheckOptions) => {
    registered.push({ ids, name, options });
  },
}));

const CHECKS_DIR = join(dirname(fileURLToPath(import.meta.url)), "checks");

interface CheckCall {
  file: string;
  ids: string[];
  name: string;
}

/**
 * Every `check(` call in a source text, with its literal ID array and name. A call whose
 * arguments are not literals cannot be read statically and is reported as unreadable.
 */
export function extractChecks(file: string, source: string): { calls: CheckCall[]; unreadable: string[] } {
  const calls: CheckCall[] = [];
  const unreadable: string[] = [];
  const callStart = /(?<![\w$.])check\(/g;
  const literal = /^\s*\[([^\]]*)\]\s*,\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`$]*`)/;
  for (const match of source.matchAll(callStart)) {
    const rest = source.slice(match.index + match[0].length);
    const parsed = literal.exec(rest);
    if (parsed === null) {
      const line = source.slice(0, match.index).split("\n").length;
      unreadable.push(`${file}:${line}`);
      continue;
    }
    const ids = [...(parsed[1] ?? "").matchAll(/["']([^"']+)["']/g)].map((m) => m[1] ?? "");
    calls.push({ file, ids, name: (parsed[2] ?? "").slice(1, -1) });
  }
  return { calls, unreadable };
}

function readAllChecks() {
  // Recursive, like the runner's glob.
  const files = readdirSync(CHECKS_DIR, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".check.ts"))
    .sort();
  const results = files.map((f) => extractChecks(f, readFileSync(join(CHECKS_DIR, f), "utf8")));
  return {
    files,
    calls: results.flatMap((r) => r.calls),
    unreadable: results.flatMap((r) => r.unreadable),
  };
}

describe("the extractor reads check calls", () => {
  test("IDs and names come out of literal calls, and dynamic calls are flagged", () => {
    const source = [
      'import { check } from "./runtime/check.ts";',
      'check(["AUTH-1", "AUTH-2"], "first", { creates: 1 }, async () => {});',
      "check(\n  ['LIST-5'],\n  'second',\n  { creates: 0 },\n  async () => {},\n);",
      "const ids = ['X'];",
      "check(ids, `third`, { creates: 0 }, async () => {});",
      "target.check(['IGNORED'], 'not a call of ours');",
    ].join("\n");
    const { calls, unreadable } = extractChecks("sample.check.ts", source);
    expect(calls).toEqual([
      { file: "sample.check.ts", ids: ["AUTH-1", "AUTH-2"], name: "first" },
      { file: "sample.check.ts", ids: ["LIST-5"], name: "second" },
    ]);
    expect(unreadable).toEqual(["sample.check.ts:10"]);
  });
});

describe("every service requirement has a check, and every check names known requirements", () => {
  const { files, calls, unreadable } = readAllChecks();

  test("the check files exist and every check call can be read statically", () => {
    expect(files.length).toBeGreaterThan(0);
    expect(calls.length).toBeGreaterThan(0);
    expect(unreadable).toEqual([]);
  });

  test("every check names at least one requirement, and only IDs from the catalog", () => {
    const known = new Set<string>(REQUIREMENTS.map((r) => r.id));
    const clientIds = new Set<string>(REQUIREMENTS.filter((r) => r.family === "client").map((r) => r.id));
    const problems = calls.flatMap((c) => [
      ...(c.ids.length === 0 ? [`${c.file}: "${c.name}" names no requirement`] : []),
      ...c.ids.filter((id) => !known.has(id)).map((id) => `${c.file}: "${c.name}" names unknown ${id}`),
      ...c.ids.filter((id) => clientIds.has(id)).map((id) => `${c.file}: "${c.name}" names client requirement ${id}`),
    ]);
    expect(problems).toEqual([]);
  });

  test("every requirement whose family is not client has at least one check", () => {
    const covered = new Set(calls.flatMap((c) => c.ids));
    const uncovered = SERVICE_REQUIREMENTS.map((r) => r.id).filter((id) => !covered.has(id));
    expect(uncovered).toEqual([]);
  });

  test("check names are unique, so each reads as one behaviour in the report", () => {
    const names = calls.map((c) => c.name);
    const duplicates = names.filter((name, i) => names.indexOf(name) !== i);
    expect(duplicates).toEqual([]);
  });
});

describe("every check fits the default create budget", () => {
  // What a whole run spends on a conforming target is measured by the proof gate (the plain
  // fake, no check skipped for budget, at most 100 creates). Refused creates cost nothing, so
  // the worst cases declared here may add up to more; each check must still fit on its own.
  test("each check's declared creates, with the shared fixtures it uses, fit the default --max-creates", async () => {
    const { files, calls } = readAllChecks();
    for (const file of files) await import(join(CHECKS_DIR, file));
    // The static reading and the registrations must agree, or one of them is reading the wrong thing.
    expect(registered.map((r) => r.name).sort()).toEqual(calls.map((c) => c.name).sort());
    const tooCostly = registered
      .map((r) => ({
        name: r.name,
        creates: r.options.creates + (r.options.uses ?? []).reduce((sum, f) => sum + f.creates, 0),
      }))
      .filter((r) => r.creates > DEFAULTS.maxCreates);
    expect(registered.some((r) => r.options.creates > 0)).toBe(true);
    expect(tooCostly).toEqual([]);
  });

  test("the shared fixtures together fit the budget with room left for the checks' own creates", async () => {
    const fixtures = new Map(registered.flatMap((r) => r.options.uses ?? []).map((f) => [f.name, f.creates]));
    const total = [...fixtures.values()].reduce((sum, n) => sum + n, 0);
    expect(fixtures.size).toBeGreaterThan(0);
    expect(total).toBeLessThan(DEFAULTS.maxCreates);
  });
});
