import { expect, test } from "vitest";
import { TimerRegistry } from "./timers.ts";

test("a pause ends when any of its signals aborts, and its timer is cleared", async () => {
  const timers = new TimerRegistry();
  const first = new AbortController();
  const second = new AbortController();
  const sleeping = timers.sleep(60_000, [first.signal, second.signal]);
  expect(timers.active).toBe(1);
  second.abort();
  await sleeping;
  expect(timers.active).toBe(0);
});

test("a pause of 0 ms, or with an aborted signal, sets no timer", async () => {
  const timers = new TimerRegistry();
  const aborted = new AbortController();
  aborted.abort();
  await timers.sleep(0, []);
  await timers.sleep(60_000, [aborted.signal]);
  expect(timers.active).toBe(0);
});

test("a finished pause leaves no listener on its signals", async () => {
  const timers = new TimerRegistry();
  const controller = new AbortController();
  let calls = 0;
  const original = controller.signal.removeEventListener.bind(controller.signal);
  controller.signal.removeEventListener = (...args: Parameters<AbortSignal["removeEventListener"]>) => {
    calls++;
    original(...args);
  };
  await timers.sleep(1, [controller.signal]);
  expect(calls).toBe(1);
  expect(timers.active).toBe(0);
});
