/**
 * The stop handlers' own contract, in a child process that signals itself: after a stop was
 * asked and the handlers were disposed, a late copy of the signal (npm forwards the Ctrl-C the
 * whole group got) leaves the process to exit with its own code.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, test } from "vitest";
import { WITH_TSX } from "../test-support/node-with-tsx.ts";

const INTERRUPTION = join(import.meta.dirname, "interruption.ts");

/** A script that asks to stop with SIGINT, disposes, gets SIGINT again, then exits 130 if still alive. */
const script = (signalFirst: boolean) => `
const { listenForStop } = await import(${JSON.stringify(INTERRUPTION)});
const stop = listenForStop();
// Signal handlers keep no event loop alive: this does, until the script exits.
setInterval(() => {}, 1_000);
${signalFirst ? 'process.kill(process.pid, "SIGINT"); await stop.stopped;' : ""}
stop.dispose();
process.kill(process.pid, "SIGINT");
await new Promise((resolve) => setTimeout(resolve, 300));
process.exit(130);
`;

function run(signalFirst: boolean) {
  return spawnSync(process.execPath, [...WITH_TSX, "--input-type=module", "-e", script(signalFirst)], {
    encoding: "utf8",
    timeout: 20_000,
  });
}

test("a late copy of the signal after a stop and dispose() leaves the exit code to the process", () => {
  const late = run(true);
  expect({ status: late.status, signal: late.signal }, late.stderr).toEqual({ status: 130, signal: null });
});

test("without a stop, dispose() gives the signal back its default: it ends the process", () => {
  const unasked = run(false);
  expect({ status: unasked.status, signal: unasked.signal }, unasked.stderr).toEqual({
    status: null,
    signal: "SIGINT",
  });
});
