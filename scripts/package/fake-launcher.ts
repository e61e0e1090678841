/**
 * The fake started through one of its launchers (`npm run fake`, npx, the bin) and stopped by a
 * signal to the launcher's PID alone, the way a process manager or a CI step stops it: the
 * launcher must take the fake with it.
 */

import { connect } from "node:net";
import { expect, type onTestFinished } from "vitest";
import { startCommand, type CommandOptions, type CommandResult, type StartedCommand } from "./command.ts";

export interface LaunchedFake {
  launcher: StartedCommand;
  url: URL;
}

/** Starts the launcher and expects the fake's listening line as the first line on stdout. */
export async function startFake(
  command: string,
  args: readonly string[],
  options: CommandOptions,
  onFinished: typeof onTestFinished,
): Promise<LaunchedFake> {
  const launcher = startCommand(command, args, options);
  onFinished(() => launcher.killGroup("SIGKILL"));
  const line = await launcher.firstLine;
  expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
  return { launcher, url: new URL(line.slice("listening on ".length)) };
}

/**
 * Waits until every process of the launcher's group is gone (the time limit of startCommand
 * bounds it), then expects the summary on stderr and the port closed.
 */
export async function expectStopped({ launcher, url }: LaunchedFake): Promise<CommandResult> {
  const result = await launcher.finished;
  expect(result.timedOut, result.output).toBe(false);
  expect(result.stderr, result.output).toMatch(/^client violations: /m);
  expect(await connectOutcome(url), result.output).toBe("ECONNREFUSED");
  return result;
}

/** "connected", or the error code of the failed connect. */
function connectOutcome(url: URL): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), timeout: 5_000 });
    socket.on("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.on("timeout", () => {
      socket.destroy();
      resolve("timeout");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
