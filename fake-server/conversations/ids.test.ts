import { expect, test } from "vitest";
import { Uuid } from "../../schemas/index.ts";
import { newUuid } from "./ids.ts";

test("new ids are distinct v4 UUIDs", () => {
  const ids = Array.from({ length: 100 }, newUuid);
  for (const id of ids) {
    expect(Uuid.safeParse(id).success).toBe(true);
    expect(id[14]).toBe("4");
  }
  expect(new Set(ids).size).toBe(100);
});

test("ids carry the version and variant bits, and every other digit varies, across batches of random bytes", () => {
  // 256 ids use one batch of random bytes; 2,000 span several refills.
  const ids = Array.from({ length: 2000 }, newUuid);
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(ids).size).toBe(ids.length);
  for (const position of [0, 12, 15, 20, 35]) expect(new Set(ids.map((id) => id[position])).size).toBe(16);
  expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(["8", "9", "a", "b"]));
});
