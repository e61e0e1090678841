/**
 * Waits for a condition the server reaches on its own (a key reserved, a timer set),
 * checking once per event-loop turn. Bounded in turns and time; throws on running out.
 */
export async function until(condition: () => boolean, what: string, maxTurns = 10_000, maxMs = 5_000): Promise<void> {
  const start = Date.now();
  for (let turn = 0; turn < maxTurns && Date.now() - start < maxMs; turn++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting for ${what}`);
}
