import fc from "fast-check";
import { expect, test } from "vitest";
import { createAnswerEngine } from "../answers/engine.ts";
import { serialisedResult } from "./commit.ts";

test("the serialised result is the JSON of the result object, for shared and one-off answers alike", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 80 }), fc.nat(50), fc.boolean(), (id, message, seed, oneOff) => {
      const shared = createAnswerEngine(seed).answer(message);
      // A styled answer (a variant) is a new object with its own text.
      const answer = oneOff ? { text: `${shared.text} ${message} "quoted" \u2028`, citations: shared.citations } : shared;
      const expected = JSON.stringify({ conversation_id: id, response: answer.text, citations: [...answer.citations] });
      expect(serialisedResult(id, answer)).toBe(expected);
      expect(serialisedResult(id, answer)).toBe(expected);
    }),
    { numRuns: 200 },
  );
});
