/** For workers run with --expose-gc: heapUsed after full collections, with turns of the loop between them so finalizers run. */
import { setImmediate as nextTurn } from "node:timers/promises";

const collect = (globalThis as { gc?: () => void }).gc;

export async function settledHeap(): Promise<number> {
  if (!collect) throw new Error("run with --expose-gc");
  for (let i = 0; i < 4; i++) {
    collect();
    await nextTurn();
  }
  return process.memoryUsage().heapUsed;
}
