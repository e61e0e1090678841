/**
 * One slot, across every vitest worker of a run, for the test files that keep both cores busy
 * for a minute or more (packing and installing the package, a validation proxy in front of a
 * dozen conformance runs): two of them at once starve each other and everything beside them
 * into timeouts on a 2-core machine. A file takes the slot in beforeAll and gives it back in
 * afterAll; waiting for it is not work, so the hook that waits gets the wait added to its
 * allowance (SLOT_WAIT_MS). The slot is a directory (mkdir is atomic) holding the owner's pid:
 * a slot whose owner died is taken over, so a killed run never blocks the next.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** How long a file may wait for the slot: the longest holder's run, twice over. */
export const SLOT_WAIT_MS = 10 * 60_000;

const slotPath = (name: string) => join(tmpdir(), `agent-conformance-${name}-${userInfo().uid}`);

/** Whether the slot's owner still runs; a slot just made may not name its owner yet, and counts as owned for a few seconds. */
function ownerAlive(slot: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(slot, "owner"), "utf8"));
  } catch {
    try {
      return Date.now() - statSync(slot).mtimeMs < 5_000;
    } catch {
      return false;
    }
  }
  try {
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryTake(slot: string): boolean {
  try {
    mkdirSync(slot);
  } catch {
    // Taken: by a live process, wait; by a dead one (or one that died before writing its pid), take it over.
    if (!ownerAlive(slot)) rmSync(slot, { recursive: true, force: true });
    return false;
  }
  writeFileSync(join(slot, "owner"), String(process.pid));
  return true;
}

/** Waits for the slot and returns the function that frees it (safe to call twice). */
export async function takeExclusiveSlot(
  options: { readonly name?: string; readonly waitMs?: number } = {},
): Promise<() => void> {
  const slot = slotPath(options.name ?? "exclusive");
  const waitMs = options.waitMs ?? SLOT_WAIT_MS;
  const deadline = Date.now() + waitMs;
  for (let pause = 100; !tryTake(slot); pause = Math.min(pause * 2, 2_000)) {
    if (Date.now() > deadline)
      throw new Error(`waited ${waitMs} ms for the exclusive test slot (${slot}); its owner is still running`);
    await sleep(pause);
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    rmSync(slot, { recursive: true, force: true });
  };
}
