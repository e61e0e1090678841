/**
 * The histories kept as data (histories/*.json, history-file.ts), one test each: the model finds
 * in each what the file says it must, no more and in that order (a conforming history, nothing).
 * And it names every operation as data: the same history numbered otherwise is judged the same,
 * of the same operations.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { loadHistory, type History } from "./history-file.ts";
import { judgeHistory } from "./model.ts";
import { describeViolation, renumberViolation } from "./violation.ts";

const DIR = join(import.meta.dirname, "histories");
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort();

/** The file, or why it could not be read: its test fails with that. */
function load(file: string): History | Error {
  try {
    return loadHistory(join(DIR, file));
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

for (const file of FILES) {
  const history = load(file);
  const title =
    history instanceof Error
      ? file
      : `${file}: ${history.finds.length === 0 ? "conforms" : `finds ${history.finds.join(", ")}`} (${history.about})`;
  test(title, () => {
    if (history instanceof Error) throw history;
    const { violations } = judgeHistory(history.history);
    const found = violations.map((v) => `${v.requirement}: ${describeViolation(v).message}`).join("\n");
    expect(
      violations.map((v) => v.requirement),
      found,
    ).toEqual(history.finds);
    // Numbered from 101 instead of 1: the same verdicts, naming the same operations by their new numbers.
    const numbers = new Map(history.history.map((op) => [op.index, op.index + 100]));
    const renumbered = judgeHistory(history.history.map((op) => ({ ...op, index: op.index + 100 }))).violations;
    expect(renumbered.map(describeViolation)).toEqual(
      violations.map((v) => describeViolation(renumberViolation(v, numbers))),
    );
  });
}

test("the kept histories cover failures of several requirements and histories that conform", () => {
  const histories = FILES.map(load).filter((h): h is History => !(h instanceof Error));
  expect(histories.filter((h) => h.finds.length > 0).length).toBeGreaterThanOrEqual(8);
  expect(histories.some((h) => h.finds.length === 0)).toBe(true);
});

test("a search past its deadline judges nothing more and says it ran out of time, never that the history conforms", () => {
  const histories = FILES.map(load).filter((h): h is History => !(h instanceof Error) && h.finds.length === 0);
  expect(histories.length).toBeGreaterThan(0);
  for (const { history } of histories) {
    const { state, violations } = judgeHistory(history, performance.now() - 1);
    expect(violations).toEqual([]);
    expect(state.search.undecided).toBe("the model ran out of time");
  }
});

test("a replay answered otherwise quotes both answers where they differ, not twice the words they share", () => {
  const history = load("idem-1-replay-answers-latest-turn.json");
  if (history instanceof Error) throw history;
  const failed = judgeHistory(history.history).state.search.failed;
  expect(failed?.requirement).toBe("IDEM-1");
  if (failed === undefined) return;
  const { message, expected } = describeViolation(failed);
  const quoted = (text: string | undefined) => text?.slice(text.lastIndexOf(", answer"));
  expect(quoted(message)).toBeDefined();
  expect(quoted(message)).not.toEqual(quoted(expected));
});
