/**
 * What the client-rule tests share: a fake on a clock only the test moves, the one violation a
 * request should leave, and a wait until the fake has seen every request close.
 */
import { expect } from "vitest";
import { ClientViolation } from "../../schemas/index.ts";
import { ManualClock } from "./manual-clock.ts";
import type { FakeServerOptions } from "../options.ts";
import type { InspectableFakeServer } from "../server.ts";
import { fakeServer } from "./server.ts";

/** A fake whose clock moves only when a test says so: windows and Retry-After without sleeping. */
export async function fakeWithClock(
  options: FakeServerOptions = {},
): Promise<{ fake: InspectableFakeServer; clock: ManualClock }> {
  const clock = new ManualClock();
  const fake = await fakeServer(options, { clock });
  return { fake, clock };
}

/** Exactly one violation of `requirement`, and nothing else recorded. */
export function onlyViolation(fake: InspectableFakeServer, requirement: string): ClientViolation {
  const all = fake.clientViolations();
  expect(all.map((v) => v.requirement)).toEqual([requirement]);
  return ClientViolation.parse(all[0]);
}

/** Lets the server see every close event of the requests so far. */
export async function settled(fake: InspectableFakeServer): Promise<void> {
  await fake.app.internals.inFlight.whenIdle();
  await new Promise((resolve) => setImmediate(resolve));
}
