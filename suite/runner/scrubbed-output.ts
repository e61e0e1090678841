/**
 * vitest prints what checks throw and log; a check could quote a body in which the target
 * echoed a key. Its output therefore passes through the redactor on the way to the terminal,
 * and the JUnit file is scrubbed after vitest wrote it.
 *
 * vitest pipes each worker's output into the stream it is given, and a pipe ends its
 * destination when the worker exits: whatever vitest printed after that was lost, and whatever
 * it printed before got through. That is why its "JUNIT report written to …" line showed in
 * some runs and not in others. The stream here stays open, and drops that line: the runner
 * names its report folder itself, once, at the end.
 */

import { readFile, writeFile } from "node:fs/promises";
import { Writable } from "node:stream";
import type { Redactor } from "../http/redact.ts";

/** vitest's reporters' own notes of files they wrote (the runner prints its `Reports:` line instead). */
const REPORT_WRITTEN = /^(JUNIT|JSON) report written to .*\n?$/;

/** A stream that scrubs each write and forwards it to `sink`; ending it (a worker's pipe does) changes nothing. */
export function scrubbingStream(redactor: Redactor, sink: (text: string) => void): Writable {
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, callback) {
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      if (!REPORT_WRITTEN.test(text)) sink(redactor.scrub(text));
      callback();
    },
  });
  // One worker's exit must not close the output of the whole run.
  stream.end = function end(this: Writable) {
    return this;
  } as Writable["end"];
  return stream;
}

export async function scrubFile(path: string, redactor: Redactor): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const scrubbed = redactor.scrub(text);
  if (scrubbed !== text) await writeFile(path, scrubbed);
}
