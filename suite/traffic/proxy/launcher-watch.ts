/**
 * Under npm and npx the proxy may not get the signal that stops its launcher. npx runs the bin
 * under `sh -c`: npm forwards SIGTERM to that shell, which dies of it without passing it on (dash
 * does not exec the last command), and the proxy, below it, would run on with nobody to stop it.
 * (`npm run conformance` execs node itself, so there the signal arrives.) Node has no event for
 * a parent's exit: the proxy watches the processes between it and npm, and stops as on SIGTERM
 * when one of them is gone (its child is then re-parented).
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";

/** How often the chain is looked at: a stop comes within this of the launcher's. */
const POLL_MS = 200;
/** Without /proc, `ps` costs a process per look: less often. */
const PS_POLL_MS = 1_000;

/** Started by tsx's command (`tsx file.ts`), which runs the script in a child process of its own. */
const underTsxCommand = () => process.execArgv.some((arg) => /tsx[\\/]dist[\\/]preflight\.cjs$/.test(arg));

/** The parent of `pid` (Linux /proc, elsewhere `ps`), or undefined when it cannot be told. */
async function parentOf(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // "pid (command) state ppid …": the command may hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return new Promise((resolve) => {
      execFile("ps", ["-o", "ppid=", "-p", String(pid)], { timeout: PS_POLL_MS }, (error, stdout) => {
        const ppid = Number(stdout.trim());
        resolve(error === null && stdout.trim() !== "" && Number.isInteger(ppid) ? ppid : undefined);
      });
    });
  }
}

/**
 * Calls `onGone` once when the launcher chain is broken; returns a function that stops watching.
 * Watches nothing unless npm or npx started the process (npm_lifecycle_event is set): a proxy
 * started from a shell gets its signals directly.
 */
export function watchLauncher(onGone: () => void): () => void {
  if (process.env.npm_lifecycle_event === undefined) return () => undefined;
  const parent = process.ppid;
  // Below tsx's command the parent stays: it is the one re-parented when the shell dies.
  const grandparent = underTsxCommand() ? parentOf(parent) : Promise.resolve(undefined);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const gone = async () => {
    if (process.ppid !== parent) return true;
    const first = await grandparent;
    if (first === undefined) return false;
    const now = await parentOf(parent);
    return now !== undefined && now !== first;
  };
  const look = () => {
    timer = setTimeout(
      () => {
        void gone().then((isGone) => {
          if (stopped) return;
          if (!isGone) return look();
          stopped = true;
          onGone();
        });
      },
      process.platform === "linux" ? POLL_MS : PS_POLL_MS,
    );
    timer.unref();
  };
  look();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
