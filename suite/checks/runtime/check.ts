/**
 * `check`: how a conformance check is registered. One vitest test per call, named
 * `[ID ID] name` for people and carrying the IDs in its task meta (`requirements`) for the
 * report, that skips with a reason when an identity or the budget is missing (or the
 * profile leaves it out), runs the body under a deadline that aborts its requests, and, when
 * it fails, attaches the last exchanges it made to the test's meta for the report. A check the
 * target never let finish (InconclusiveError) is skipped with that reason and marked
 * inconclusive; what the target made it wait (retries, settling) is kept in the meta too.
 */

import { test } from "vitest";
import type { RequirementId } from "../../../requirements/catalog.ts";
import { CheckScope, checkScopes } from "./check-scope.ts";
import { isBuilt, neededCreates } from "./shared-fixture.ts";
import { workerState } from "./context.ts";
import { timeAllowanceMs } from "./check-timing.ts";
import { inconclusiveCause, InconclusiveError } from "../../http/errors.ts";
import { checkTitle, INTERACTIONS_FAMILY, isAnySelected, noteScenarioCheck, selectsFor } from "./selection.ts";
import { fixturePlan, type CheckPlan } from "./check-plan.ts";
import type { CheckOptions, Need, Target } from "./types.ts";

const NEED_FLAGS: Record<Need, string> = {
  otherAgent: "--other-agent-id",
  otherApiKey: "--other-api-key",
};

/** vitest's own timeout sits this far behind the check's deadline, as a backstop only. */
const VITEST_TIMEOUT_MARGIN_MS = 5_000;

// An id outside the catalog does not compile; only an empty list is left to refuse.
function validate(requirements: readonly RequirementId[], name: string, options: CheckOptions): void {
  if (requirements.length === 0) throw new Error(`check "${name}" names no requirement`);
  if (!Number.isInteger(options.creates) || options.creates < 0) {
    throw new Error(`check "${name}": creates must be a whole number ≥ 0, got ${options.creates}`);
  }
  if (options.timeoutMs !== undefined && (!Number.isInteger(options.timeoutMs) || options.timeoutMs < 1)) {
    throw new Error(`check "${name}": timeoutMs must be a whole number ≥ 1`);
  }
}

async function runWithDeadline(scope: CheckScope, timeoutMs: number, run: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let deadlineAt = performance.now() + timeoutMs;
  const deadline = new Promise<never>((_, reject) => {
    const expire = () => {
      const left = deadlineAt - performance.now();
      if (left > 0) {
        timer = setTimeout(expire, left);
        return;
      }
      scope.controller.abort();
      reject(
        new InconclusiveError(
          "timeout",
          `the check did not finish within ${Math.round(timeoutMs + scope.extendedMs)} ms`,
          "--check-timeout",
        ),
      );
    };
    timer = setTimeout(expire, timeoutMs);
  });
  scope.onExtend = (ms) => {
    deadlineAt += ms;
  };
  try {
    await Promise.race([checkScopes.run(scope, run), deadline]);
  } finally {
    clearTimeout(timer);
    // Whatever the body left running (an unawaited stream, say) stops here.
    scope.controller.abort();
  }
}

