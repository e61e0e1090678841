/**
 * Interactions: the stateful property (suite/interactions/) against the target, judged by the
 * executable model of the service (suite/model/). One run of the property is shared by one
 * check per requirement the model judges, so a bug between requests fails its own requirement.
 * Create cost: what the budget leaves after every other check, at most 24 (smoke: 6), at least
 * 4; about 7 per sequence on a conforming target. Lists, replays, refused reuses, deletes and
 * other scopes' attempts cost nothing. `--only interactions --seed S --path P` runs exactly the
 * sequence a counterexample names.
 */
import { requirementById } from "../../requirements/catalog.ts";
import { checkScopes } from "../harness/check-scope.ts";
import { check } from "../harness/check.ts";
import { workerState } from "../harness/context.ts";
import { fail } from "../harness/expect.ts";
import { INTERACTIONS_FAMILY } from "../harness/selection.ts";
import { sharedFixture } from "../harness/shared-fixture.ts";
import type { Need, Target } from "../harness/types.ts";
import { CREATES_PER_SEQUENCE, LANES } from "../interactions/commands.ts";
import { renderCounterexample } from "../interactions/counterexample.ts";
import { runInteractionProperty, type PropertyOutcome } from "../interactions/property.ts";

const FAMILY = INTERACTIONS_FAMILY;
const MOST_CREATES = { full: 24, smoke: 6 } as const;
const LEAST_CREATES = 4;

/** Every requirement the model or the single-answer judgements of the property can find broken. */
const JUDGED: readonly { id: string; needs?: Need[] }[] = [
  { id: "RESP-1" }, { id: "RESP-2" }, { id: "RESP-3" },
  { id: "IDEM-1" }, { id: "IDEM-2" }, { id: "IDEM-3" }, { id: "IDEM-4" }, { id: "IDEM-5" }, { id: "IDEM-9" },
  { id: "SSE-1" }, { id: "SSE-2" }, { id: "SSE-3" }, { id: "SSE-4" }, { id: "SSE-5" }, { id: "SSE-6" }, { id: "SSE-7" }, { id: "SSE-8" },
  { id: "LIST-1" }, { id: "LIST-2" }, { id: "LIST-5" }, { id: "LIST-7" }, { id: "LIST-8" },
  { id: "DEL-1" }, { id: "DEL-3" },
  { id: "SCOPE-1", needs: ["otherAgent"] }, { id: "SCOPE-2", needs: ["otherAgent"] }, { id: "SCOPE-3", needs: ["otherApiKey"] }, { id: "SCOPE-4" },
];

const { settings } = workerState();

const propertyRun = sharedFixture(
  "interaction property",
  MOST_CREATES[settings.profile],
  async (target: Target): Promise<PropertyOutcome> => {
    const lanes = target.lanes(LANES);
    try {
      const allowance = target.remainingCreates();
      return await runInteractionProperty(
        {
          lanes: lanes.clients,
          identities: { primary: target.primary, otherAgent: target.otherAgent, otherKey: target.otherKey },
          message: (label) => target.message(label),
          idempotencyKey: (label) => target.idempotencyKey(label),
          track: (id, owner) => target.track(id, owner),
          remainingCreates: () => target.remainingCreates(),
          settleMs: target.settleMs,
        },
        {
          seed: settings.seed,
          path: settings.path,
          runs: Math.max(1, Math.ceil(allowance / CREATES_PER_SEQUENCE)),
          createsPerRun: CREATES_PER_SEQUENCE + 1,
          replayCommand: (seed, path) => `npm run conformance -- --only ${FAMILY} --seed ${seed} --path ${path}`,
        },
      );
    } finally {
      await lanes.close();
    }
  },
  LEAST_CREATES,
);

for (const { id, needs } of JUDGED) {
  check(
    [id],
    `interactions: ${requirementById(id)?.summary ?? id}`,
    { creates: 0, uses: [propertyRun], smoke: true, family: FAMILY, ...(needs === undefined ? {} : { needs }) },
    async (target) => {
      const outcome = await target.shared(propertyRun);
      const found = outcome.failure?.requirement === id ? outcome.failure : outcome.warnings.find((w) => w.violation.requirement === id)?.counterexample;
      if (found === undefined) return;
      const scope = checkScopes.getStore();
      if (scope !== undefined) scope.counterexample = found;
      fail(`the interaction property (${outcome.runs} sequence(s), ${outcome.operations} operations) found ${renderCounterexample(found)}`);
    },
  );
}
