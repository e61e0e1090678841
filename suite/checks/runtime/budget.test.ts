import { describe, expect, test } from "vitest";
import { BudgetLedger } from "./budget.ts";

describe("BudgetLedger", () => {
  test("a reservation holds creates until spent or released", () => {
    const ledger = new BudgetLedger(10);
    const r = ledger.tryReserve(4);
    expect(r).toBeDefined();
    expect(ledger.remaining()).toBe(6);
    r?.tryHold()?.settle(true);
    expect(ledger.spent).toBe(1);
    expect(ledger.remaining()).toBe(6);
    r?.release();
    expect(ledger.remaining()).toBe(9);
    expect(ledger.spent).toBe(1);
  });

  test("a check cannot hold more creates at once than it reserved", () => {
    const ledger = new BudgetLedger(10);
    const r = ledger.tryReserve(2);
    const holds = [r?.tryHold(), r?.tryHold(), r?.tryHold()];
    expect(holds.map((h) => h !== undefined)).toEqual([true, true, false]);
    for (const hold of holds) hold?.settle(true);
    expect(ledger.spent).toBe(2);
    expect(r?.tryHold()).toBeUndefined();
  });

  test("a refused create consumed nothing: its hold goes back to the reservation", () => {
    const ledger = new BudgetLedger(10);
    const r = ledger.tryReserve(1);
    r?.tryHold()?.settle(false);
    r?.tryHold()?.settle(false);
    expect(ledger.spent).toBe(0);
    r?.tryHold()?.settle(true);
    expect(ledger.spent).toBe(1);
    expect(r?.spent()).toBe(1);
    r?.release();
    expect(ledger.remaining()).toBe(9);
  });

  test("a hold is settled once, and one settled after its check ended still counts", () => {
    const ledger = new BudgetLedger(5);
    const r = ledger.tryReserve(2);
    const late = r?.tryHold();
    r?.release();
    expect(ledger.remaining()).toBe(5);
    late?.settle(true);
    late?.settle(true);
    expect(ledger.spent).toBe(1);
    expect(ledger.remaining()).toBe(4);
  });

  test("a reservation the budget cannot cover is refused, with the skip reason", () => {
    const ledger = new BudgetLedger(5);
    ledger.tryReserve(3);
    expect(ledger.tryReserve(3)).toBeUndefined();
    expect(ledger.skipReason(3)).toBe("budget: needs 3 creates, 2 left");
    expect(ledger.tryReserve(2)).toBeDefined();
    expect(ledger.tryReserve(0)).toBeDefined();
  });

  test("a released reservation cannot hold and is not returned twice", () => {
    const ledger = new BudgetLedger(5);
    const r = ledger.tryReserve(3);
    r?.release();
    r?.release();
    expect(ledger.remaining()).toBe(5);
    expect(r?.tryHold()).toBeUndefined();
  });
});
