/**
 * `check`: how a conformance check is registered. One vitest test per call, named
 * `[ID ID] name`, that skips with a reason when an identity or the budget is missing,
 * runs the body under a deadline that aborts its requests, and, when it fails, attaches
 * the last exchanges it made to the test's meta for the report.
 */

import { test } from "vitest";
import { requirementById } from "../../requirements/catalog.ts";
import { CheckScope, checkScopes } from "./check-scope.ts";
import { workerState } from "./context.ts";
import { TargetError } from "./errors.ts";
import { checkTitle, isAnySelected } from "./selection.ts";
import type { CheckOptions, Need, Target } from "./types.ts";

const NEED_FLAGS: Record<Need, string> = {
  otherAgent: "--other-agent-id",
  otherApiKey: "--other-api-key",
};

/** vitest's own timeout sits this far behind the check's deadline, as a backstop only. */
const VITEST_TIMEOUT_MARGIN_MS = 5_000;

function validate(requirements: readonly string[], name: string, options: CheckOptions): void {
  if (requirements.length === 0) throw new Error(`check "${name}" names no requirement`);
  for (const id of requirements) {
    if (requirementById(id) === undefined) throw new Error(`check "${name}" names unknown requirement ${id}`);
  }
  if (!Number.isInteger(options.creates) || options.creates < 0) {
    throw new Error(`check "${name}": creates must be a whole number ≥ 0, got ${options.creates}`);
  }
  if (options.timeoutMs !== undefined && (!Number.isInteger(options.timeoutMs) || options.timeoutMs < 1)) {
    throw new Error(`check "${name}": timeoutMs must be a whole number ≥ 1`);
  }
}

async function runWithDeadline(scope: CheckScope, timeoutMs: number, run: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      scope.controller.abort();
      reject(new TargetError("timeout", `the check did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    await Promise.race([checkScopes.run(scope, run), deadline]);
  } finally {
    clearTimeout(timer);
    // Whatever the body left running (an unawaited stream, say) stops here.
    scope.controller.abort();
  }
}

export function check(
  requirements: readonly string[],
  name: string,
  options: CheckOptions,
  body: (target: Target) => Promise<void>,
): void {
  validate(requirements, name, options);
  const title = checkTitle(requirements, name);
  const { settings, ledger, target } = workerState();

  if (!isAnySelected(requirements, settings.only)) {
    test.skip(title, () => {});
    return;
  }

  const timeoutMs = options.timeoutMs ?? settings.checkTimeoutMs;
  test(title, { timeout: timeoutMs + VITEST_TIMEOUT_MARGIN_MS }, async (context) => {
    const missing = (options.needs ?? []).filter((need) =>
      need === "otherAgent" ? target.otherAgent === undefined : target.otherKey === undefined);
    if (missing.length > 0) {
      context.skip(`needs ${missing.map((need) => NEED_FLAGS[need]).join(" and ")}`);
      return;
    }
    const reservation = ledger.tryReserve(options.creates);
    if (reservation === undefined) {
      context.skip(ledger.skipReason(options.creates));
      return;
    }
    const scope = new CheckScope(title, reservation);
    try {
      await runWithDeadline(scope, timeoutMs, () => body(target));
    } catch (error) {
      context.task.meta.conformance = scope.evidence();
      throw error;
    } finally {
      reservation.release();
    }
  });
}
