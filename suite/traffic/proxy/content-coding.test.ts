/**
 * Decoding the proxy's copy of a coded body: every coding a compressing gateway uses, stacked
 * codings, a body cut short, and what cannot be read (an unknown coding, bytes that are not in
 * the coding named), which must come back unreadable rather than as text.
 */
import zlib from "node:zlib";
import { describe, expect, test } from "vitest";
import { decodeBody } from "./content-coding.ts";

const EVENTS = 'event: response.output_text.delta\ndata: {"delta":"Grüße, "}\n\n'.repeat(40);
const bytes = Buffer.from(EVENTS, "utf8");

describe("decodeBody", () => {
  test.each([
    ["gzip", zlib.gzipSync(bytes)],
    ["x-gzip", zlib.gzipSync(bytes)],
    ["deflate", zlib.deflateSync(bytes)],
    ["br", zlib.brotliCompressSync(bytes)],
    ["GZip ", zlib.gzipSync(bytes)],
  ])("%s", (coding, coded) => {
    expect(decodeBody(coded, coding)).toEqual({ text: EVENTS, coded: true });
  });

  test("raw deflate, as some servers send it", () => {
    expect(decodeBody(zlib.deflateRawSync(bytes), "deflate")).toEqual({ text: EVENTS, coded: true });
  });

  test("codings stacked in the order applied are undone in reverse", () => {
    const twice = zlib.brotliCompressSync(zlib.gzipSync(bytes));
    expect(decodeBody(twice, "gzip, br")).toEqual({ text: EVENTS, coded: true });
  });

  test("no coding, identity, or an empty body is the bytes as they are", () => {
    expect(decodeBody(bytes, undefined)).toEqual({ text: EVENTS, coded: false });
    expect(decodeBody(bytes, "identity")).toEqual({ text: EVENTS, coded: false });
    expect(decodeBody(Buffer.alloc(0), "gzip")).toEqual({ text: "", coded: false });
  });

  test("a gzip stream cut short yields what it held", () => {
    // A stream written with a flush after each event, as a compressing SSE server does, then cut.
    const gzip = zlib.createGzip();
    const pieces: Buffer[] = [];
    gzip.on("data", (piece: Buffer) => pieces.push(piece));
    const event = 'event: response.created\ndata: {"id":"r"}\n\n';
    gzip.write(event);
    return new Promise<void>((resolve) =>
      gzip.flush(() => {
        const decoded = decodeBody(Buffer.concat(pieces), "gzip");
        expect(decoded).toEqual({ text: event, coded: true });
        resolve();
      }),
    );
  });

  test("an unknown coding or bytes not in the coding named are unreadable, never text", () => {
    expect(decodeBody(bytes, "compress")).toEqual({ unreadable: expect.stringContaining('"compress"') });
    expect(decodeBody(bytes, "gzip")).toEqual({ unreadable: expect.stringContaining("not valid gzip") });
    expect(decodeBody(bytes, "br")).toEqual({ unreadable: expect.stringContaining("not valid br") });
  });

  test("a body that decodes past 16 MiB is unreadable", () => {
    const bomb = zlib.gzipSync(Buffer.alloc(17 * 1024 * 1024));
    expect(decodeBody(bomb, "gzip")).toEqual({ unreadable: "the body decodes to more than 16777216 bytes" });
  });
});
