/**
 * The service as the search (linearize.ts) sees it, porcupine's `Model` for this spec: how one
 * operation steps one world (the step files), which worlds a create splits one into (how
 * Idempotency-Keys are scoped, while the service has not shown it), a world's fingerprint, and
 * how far a world a violation ruled out strayed from the spec's plain reading. What the search
 * must not know of keys and endpoints is here.
 */
import type { KeysTaken } from "./key-forms.ts";
import type { Rank, SearchModel } from "./linearize.ts";
import { isAnonymous, type Caller, type Endpoint, type Op } from "./operation.ts";
import { stepAnonymous } from "./step-anonymous.ts";
import { stepCreate } from "./step-create.ts";
import { stepDelete } from "./step-delete.ts";
import { stepList } from "./step-list.ts";
import type { Step, StepContext } from "./step.ts";
import type { Violation } from "./violation.ts";
import { fingerprint, keyId, type World } from "./world.ts";

export function stepOne(world: World, op: Op, context: StepContext): Step {
  if (isAnonymous(op.who)) return stepAnonymous(world, op);
  switch (op.kind) {
    case "create":
      return stepCreate(world, op, context);
    case "list":
      return stepList(world, op, context);
    case "delete":
      return stepDelete(world, op);
  }
}

/**
 * The worlds a create may be stepped in: a key the other endpoint used, in a world that has not
 * yet shown how keys are scoped, splits it in two, one for each reading.
 */
export function keyScopeChoices(world: World, who: Caller, key: string | null, endpoint: Endpoint): World[] {
  if (key === null || world.keyScope !== "unknown") return [world];
  if (world.keys.has(keyId(who, key, endpoint)) || !world.keys.has(keyId(who, key))) return [world];
  return [
    { ...world, keyScope: "shared" },
    { ...world, keyScope: "per-endpoint" },
  ];
}

/**
 * In a world that scopes keys per endpoint, whether a violation involves an exchange whose key
 * both endpoints used: the service may have shared that key after all, which this world denies.
 */
export function contestsKeyScope(world: World, ops: readonly number[]): boolean {
  if (world.keyScope !== "per-endpoint") return false;
  const records = [...world.keys.values()];
  return records.some(
    (r) => ops.includes(r.op) && records.some((o) => o.who === r.who && o.key === r.key && o.endpoint !== r.endpoint),
  );
}

/**
 * How far a world strayed from the spec's plain reading, weightiest first (linearize.ts compares
 * them in turn):
 * 1. it scoped keys per endpoint, a reading some services take but the spec does not (the stream
 *    "accepts the same Idempotency-Key");
 * 2. only the order of the items contradicts its guess at the order in which overlapping
 *    exchanges took effect, or it put a listing after a delete the listing overlapped: another
 *    order's verdict explains more;
 * 3. its verdict names no exchange (a total it cannot explain), or rests only on the counting the
 *    totals taught it (an exchange on a page where that counting puts none), where another
 *    world's names the one that went wrong: a dropped stream that took effect with its text
 *    mangled is lost by the world where it took effect (SSE-8), unexplained by the one where it
 *    did not;
 * 4. its verdict names an exchange lost while the page shows another exchange's text changed:
 *    the world where that other one took effect, stored changed, names the one that went wrong;
 * 5. its verdict names an exchange stored in part whose answer was delivered whole, where another
 *    world's names one whose client left (a service that stores the answer once delivered).
 * The key scope weighs more: a world that reads keys as the spec does is held to the spec's own
 * rules, so its verdict, even one that fails only by its guess at an order, explains more than any
 * verdict of a world that took a reading the spec does not; between two worlds of one reading, a
 * verdict that does not rest on a guessed order explains more.
 */
function strayingOf(world: World, violation: Violation): Rank["straying"] {
  return [
    world.keyScope === "per-endpoint",
    violation.byOrder === true,
    violation.onCounting === true,
    violation.anotherShownChanged === true,
    violation.inPartDelivered === true,
  ];
}

/**
 * Whether a violation fell on the world's own choice of key scope: on a key both endpoints used,
 * in a world that scoped keys per endpoint. The service may have contradicted that reading itself,
 * and a ruling of the plainer world explains more: a service that showed keys shared by both
 * endpoints, then ran one key on both at once, breaks IDEM-5, not the per-endpoint reading's rules.
 */
function againstItsChoice(world: World, op: Op, violation: Violation): boolean {
  const otherEndpoint = op.kind === "create" ? (op.endpoint === "plain" ? "stream" : "plain") : undefined;
  const onSharedKey =
    op.kind === "create" &&
    op.key !== null &&
    otherEndpoint !== undefined &&
    world.keyScope === "per-endpoint" &&
    world.keys.has(keyId(op.who, op.key, otherEndpoint));
  return onSharedKey || contestsKeyScope(world, violation.ops);
}

/** The service's model, with every message the history sent so far (with the #n that sent it): how listings are read. */
export function serviceModel(messages: ReadonlyMap<string, number>, keysTaken: KeysTaken): SearchModel<World, Op> {
  return {
    split: (world, op) => (op.kind === "create" ? keyScopeChoices(world, op.who, op.key, op.endpoint) : [world]),
    step: (world, op, overlapping) => stepOne(world, op, { overlapping, messages, keysTaken }),
    fingerprint,
    rank: (world, op, violation) => ({
      straying: strayingOf(world, violation),
      againstItsChoice: againstItsChoice(world, op, violation),
    }),
  };
}
