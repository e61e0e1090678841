/**
 * The stream vitest prints through: keys scrubbed, vitest's "report written" notes dropped, and
 * still open after a worker's pipe ended it (vitest pipes every worker's output into it).
 */
import { PassThrough } from "node:stream";
import { expect, test } from "vitest";
import { Redactor } from "../http/redact.ts";
import { scrubbingStream } from "./scrubbed-output.ts";

const KEY = "sk-secret-key-1234";

test("scrubs keys, drops vitest's JUNIT line, and keeps printing after a worker's pipe ends", async () => {
  const printed: string[] = [];
  const stream = scrubbingStream(new Redactor([KEY]), (text) => printed.push(text));
  const worker = new PassThrough();
  worker.pipe(stream);
  worker.write(`a check said ${KEY}\n`);
  worker.end();
  await new Promise((done) => setImmediate(done));
  // What vitest's logger writes after the worker exited.
  stream.write("JUNIT report written to /tmp/reports/junit.xml\n");
  stream.write("an error vitest reports at the end\n");
  await new Promise((done) => setImmediate(done));
  expect(printed).toEqual(["a check said sk-s…(redacted)\n", "an error vitest reports at the end\n"]);
  expect(stream.writableEnded).toBe(false);
});
