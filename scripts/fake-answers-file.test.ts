import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import { createFakeServer } from "../fake-server/index.ts";
import { AnswersFileError, answerRulesFromFile } from "./fake-answers-file.ts";

const ROOT = resolve(import.meta.dirname, "..");
const folder = mkdtempSync(join(tmpdir(), "answers-file-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const fileWith = (name: string, text: string) => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};

test("a file of rules is read as its array", () => {
  expect(answerRulesFromFile(fileWith("rules.json", '[{"answer":{"text":"hi"}}]'))).toEqual([
    { answer: { text: "hi" } },
  ]);
});

test.each([
  ["a missing file", join(folder, "missing.json"), /^--answers: cannot read .*missing\.json: no such file$/],
  ["a file that is not JSON", fileWith("broken.json", "[{"), /^--answers: .*broken\.json is not JSON: /],
  ["a file that is not an array", fileWith("object.json", "{}"), /^--answers: .*object\.json must hold a JSON array/],
])("%s is an AnswersFileError naming the file", (_, path, message) => {
  expect(() => answerRulesFromFile(path)).toThrow(AnswersFileError);
  expect(() => answerRulesFromFile(path)).toThrow(message);
});

test("the fake given a missing --answers file prints one line, not the usage, and exits 2", () => {
  const missing = join(folder, "missing.json");
  const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/fake.ts", "--answers", missing], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(run.status).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.stderr).toBe(`agent-service-fake: --answers: cannot read ${missing}: no such file\n`);
}, 40_000);

test("an --answers file takes citations of any shape, returned as given", async () => {
  const wire = '[{"title":"Export guide","url":"https://help.example/export","page":3}]';
  const file = fileWith(
    "any-shape.json",
    `[{"match":{"message_contains":"cite"},"answer":{"text":"From the file.","citations":${wire}}}]`,
  );
  const fake = await createFakeServer({ port: 0, answers: answerRulesFromFile(file) });
  try {
    const response = await fetch(`${fake.url}/v1/agents/agent-a/responses`, {
      method: "POST",
      headers: { authorization: "Bearer sk-fake-a", "content-type": "application/json", "idempotency-key": "cite-1" },
      body: JSON.stringify({ message: "cite please" }),
    });
    expect(JSON.stringify(((await response.json()) as { citations: unknown }).citations)).toBe(wire);
  } finally {
    await fake.close();
  }
});
