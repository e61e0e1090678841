import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, test } from "vitest";
import { GUIDE, guideFiles } from "./consumer-files.ts";

const block = (text: string) => `Some prose.\n\n\`\`\`ts\n${text}\`\`\`\n\nMore prose.\n`;

test("each ts block of a guide is the file named on its first line", () => {
  const markdown = `${block("// src/a.ts\nexport const a = 1;\n")}\`\`\`sh\nnpm test\n\`\`\`\n${block('// test/a.test.ts\nimport { a } from "../src/a.ts";\n')}`;
  expect(guideFiles(markdown)).toEqual([
    { path: "src/a.ts", text: "// src/a.ts\nexport const a = 1;\n" },
    { path: "test/a.test.ts", text: '// test/a.test.ts\nimport { a } from "../src/a.ts";\n' },
  ]);
});

test.for([
  ["no name", block("export const a = 1;\n"), /does not start with/],
  ["a path outside the project", block("// ../a.ts\n"), /outside the project/],
  ["an absolute path", block("// /tmp/a.ts\n"), /outside the project/],
  ["one path twice", `${block("// a.ts\n")}${block("// a.ts\n")}`, /more than once/],
  ["a block fenced as typescript, without a name", "```typescript\nconst a = 1;\n```\n", /does not start with/],
] as const)("a guide with %s is refused", ([, markdown, error]) => {
  expect(() => guideFiles(markdown)).toThrow(error);
});

// The package test runs these files; this keeps a block the convention misses from waiting for it.
test("the client-testing guide's ts blocks all name their file, and some are tests", () => {
  const files = guideFiles(readFileSync(resolve(import.meta.dirname, "../..", GUIDE), "utf8"));
  expect(files.filter((file) => file.path.endsWith(".test.ts")).length).toBeGreaterThan(0);
});
