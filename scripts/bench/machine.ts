/** The machine a run measured, recorded beside its figures. */

import { cpus, loadavg, totalmem } from "node:os";

export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started: above the core count, others shared the CPU. */
  loadAverageAtStart: number;
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cores: list.length,
    cpuModel: list[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverageAtStart: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}
