/**
 * What a run would spend, from the checks' declarations alone (pure): the checks it selected,
 * in the order it makes them, each with the most it may spend (its own creates, and those of
 * the shared fixtures it would build first), and the ones the run would skip whatever happens
 * (the smoke profile, a missing identity, more creates than the cap holds). What a check does
 * not spend of what it reserved goes back to the budget, so whether a late check fits a tight
 * cap is decided at run time, first come, first served; the plan says when that can happen.
 */

import { reservationFor, type CheckPlan } from "../checks/runtime/check-plan.ts";
import type { Need } from "../checks/runtime/types.ts";
import type { CollectedCheck } from "./vitest-collect.ts";

export const NEED_FLAGS: Record<Need, string> = {
  otherAgent: "--other-agent-id",
  otherApiKey: "--other-api-key",
};

export interface PlanSettings {
  /** The run's cap (--max-creates or the profile's). */
  readonly cap: number;
  /** Creates the preflight may make before any check (it deletes them at once). */
  readonly preflight: number;
  readonly profile: "full" | "smoke" | "deep";
  readonly otherAgent: boolean;
  readonly otherKey: boolean;
}

export interface PlannedCheck {
  readonly name: string;
  readonly file: string;
  /** The most it may spend, the fixtures it builds included; 0 when it is skipped. */
  readonly creates: number;
  /** Shared fixtures it builds first, with the creates each may spend. */
  readonly builds: readonly { readonly name: string; readonly creates: number; readonly takesRest: boolean }[];
  /** Shared fixtures an earlier check built, which it only reads. */
  readonly reads: readonly string[];
  /** Why the run would skip it whatever the target does: the profile, a missing identity, more than the cap holds. */
  readonly skip?: string;
}

export interface DryRunPlan {
  readonly checks: readonly PlannedCheck[];
  /** Registered checks the selection leaves out (--only, --exclude, --shard). */
  readonly notSelected: number;
  /** What the checks may spend in all, each at its most (the cap may stop them first). */
  readonly checksTotal: number;
  readonly settings: PlanSettings;
}

function skipped(check: CollectedCheck, skip: string): PlannedCheck {
  return { name: check.name, file: check.file, creates: 0, builds: [], reads: [], skip };
}

export function planRun(collected: readonly CollectedCheck[], settings: PlanSettings): DryRunPlan {
  // The most the checks can have: the cap, less what the preflight may create.
  const room = Math.max(0, settings.cap - settings.preflight);
  const built = new Set<string>();
  const checks: PlannedCheck[] = [];
  let notSelected = 0;
  for (const check of collected) {
    const plan: CheckPlan | undefined = check.plan;
    if (plan !== undefined && !plan.selected) {
      notSelected++;
      continue;
    }
    if (plan === undefined) {
      checks.push(skipped(check, "not registered with check(): what it spends is unknown"));
      continue;
    }
    if (settings.profile === "smoke" && !plan.smoke) {
      checks.push(skipped(check, "not in the smoke profile"));
      continue;
    }
    const missing = plan.needs.filter((need) => (need === "otherAgent" ? !settings.otherAgent : !settings.otherKey));
    if (missing.length > 0) {
      checks.push(skipped(check, `needs ${missing.map((need) => NEED_FLAGS[need]).join(" and ")}`));
      continue;
    }
    const toBuild = plan.uses.filter((fixture) => !built.has(fixture.name));
    const asked = (fixture: (typeof toBuild)[number]) =>
      fixture.asked === "rest" ? Number.POSITIVE_INFINITY : fixture.asked;
    const needed =
      plan.creates +
      toBuild.reduce((sum, fixture) => sum + Math.min(fixture.least ?? Number.POSITIVE_INFINITY, asked(fixture)), 0);
    if (needed > room) {
      checks.push(skipped(check, `budget: needs ${needed} creates, the cap leaves at most ${room}`));
      continue;
    }
    // As a run does: the check reserves its own creates, then builds what it uses; at most, nothing else has spent any.
    const builds = toBuild.map((fixture) => {
      built.add(fixture.name);
      return {
        name: fixture.name,
        creates: reservationFor(asked(fixture), fixture.least, room - plan.creates),
        takesRest: fixture.least !== undefined,
      };
    });
    const reads = plan.uses.filter((fixture) => !toBuild.includes(fixture)).map((fixture) => fixture.name);
    checks.push({
      name: check.name,
      file: check.file,
      creates: plan.creates + builds.reduce((sum, b) => sum + b.creates, 0),
      builds,
      reads,
    });
  }
  return { checks, notSelected, checksTotal: checks.reduce((sum, c) => sum + c.creates, 0), settings };
}
