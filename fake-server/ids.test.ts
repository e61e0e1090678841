import { expect, test } from "vitest";
import { Uuid } from "../schemas/index.ts";
import { newUuid } from "./ids.ts";

test("new ids are distinct v4 UUIDs", () => {
  const ids = Array.from({ length: 100 }, newUuid);
  for (const id of ids) {
    expect(Uuid.safeParse(id).success).toBe(true);
    expect(id[14]).toBe("4");
  }
  expect(new Set(ids).size).toBe(100);
});
