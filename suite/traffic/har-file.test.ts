/**
 * The proxy's --har file is written entry by entry: what has been judged is on disk at once, and
 * the closed file is a HAR document that reads back to the same exchanges.
 */
import { closeSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import type { ObservedExchange } from "./exchange.ts";
import { HarFile, openHarFile } from "./har-file.ts";
import { readHar } from "./har.ts";

const exchange = (sequence: number): ObservedExchange => ({
  sequence,
  startedAt: 1_764_000_000_000 + sequence,
  request: {
    method: "POST",
    url: "http://proxy/v1/agents/a/responses",
    headers: { authorization: "Bearer sk-secret" },
    body: `{"message":"${sequence}"}`,
  },
  response: {
    status: 200,
    headers: { "content-type": "application/json" },
    body: "{}",
    complete: true,
    chunks: undefined,
  },
  failure: undefined,
  durationMs: 1.25,
});

test("each entry is on disk as soon as it is added; the ended file reads back, keys pseudonymised", async () => {
  const dir = await mkdtemp(join(tmpdir(), "har-file-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, "seen.har");
  const fd = openHarFile(path);
  const har = new HarFile(fd);
  const entriesOnDisk = () => readFileSync(path, "utf8").match(/"startedDateTime"/g)?.length ?? 0;
  for (let i = 0; i < 3; i++) {
    har.add(exchange(i));
    expect(entriesOnDisk()).toBe(i + 1);
  }
  har.end();
  closeSync(fd);
  const text = readFileSync(path, "utf8");
  expect(text).not.toContain("sk-secret");
  const read = readHar(text, "seen.har");
  expect(read.map((e) => [e.startedAt, e.request.body, e.durationMs])).toEqual(
    [0, 1, 2].map((i) => [1_764_000_000_000 + i, `{"message":"${i}"}`, 1.25]),
  );
  expect(har.written).toBe(3);
});

test("a file with no entry is a valid, empty HAR", async () => {
  const dir = await mkdtemp(join(tmpdir(), "har-file-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, "empty.har");
  const fd = openHarFile(path);
  new HarFile(fd).end();
  closeSync(fd);
  expect(readHar(readFileSync(path, "utf8"), "empty.har")).toEqual([]);
});
