import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { MUTANTS } from "../../fake-server/variants/mutants.ts";
import { VARIANTS } from "../../fake-server/variants/variants.ts";
import { SIMPLIFYING_VARIANTS } from "./targets.ts";

const README = readFileSync(join(import.meta.dirname, "README.md"), "utf8");

test("the README lists every mutant with the requirement it breaks, and every variant", () => {
  const missing = [
    ...MUTANTS.filter((m) => !new RegExp(`\\| \`${m.name}\` \\| ${m.requirement}\\b`).test(README)).map(
      (m) => `mutant ${m.name}`,
    ),
    ...VARIANTS.filter((v) => !README.includes(`| \`${v.name}\` |`)).map((v) => `variant ${v.name}`),
  ];
  expect(missing).toEqual([]);
});

test("the README names the variants of the gate's simplifying half, as targets.ts lists them", () => {
  const paragraph = /`SIMPLIFYING_VARIANTS` in `targets.ts`:([^;]*);/.exec(README)?.[1] ?? "";
  const named = [...paragraph.matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]);
  expect(named).toEqual([...SIMPLIFYING_VARIANTS]);
});
