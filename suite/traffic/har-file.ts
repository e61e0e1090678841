/**
 * The proxy's --har file, written entry by entry as exchanges finish: nothing of the traffic
 * stays in memory, however long the proxy runs. The file is a valid HAR 1.2 document once
 * `end` has written its closing brackets. Writes are synchronous on purpose: they run in the
 * judging thread, never on the thread that forwards bytes, and a synchronous write cannot pile
 * entries up in a buffer when the disk is slower than the traffic.
 */
import { openSync, writeSync } from "node:fs";
import type { ObservedExchange } from "./exchange.ts";
import { HAR_CREATOR, harEntry } from "./har.ts";

/** Opens (and truncates) `path` for the proxy's HAR; throws when it cannot be written. The opening thread closes it. */
export function openHarFile(path: string): number {
  return openSync(path, "w");
}

export class HarFile {
  private entries = 0;

  /** `fd` from openHarFile, possibly opened by another thread of this process. */
  constructor(private readonly fd: number) {
    writeSync(this.fd, `{"log":{"version":"1.2","creator":${JSON.stringify(HAR_CREATOR)},"entries":[\n`);
  }

  get written(): number {
    return this.entries;
  }

  add(exchange: ObservedExchange): void {
    writeSync(this.fd, `${this.entries === 0 ? "" : ",\n"}${JSON.stringify(harEntry(exchange))}`);
    this.entries++;
  }

  /** Closes the document (the file stays open, for the thread that opened it to close). */
  end(): void {
    writeSync(this.fd, "\n]}}\n");
  }
}
