import fc from "fast-check";
import { expect, test } from "vitest";
import { createAnswerEngine } from "../answers/engine.ts";
import { AnsweredOutcome, serialisedResult } from "./commit.ts";

test("the serialised result is the JSON of the result object, for shared and one-off answers alike, and its two sent parts are its bytes", () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 40 }),
      fc.string({ maxLength: 80 }),
      fc.nat(50),
      fc.boolean(),
      (id, message, seed, oneOff) => {
        const shared = createAnswerEngine(seed).answer(message);
        // A styled answer (a variant) is a new object with its own text.
        const answer = oneOff
          ? { text: `${shared.text} ${message} "quoted" \u2028`, citations: shared.citations }
          : shared;
        const expected = JSON.stringify({
          conversation_id: id,
          response: answer.text,
          citations: [...answer.citations],
        });
        expect(serialisedResult(id, answer)).toBe(expected);
        expect(serialisedResult(id, answer)).toBe(expected);
        const outcome = new AnsweredOutcome(200, id, answer);
        expect(outcome.body).toBe(expected);
        expect(
          Buffer.concat([Buffer.from(outcome.head, "utf8"), outcome.tailBytes]).equals(Buffer.from(expected, "utf8")),
        ).toBe(true);
        expect(outcome.result).toEqual(JSON.parse(expected));
      },
    ),
    { numRuns: 200 },
  );
});
