import { expect, test } from "vitest";
import { DEFAULT_BEHAVIOR, patchBehavior, patchedPaths } from "../../fake-server/behavior/behavior.ts";
import { MUTANTS } from "../../fake-server/variants/mutants.ts";
import { ALL_VARIANTS, combinableVariants, selectBehavior, VARIANTS } from "../../fake-server/variants/variants.ts";
import { requirementById, SERVICE_REQUIREMENTS } from "../../requirements/catalog.ts";

test("every mutant breaks one known service requirement, quotes the spec, and has a unique name", () => {
  expect(new Set(MUTANTS.map((m) => m.name)).size).toBe(MUTANTS.length);
  expect(MUTANTS.length).toBeGreaterThanOrEqual(30);
  for (const mutant of MUTANTS) {
    const requirement = requirementById(mutant.requirement);
    expect(requirement, mutant.name).toBeDefined();
    expect(requirement?.family, mutant.name).not.toBe("client");
    expect(mutant.spec.length, mutant.name).toBeGreaterThan(20);
    expect(mutant.description.length, mutant.name).toBeGreaterThan(20);
  }
});

test("every MUST service requirement has at least one mutant", () => {
  const broken = new Set(MUTANTS.map((m) => m.requirement));
  const without = SERVICE_REQUIREMENTS.filter((r) => r.level === "MUST" && !broken.has(r.id)).map((r) => r.id);
  expect(without).toEqual([]);
});

test("every mutant and variant changes the default behavior, and no two are the same change", () => {
  const seen = new Map<string, string>();
  for (const { name, patch } of [...MUTANTS, ...VARIANTS]) {
    const changed = JSON.stringify(patchBehavior(DEFAULT_BEHAVIOR, [patch]));
    expect(changed, name).not.toBe(JSON.stringify(DEFAULT_BEHAVIOR));
    expect(seen.get(changed), `${name} repeats another`).toBeUndefined();
    seen.set(changed, name);
  }
});

test("no mutant or variant sets a field the behavior does not have", () => {
  const known = new Set(patchedPaths(DEFAULT_BEHAVIOR));
  for (const { name, patch } of [...MUTANTS, ...VARIANTS]) {
    expect(
      patchedPaths(patch).filter((path) => !known.has(path)),
      name,
    ).toEqual([]);
  }
});

test("no selection is the conforming default; unknown names are refused with the known ones", () => {
  expect(selectBehavior(undefined, [])).toEqual(DEFAULT_BEHAVIOR);
  expect(() => selectBehavior("nope", [])).toThrow(/unknown mutant "nope"; known: auth-skipped-create/);
  expect(() => selectBehavior(undefined, ["nope"])).toThrow(/unknown variant "nope"; known: created-201.*, all/);
});

test("variants that answer the same gap differently cannot be combined; `all` combines the rest", () => {
  expect(() => selectBehavior(undefined, ["problem-json", "flat-errors"])).toThrow(
    "variants problem-json and flat-errors both choose errorFormat; pick one",
  );
  const all = selectBehavior(undefined, [ALL_VARIANTS]);
  expect(all).toEqual(
    patchBehavior(
      DEFAULT_BEHAVIOR,
      combinableVariants().map((v) => v.patch),
    ),
  );
  expect(all.errorFormat).toBe("problem");
  // A variant is left out of `all` only because it answers a gap that a variant in `all` answers too.
  const inAll = new Set(combinableVariants().map((v) => v.name));
  const chosenByAll = new Set(combinableVariants().flatMap((v) => patchedPaths(v.patch)));
  const leftOut = VARIANTS.filter((v) => !inAll.has(v.name));
  expect(leftOut.length).toBeGreaterThan(0);
  expect(
    leftOut.filter((v) => !patchedPaths(v.patch).some((path) => chosenByAll.has(path))).map((v) => v.name),
  ).toEqual([]);
});

test("a mutant applies on top of variants and breaks only what it names", () => {
  const behavior = selectBehavior("page-off-by-one", ["crlf"]);
  expect(behavior.sseLineEnding).toBe("\r\n");
  expect(behavior.broken).toEqual({ ...DEFAULT_BEHAVIOR.broken, pageOffsetOffByOne: true });
});
