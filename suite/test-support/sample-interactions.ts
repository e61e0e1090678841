/** A hand-made summary of the interaction property, as conformance.json's `interactions` holds it. */
import type { InteractionsSummary } from "../interactions/coverage.ts";

export function sampleInteractionsSummary(overrides: Partial<InteractionsSummary> = {}): InteractionsSummary {
  return {
    seeds: [123456],
    sequences: 3,
    operations: 412,
    creates: 24,
    coverage: {
      transitions: {
        covered: 3,
        total: 5,
        missing: ["deleted/completed key/replay/stream/own", "live/in flight/continue/plain/other key"],
      },
      orderings: { covered: 1, total: 2, missing: ["delete before response.created/exchange first"] },
      inputs: { covered: 2, total: 2, missing: [] },
      client: { covered: 1, total: 1, missing: [] },
    },
    ...overrides,
  };
}
