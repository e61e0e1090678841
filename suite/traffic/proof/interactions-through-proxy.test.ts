/**
 * One judgement: the interaction property's own traffic, sent through the proxy to the fake,
 * its variants and its interaction mutants, is judged there too, by the traffic judge feeding
 * the same model. Whatever the property found (a failure or a SHOULD broken), the traffic judge
 * finds by the same requirement; on a conforming target it finds nothing. The judge's
 * --settle-ms is the window the target needs: none for the fake, which lists a write at once,
 * more than its lag for the listing-lag variant.
 */
import { expect, test } from "vitest";
import { MUTANTS } from "../../../fake-server/variants/mutants.ts";
import { runInteractionProperty } from "../../interactions/property.ts";
import { identitiesOf, standaloneTarget } from "../../interactions/standalone.ts";
import { inBatches, judgeThroughProxy, serviceFailures, verdictOf, WIDE_CLIENT_RULES } from "./judge-through-proxy.ts";
import { DEFAULT_IDENTITIES } from "../../../fake-server/access/default-identities.ts";
import { counterexampleShownByTraffic, shownByTraffic } from "../unobservable.ts";

const SEEDS = [7, 8, 9];
/** The property waits this long for a listing to settle; the judge's window is shorter, so its last readings are judged. */
const PROPERTY_SETTLE_MS = 1_500;

interface Target {
  readonly name: string;
  readonly options: Record<string, unknown>;
  readonly judgeSettleMs: number;
}

async function propertyThroughProxy(target: Target, seed: number) {
  let found: string[] = [];
  let hidden: string[] = [];
  const run = await judgeThroughProxy(
    { ...target.options, clientRules: WIDE_CLIENT_RULES },
    async (baseUrl) => {
      const { target: lanes, close } = standaloneTarget({
        baseUrl,
        ...identitiesOf(DEFAULT_IDENTITIES),
        settleMs: PROPERTY_SETTLE_MS,
      });
      try {
        const outcome = await runInteractionProperty(lanes, {
          seed,
          runs: 1,
          // The full profile's share: at 12 creates a seed of three missed a mutant that a full run catches.
          createsPerRun: 24,
          replayCommand: () => "",
        });
        const failure = outcome.failure;
        found = [
          ...(failure === undefined ? [] : [failure.requirement]),
          ...outcome.warnings.map((w) => w.violation.requirement),
        ];
        // A failure whose counterexample needs a caller's standing that traffic cannot know
        // (another key's channel, a key nobody issued), or what only the client knew (nothing
        // else of its in flight), is the suite's alone.
        hidden =
          failure === undefined || counterexampleShownByTraffic(failure.requirement, failure)
            ? []
            : [failure.requirement];
      } finally {
        await close();
      }
    },
    { settleMs: target.judgeSettleMs },
  );
  return {
    target: target.name,
    seed,
    property: [...new Set(found)].sort(),
    // What the property found that traffic can show.
    shown: [...new Set(found)].filter((id) => shownByTraffic(id) && !hidden.includes(id)).sort(),
    traffic: serviceFailures(run),
    // How the judge left each requirement it did not fail: the next disagreement can be read from the test's output.
    verdict: (id: string) => verdictOf(run, id),
  };
}

const CONFORMING: Target[] = [
  { name: "plain", options: {}, judgeSettleMs: 0 },
  { name: "listing-lag", options: { variants: ["listing-lag"] }, judgeSettleMs: 500 },
  { name: "three-messages", options: { variants: ["three-messages"] }, judgeSettleMs: 0 },
  { name: "rate-limited", options: { variants: ["rate-limited"] }, judgeSettleMs: 0 },
  { name: "overloaded", options: { variants: ["overloaded"] }, judgeSettleMs: 0 },
  { name: "epoch-timestamps", options: { variants: ["epoch-timestamps"] }, judgeSettleMs: 0 },
];
const INTERACTION_MUTANTS: Target[] = MUTANTS.filter((m) => m.interaction).map((m) => ({
  name: m.name,
  options: { mutant: m.name },
  judgeSettleMs: 0,
}));

/**
 * idempotency-per-replica picks its replica by the client's connection; behind the proxy every
 * request reaches the fake over the proxy's own connections, so its bug does not show there.
 */
const NOT_THROUGH_PROXY = new Set(["idempotency-per-replica"]);

/** Three at a time: two cores carry three property runs and their proxies well. */
const runsOf = (targets: readonly Target[]) =>
  inBatches(
    targets.flatMap((target) => SEEDS.map((seed) => ({ target, seed }))),
    3,
    ({ target, seed }) => propertyThroughProxy(target, seed),
  );

test(`conforming targets: the property's traffic shows the traffic judge no service violation (seeds ${SEEDS.join(", ")})`, async () => {
  const runs = await runsOf(CONFORMING);
  expect(runs.map(({ target, seed, property, traffic }) => ({ target, seed, property, traffic }))).toEqual(
    CONFORMING.flatMap((t) => SEEDS.map((seed) => ({ target: t.name, seed, property: [], traffic: [] }))),
  );
}, 180_000);

test(`interaction mutants: the traffic judge finds what the property found, by the same requirement (seeds ${SEEDS.join(", ")})`, async () => {
  const mutants = INTERACTION_MUTANTS.filter((t) => !NOT_THROUGH_PROXY.has(t.name));
  const runs = await runsOf(mutants);
  const verdicts = mutants.map((target) => {
    const mutant = MUTANTS.find((m) => m.name === target.name);
    const own = [mutant?.requirement ?? "", ...(mutant?.also ?? [])];
    const mine = runs.filter((r) => r.target === target.name);
    return {
      mutant: target.name,
      propertyFindsIt: mine.some((r) => r.property.some((id) => own.includes(id))),
      // In each run, what the property found that traffic can show, the traffic judge found too.
      missedByTraffic: mine.flatMap((r) =>
        r.shown.filter((id) => !r.traffic.includes(id)).map((id) => `seed ${r.seed}: ${id} ${r.verdict(id)}`),
      ),
      // Nothing the property, the mutant's own requirements or the same bug met another way (`also`) do not explain.
      unexplained: [
        ...new Set(mine.flatMap((r) => r.traffic.filter((id) => !own.includes(id) && !r.property.includes(id)))),
      ],
    };
  });
  expect(verdicts).toEqual(
    mutants.map((t) => ({ mutant: t.name, propertyFindsIt: true, missedByTraffic: [], unexplained: [] })),
  );
}, 300_000);