export function check(
  requirements: readonly RequirementId[],
  name: string,
  options: CheckOptions,
  body: (target: Target) => Promise<void>,
): void {
  validate(requirements, name, options);
  const title = checkTitle(requirements, name);
  const meta = { requirements: [...requirements] };
  const { settings, ledger, target, stop } = workerState();

  // A check runs when one of its requirements is selected (a family's check: when its family is,
  // selection.ts) and not excluded by the user.
  if (options.family === undefined) noteScenarioCheck(requirements);
  // Under --shard only this shard's share runs; the interaction property runs in every shard.
  const inShard = (id: string) =>
    settings.shard === undefined || options.family === INTERACTIONS_FAMILY || settings.shard.requirements.includes(id);
  const wanted = requirements.filter(
    (id) =>
      selectsFor(id, options.family, settings.only) &&
      !(settings.exclude.length > 0 && isAnySelected([id], settings.exclude)) &&
      inShard(id),
  );
  const plan: CheckPlan = {
    selected: wanted.length > 0,
    creates: options.creates,
    uses: (options.uses ?? []).map((fixture) => fixturePlan(fixture, settings.profile)),
    needs: options.needs ?? [],
    smoke: options.smoke === true,
  };
  if (wanted.length === 0) {
    test.skip(title, { meta: { ...meta, conformancePlan: plan } }, () => {});
    return;
  }

  const timeoutMs = options.timeoutMs ?? timeAllowanceMs(options.creates, settings);
  // vitest's own timeout is only a backstop; shared fixtures extend a check's deadline, so it
  // allows for every create of the run.
  const backstopMs = timeoutMs + timeAllowanceMs(settings.maxCreates, settings) + VITEST_TIMEOUT_MARGIN_MS;
  test(title, { timeout: backstopMs, meta: { ...meta, conformancePlan: plan } }, async (context) => {
    // An interrupted run starts no check: each one left says it was not judged, and why.
    if (stop.reason !== undefined) {
      context.task.meta.conformanceCheck = { interrupted: stop.reason };
      context.skip(`not judged: ${stop.reason}`);
      return;
    }
    if (settings.profile === "smoke" && options.smoke !== true) {
      context.task.meta.conformanceCheck = { excluded: "not in the smoke profile" };
      context.skip("not in the smoke profile");
      return;
    }
    const missing = (options.needs ?? []).filter((need) =>
      need === "otherAgent" ? target.otherAgent === undefined : target.otherKey === undefined,
    );
    if (missing.length > 0) {
      context.skip(`needs ${missing.map((need) => NEED_FLAGS[need]).join(" and ")}`);
      return;
    }
    // Shared fixtures not built yet are built by this check, from their own reservations.
    const toBuild = (options.uses ?? []).filter((fixture) => !isBuilt(fixture));
    const needed =
      options.creates + toBuild.reduce((sum, fixture) => sum + neededCreates(fixture, settings.profile), 0);
    if (needed > ledger.remaining()) {
      context.skip(ledger.skipReason(needed));
      return;
    }
    const reservation = ledger.tryReserve(options.creates);
    if (reservation === undefined) {
      context.skip(ledger.skipReason(options.creates));
      return;
    }
    const scope = new CheckScope(title, reservation);
    scope.uses = (options.uses ?? []).map((fixture) => fixture.name);
    let inconclusive: InconclusiveError | undefined;
    // A stop during the check: its requests get a short bound to end, then are aborted.
    const cut = () => scope.controller.abort();
    stop.signal.addEventListener("abort", cut, { once: true });
    let interrupted: string | undefined;
    try {
      await runWithDeadline(scope, timeoutMs, () => body(target));
    } catch (error) {
      context.task.meta.conformance = scope.evidence();
      inconclusive = inconclusiveCause(error);
      // Whatever a check met once the run was stopping is no verdict on the target.
      if (inconclusive === undefined && stop.reason === undefined) throw error;
    } finally {
      stop.signal.removeEventListener("abort", cut);
      interrupted = stop.reason;
      reservation.release();
      context.task.meta.conformanceCheck = {
        ...(interrupted === undefined ? {} : { interrupted }),
        ...(inconclusive === undefined ? {} : { inconclusive: inconclusive.message }),
        ...(scope.waited() ? { waiting: { ...scope.waiting } } : {}),
        ...(scope.interactions === undefined ? {} : { interactions: scope.interactions }),
      };
    }
    if (interrupted !== undefined) {
      context.skip(`not judged: ${interrupted}`);
      return;
    }
    if (inconclusive !== undefined) {
      // JUnit shows a skip without its note; the annotation carries the reason there.
      await context.annotate(inconclusive.message, "inconclusive");
      context.skip(`inconclusive: ${inconclusive.message}`);
    }
  });
}
