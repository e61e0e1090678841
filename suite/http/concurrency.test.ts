import { describe, expect, test } from "vitest";
import { Semaphore } from "./concurrency.ts";

describe("Semaphore", () => {
  test("never lets more than the limit hold at once, and serves waiters in order", async () => {
    const semaphore = new Semaphore(2);
    const order: number[] = [];
    const a = await semaphore.acquire();
    const b = await semaphore.acquire();
    const third = semaphore.acquire().then((release) => {
      order.push(3);
      return release;
    });
    const fourth = semaphore.acquire().then((release) => {
      order.push(4);
      return release;
    });
    expect(semaphore.held).toBe(2);
    a();
    const releaseThird = await third;
    expect(order).toEqual([3]);
    expect(semaphore.held).toBe(2);
    b();
    (await fourth)();
    releaseThird();
    expect(order).toEqual([3, 4]);
    expect(semaphore.held).toBe(0);
  });

  test("an aborted waiter leaves the queue without taking a slot", async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    controller.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
    release();
    expect(semaphore.held).toBe(0);
    (await semaphore.acquire())();
  });
});
