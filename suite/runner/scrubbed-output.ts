/**
 * vitest prints what checks throw and log; a check could quote a body in which the target
 * echoed a key. Its output therefore passes through the redactor on the way to the terminal,
 * and the JUnit file is scrubbed after vitest wrote it.
 */

import { readFile, writeFile } from "node:fs/promises";
import { Writable } from "node:stream";
import type { Redactor } from "../http/redact.ts";

/** A stream that scrubs each write and forwards it to `sink`. */
export function scrubbingStream(redactor: Redactor, sink: (text: string) => void): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, callback) {
      sink(redactor.scrub(typeof chunk === "string" ? chunk : chunk.toString("utf8")));
      callback();
    },
  });
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
