import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { MUTANTS } from "../../fake-server/variants/mutants.ts";
import { VARIANTS } from "../../fake-server/variants/variants.ts";

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
