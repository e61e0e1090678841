import { expect, test } from "vitest";
import { planRun, type PlanSettings } from "./dry-run-plan.ts";
import type { CheckPlan } from "../checks/runtime/check-plan.ts";
import type { CollectedCheck } from "./vitest-collect.ts";

const SMALL = { name: "small conversation", asked: 3 } as const;
const PROPERTY = { name: "interaction property", asked: 24, least: 4 } as const;

function check(name: string, plan: Partial<CheckPlan>): CollectedCheck {
  return {
    name,
    file: "f",
    requirements: [],
    plan: { selected: true, creates: 0, uses: [], needs: [], smoke: true, ...plan },
  };
}

const settings = (extra: Partial<PlanSettings> = {}): PlanSettings => ({
  cap: 100,
  preflight: 0,
  profile: "full",
  otherAgent: true,
  otherKey: true,
  ...extra,
});

test("a shared fixture is charged to the first check that uses it; later ones read it", () => {
  const plan = planRun(
    [
      check("a", { creates: 1, uses: [SMALL] }),
      check("b", { uses: [SMALL] }),
      check("c", { selected: false, creates: 9 }),
    ],
    settings(),
  );
  expect(plan.checks.map((c) => [c.name, c.creates, c.reads])).toEqual([
    ["a", 4, []],
    ["b", 0, ["small conversation"]],
  ]);
  expect(plan).toMatchObject({ notSelected: 1, checksTotal: 4 });
});

test("skipped as the run would skip: smoke profile, missing identity, more than the cap holds; a fixture taking the rest gets what the cap leaves", () => {
  const plan = planRun(
    [
      check("full only", { smoke: false, creates: 2 }),
      check("scope", { needs: ["otherApiKey"] }),
      check("huge", { creates: 30 }),
      check("property", { uses: [PROPERTY] }),
    ],
    settings({ cap: 25, preflight: 1, profile: "smoke", otherKey: false }),
  );
  expect(plan.checks.map((c) => [c.name, c.creates, c.skip])).toEqual([
    ["full only", 0, "not in the smoke profile"],
    ["scope", 0, "needs --other-api-key"],
    ["huge", 0, "budget: needs 30 creates, the cap leaves at most 24"],
    ["property", 24, undefined],
  ]);
});
