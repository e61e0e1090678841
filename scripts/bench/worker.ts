/**
 * A benchmark target runs in its own Node process, so the server under load and the load
 * generator do not share one event loop (or one heap, for the memory probe). The parent
 * calls named functions of the child over the IPC channel; each call gets one answer.
 */

import { fork, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

export const PROJECT_ROOT = resolve(import.meta.dirname, "../..");

interface CallMessage {
  id: number;
  call: string;
  args: unknown;
}

type AnswerMessage = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export interface Worker {
  call<T>(name: string, args?: unknown): Promise<T>;
  /** Ends the child: SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface WorkerOptions {
  /** Run the child with --expose-gc (the memory probe needs global.gc). */
  exposeGc?: boolean;
}

/** Starts `entry` (a path relative to scripts/bench/) under tsx in a child process. */
export function startWorker(entry: string, options: WorkerOptions = {}): Worker {
  const execArgv = [...(options.exposeGc ? ["--expose-gc"] : []), "--import", "tsx"];
  const child: ChildProcess = fork(resolve(import.meta.dirname, entry), [], {
    cwd: PROJECT_ROOT,
    execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let exited = false;
  const exitedPromise = new Promise<void>((done) => {
    child.once("exit", (code, signal) => {
      exited = true;
      for (const waiter of pending.values())
        waiter.reject(new Error(`${entry} exited (code ${code}, signal ${signal})`));
      pending.clear();
      done();
    });
  });
  child.on("message", (raw) => {
    const message = raw as AnswerMessage;
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(new Error(`${entry}: ${message.error}`));
  });

  return {
    call<T>(name: string, args?: unknown): Promise<T> {
      if (exited) return Promise.reject(new Error(`${entry} is not running`));
      const id = nextId++;
      return new Promise<T>((resolveCall, rejectCall) => {
        pending.set(id, { resolve: (value) => resolveCall(value as T), reject: rejectCall });
        const message: CallMessage = { id, call: name, args };
        child.send(message);
      });
    },
    async stop(graceMs = 5_000) {
      if (exited) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
}

/** Every worker answers `cpuUsage`: its own CPU time so far, in microseconds. */
export type CpuUsage = NodeJS.CpuUsage;

/** The child side: answers calls with `handlers`; exits on SIGTERM or when the parent goes. */
export function serveCalls(handlers: Record<string, (args: never) => unknown>): void {
  if (!process.send) throw new Error("this module runs as a benchmark worker (started by scripts/bench)");
  const all: Record<string, (args: never) => unknown> = { ...handlers, cpuUsage: () => process.cpuUsage() };
  process.on("message", (raw) => {
    const { id, call, args } = raw as CallMessage;
    const handler = all[call];
    const answer = (message: AnswerMessage) => process.send?.(message);
    if (!handler) {
      answer({ id, ok: false, error: `unknown call ${call}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(args as never))
      .then(
        (value) => answer({ id, ok: true, value }),
        (error: unknown) =>
          answer({ id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      );
  });
  process.once("disconnect", () => process.exit(0));
  process.once("SIGTERM", () => process.exit(0));
}
