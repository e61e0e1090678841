/**
 * Error bodies (ERR-1).
 * Create cost: 1 — the keyed create whose key the 409 attempt reuses at once (how long a target
 * keeps keys is not specified, so no earlier check's key is reused). It declares 3: a target
 * that accepts the 409 and 400/422 attempts it must refuse spends those too.
 * Exact code strings are asserted only where the spec names one (conversation_not_found, in the
 * delete, listing and scope checks); here any code in an accepted shape passes.
 */
import { randomUUID } from "node:crypto";
import { check } from "./runtime/check.ts";
import { expectNon2xx, expectSomeErrorCode } from "../judgements/expect.ts";
import type { HttpResult } from "../http/types.ts";
import { acceptExchange, trackIfCreated } from "./support/conversations.ts";

check(
  ["ERR-1"],
  "401, 404, 400 (or 422) and 409 answers carry a JSON body with a machine-readable code",
  { creates: 3 },
  async (target) => {
    const key = target.idempotencyKey("err-1");
    const body = { message: target.message("err-1") };
    acceptExchange(target, await target.client.create({ body, idempotencyKey: key }), "keyed create");
    const errors: [string, HttpResult][] = [
      ["401 (list without a key)", await target.client.list(randomUUID(), { as: { ...target.primary, apiKey: null } })],
      ["404 (delete of an unknown conversation)", await target.client.delete(randomUUID())],
      ["400/422 (create without a message)", await target.client.create({ body: { external_reference: "err-1" } })],
      [
        "409 (a key reused with a different payload)",
        await target.client.create({
          body: { message: `${body.message} (changed)` },
          idempotencyKey: key,
        }),
      ],
    ];
    for (const [label, res] of errors) {
      trackIfCreated(target, res, target.primary);
      expectNon2xx(res, label);
      expectSomeErrorCode(res, label);
    }
  },
);
