/**
 * Section "startup": how soon the fake serves. In process, `createFakeServer` to the first
 * answered create; as the single file (dist/agent-service-fake.mjs, built afresh into a
 * temporary folder and run from there with no node_modules), the spawn to its listening
 * line; and, for comparison, `npm run --silent fake` (tsx compiling on the fly) the same way.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { BUNDLE_NAME, bundleFake } from "../package/bundle-fake.ts";
import { atMost, type Section } from "./figures.ts";
import type { BenchSettings } from "./settings.ts";
import { median, percentile, round } from "./stats.ts";
import { PROJECT_ROOT, startWorker } from "./worker.ts";

/** Milliseconds from spawning `command` to its first stdout line, which must be the listening line. */
async function timeToListening(command: string, args: readonly string[], cwd: string): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "ignore"], detached: true });
  try {
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command} printed nothing within 30 s`)), 30_000);
      lines.once("line", (line) => {
        clearTimeout(timer);
        resolve(line);
      });
      child.once("exit", (code) => reject(new Error(`${command} exited with ${code} before listening`)));
    });
    const elapsed = performance.now() - started;
    if (!first.startsWith("listening on ")) throw new Error(`${command} printed ${JSON.stringify(first)} first`);
    return elapsed;
  } finally {
    // The whole group: npm runs the fake under a shell.
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    await new Promise((resolve) =>
      child.exitCode === null && child.signalCode === null ? child.once("exit", resolve) : resolve(null),
    );
  }
}

async function repeated(rounds: number, measure: () => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) times.push(await measure());
  return times;
}

export async function startupSection(settings: BenchSettings): Promise<Section> {
  const config = settings.startup;
  const worker = startWorker("targets/startup-probe.ts");
  let inProcess: number[];
  try {
    inProcess = await worker.call<number[]>("starts", { rounds: config.inProcessRounds + 1 });
  } finally {
    await worker.stop();
  }
  const [coldInProcess = Number.NaN, ...warmInProcess] = inProcess;

  const folder = await mkdtemp(join(tmpdir(), "fake-startup-"));
  try {
    const file = join(folder, BUNDLE_NAME);
    await bundleFake(file);
    const bundle = await repeated(config.processRounds, () =>
      timeToListening(process.execPath, [file, "--port", "0"], folder),
    );
    const npm = await repeated(config.npmRounds, () =>
      timeToListening("npm", ["run", "--silent", "fake", "--", "--port", "0"], PROJECT_ROOT),
    );
    return {
      name: "startup",
      title: "Fake start: in process to the first answered create; as a process to its listening line",
      figures: [
        {
          metric: "createFakeServer to the first answered create (median of rounds)",
          value: round(median(warmInProcess), 2),
          unit: "ms",
          target: atMost(25),
        },
        {
          metric: "createFakeServer to the first answered create, p95",
          value: round(percentile(warmInProcess, 95), 2),
          unit: "ms",
        },
        { metric: "the same, first round in the process (cold)", value: round(coldInProcess, 2), unit: "ms" },
        {
          metric: "node agent-service-fake.mjs to its listening line (median)",
          value: round(median(bundle), 1),
          unit: "ms",
          target: atMost(300),
        },
        {
          metric: "npm run --silent fake to its listening line (median, for comparison)",
          value: round(median(npm), 1),
          unit: "ms",
        },
      ],
      details: { ...config, inProcessMs: inProcess, bundleMs: bundle, npmMs: npm },
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
