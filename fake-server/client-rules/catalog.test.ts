import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { REQUIREMENTS } from "../../requirements/catalog.ts";
import { ManualClock } from "../test-support/manual-clock.ts";
import { ClientRuleObserver } from "./observer.ts";

const CLIENT = REQUIREMENTS.filter((r) => r.family === "client");
const OBSERVABLE = CLIENT.filter((r) => r.observation?.observable).map((r) => r.id);
const HERE = fileURLToPath(new URL(".", import.meta.url));

/** Test titles of this folder that start with requirement IDs: "CLIENT-3 CLIENT-7: …" or "CLIENT-1..7: …". */
function titles(): { ids: string[]; title: string }[] {
  const found: { ids: string[]; title: string }[] = [];
  for (const file of readdirSync(HERE).filter((name) => name.endsWith(".test.ts"))) {
    for (const [, head = "", title = ""] of readFileSync(`${HERE}/${file}`, "utf8").matchAll(
      /"((?:CLIENT-\d+(?:\.\.\d+)? ?)+): ([^"]+)"/g,
    )) {
      const ids = head
        .trim()
        .split(" ")
        .flatMap((token) => {
          const [, from, to] = /^CLIENT-(\d+)(?:\.\.(\d+))?$/.exec(token) ?? [];
          const first = Number(from);
          return Array.from(
            { length: (to === undefined ? first : Number(to)) - first + 1 },
            (_, i) => `CLIENT-${first + i}`,
          );
        });
      found.push({ ids, title });
    }
  }
  return found;
}

test("the catalog has client requirements, each saying what the fake can observe, and only they do", () => {
  expect(CLIENT.length).toBeGreaterThan(0);
  expect(CLIENT.filter((r) => r.observation === undefined || r.observation.note.length < 20)).toEqual([]);
  expect(REQUIREMENTS.filter((r) => r.family !== "client" && r.observation !== undefined)).toEqual([]);
});

test("the observer records exactly the observable client requirements", () => {
  const observer = new ClientRuleObserver(new ManualClock(), new Set());
  expect(observer.recordedRequirements).toEqual(OBSERVABLE);
});

test("every observable client requirement has a test that provokes it and a test that it is not recorded", () => {
  const found = titles();
  const missing = OBSERVABLE.flatMap((id) => {
    const mine = found.filter((t) => t.ids.includes(id));
    return [
      ...(mine.some((t) => t.ids.length === 1 && !t.title.includes("not recorded"))
        ? []
        : [`${id}: no test provokes it`]),
      ...(mine.some((t) => t.title.includes("not recorded")) ? [] : [`${id}: no test shows a look-alike not recorded`]),
    ];
  });
  expect(missing).toEqual([]);
  const unknown = found.flatMap((t) => t.ids).filter((id) => !CLIENT.some((r) => r.id === id));
  expect(unknown).toEqual([]);
});
