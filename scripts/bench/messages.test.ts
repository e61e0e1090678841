import { expect, test } from "vitest";
import { createAnswerEngine } from "../../fake-server/answers/engine.ts";
import { CORPUS } from "../../fake-server/answers/corpus.ts";
import { benchBody, benchMessage, MESSAGE_COUNT } from "./messages.ts";

test("the throughput messages are distinct over a whole cycle, then repeat", () => {
  const messages = new Set(Array.from({ length: MESSAGE_COUNT }, (_, i) => benchMessage(i)));
  expect(messages.size).toBe(MESSAGE_COUNT);
  expect(benchMessage(MESSAGE_COUNT + 5)).toBe(benchMessage(5));
  expect(JSON.parse(benchBody(7))).toEqual({ message: benchMessage(7) });
});

test("the throughput messages make the fake cite every document of its corpus", () => {
  const engine = createAnswerEngine(1);
  const cited = new Set<string>();
  for (let i = 0; i < 200; i++)
    for (const citation of engine.answer(benchMessage(i)).citations) cited.add(citation.document_id);
  expect(cited.size).toBe(CORPUS.length);
});
