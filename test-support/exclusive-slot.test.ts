/** The exclusive slot: one holder at a time across processes, and a dead holder's slot taken over. */
import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { takeExclusiveSlot } from "./exclusive-slot.ts";

/** A slot of this test's own, so that the files holding the real one never make it wait. */
const name = `slot-test-${process.pid}`;

test("a second taker waits until the first gives the slot back", async () => {
  const release = await takeExclusiveSlot({ name });
  let second = false;
  const waiting = takeExclusiveSlot({ name, waitMs: 5_000 }).then((free) => {
    second = true;
    return free;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(second).toBe(false);
  release();
  const releaseSecond = await waiting;
  expect(second).toBe(true);
  releaseSecond();
});

test("a slot whose holder died is taken over", async () => {
  // A child takes the slot and is killed before it can give it back.
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `
    const { takeExclusiveSlot } = await import(${JSON.stringify(new URL("./exclusive-slot.ts", import.meta.url).href)});
    await takeExclusiveSlot({ name: process.argv[1] });
    process.stdout.write("held\\n");
    setInterval(() => {}, 1000);
  `,
      name,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => (chunk.toString().includes("held") ? resolve() : undefined));
    child.on("exit", (code) => reject(new Error(`the holder exited early (${code})`)));
  });
  child.kill("SIGKILL");
  await new Promise((resolve) => child.on("exit", resolve));
  const release = await takeExclusiveSlot({ name, waitMs: 10_000 });
  release();
}, 30_000);
