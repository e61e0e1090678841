import { expect, test } from "vitest";
import { DEFAULT_BEHAVIOR, patchedPaths } from "../behavior/behavior.ts";
import { CONFORMING, prepareHooksOf } from "../exchange/hooks.ts";
import { MUTANTS } from "./mutants.ts";
import { selectBehavior, VARIANT_NAMES } from "./variants.ts";

// The switches a create's checks act on: only these install a hook (exchange/hooks.ts).
const PREPARE_SWITCHES = [
  "validationConsumesKey",
  "streamIdempotency",
  "inFlightReservation",
  "inFlightPerOperation",
  "inFlightLoserFails",
  "conflict",
  "replayAltersAnswer",
  "replayAppends",
  "replayAnswersLatestTurn",
  "replayRestoresDeleted",
  "continueStartsNew",
  "keyCollation",
  "fingerprintSkips",
  "droppedStreamKey",
  "externalReferenceReopens",
  "idempotencyReplicas",
].map((name) => `broken.${name}`);

test("the conforming fake and every variant take no hook: their checks are the spec's, on both endpoints", () => {
  expect(prepareHooksOf(DEFAULT_BEHAVIOR)).toBe(CONFORMING);
  expect(Object.keys(CONFORMING)).toEqual([]);
  for (const name of [...VARIANT_NAMES, "all"])
    expect(prepareHooksOf(selectBehavior(undefined, [name])), name).toBe(CONFORMING);
});

test("a mutant takes hooks exactly when it turns on a switch of the checks", () => {
  for (const mutant of MUTANTS) {
    const bends = patchedPaths(mutant.patch).some((path) => PREPARE_SWITCHES.includes(path));
    const hooks = prepareHooksOf(selectBehavior(mutant.name, []));
    expect(Object.keys(hooks).length > 0, mutant.name).toBe(bends);
  }
});
