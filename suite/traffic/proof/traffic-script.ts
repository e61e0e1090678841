/**
 * Traffic that shows every requirement traffic can show, sent to a base URL (the proxy's):
 * creates, streams (one ending in an error event, by the fake's X-Fake-Fault), replays, a key
 * reused with another body, listing pages past the end and out of bounds, another agent's
 * listing and delete, a request without a key, a delete and what follows it. It breaks three
 * client rules on purpose, to reach the service's answers to them: CLIENT-1 (no key),
 * CLIENT-2 (no Idempotency-Key) and CLIENT-3 (a key reused with another body).
 */
import { randomUUID } from "node:crypto";

export const SCRIPT_CLIENT_VIOLATIONS = ["CLIENT-1", "CLIENT-2", "CLIENT-3"];

interface Answer {
  status: number;
  json: unknown;
}

export async function runTrafficScript(
  baseUrl: string,
  key = "sk-fake-a",
  agent = "agent-a",
  otherAgent = "agent-b",
): Promise<void> {
  const api = `${baseUrl}/v1/agents/${agent}`;
  const auth = { authorization: `Bearer ${key}` };
  const json = { ...auth, "content-type": "application/json" };
  const send = async (url: string, init: RequestInit): Promise<Answer> => {
    const response = await fetch(url, init);
    const text = await response.text().catch(() => "");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, json: parsed };
  };
  const create = (body: unknown, idempotencyKey: string | null, raw?: string) =>
    send(`${api}/responses`, {
      method: "POST",
      headers: { ...json, ...(idempotencyKey === null ? {} : { "idempotency-key": idempotencyKey }) },
      body: raw ?? JSON.stringify(body),
    });
  const stream = (body: unknown, idempotencyKey: string, extra: Record<string, string> = {}) =>
    send(`${api}/responses/stream`, {
      method: "POST",
      headers: { ...json, accept: "text/event-stream", "idempotency-key": idempotencyKey, ...extra },
      body: JSON.stringify(body),
    });
  const list = (id: string, query = "", path = api, headers: Record<string, string> = auth) =>
    send(`${path}/conversations/${id}/messages${query}`, { headers });
  const remove = (id: string, path = api) => send(`${path}/conversations/${id}`, { method: "DELETE", headers: auth });

  const first = randomUUID();
  const created = await create({ message: "How do reminders work?", metadata: { source: "traffic" } }, first);
  const id = String((created.json as { conversation_id?: unknown } | undefined)?.conversation_id);
  // The same payload, other key order and whitespace: a replay.
  await create(undefined, first, '{ "metadata": {"source": "traffic"}, "message": "How do reminders work?" }');
  await create({ message: "Something else entirely" }, first);

  const streamed = randomUUID();
  await stream({ message: "And how do I export my data?", conversation_id: id }, streamed);
  await stream({ message: "And how do I export my data?", conversation_id: id }, streamed);
  await stream({ message: "A different question", conversation_id: id }, streamed);
  await stream({ message: "This one fails midway" }, randomUUID(), { "x-fake-fault": "error-after=1" });
  await create({ message: "One more, plainly", conversation_id: id }, randomUUID());

  await list(id);
  const sized = await list(id, "?page=1&page_size=2");
  const total = (sized.json as { total?: number } | undefined)?.total ?? 6;
  for (let page = 1; page <= Math.ceil(total / 2) + 1; page++) await list(id, `?page=${page}&page_size=2`);
  await list(id, "?page=0");
  await list(id, "?page_size=0");
  await list(id, "?page_size=101");
  await list(id, "?page=1.5");

  await list(id, "", `${baseUrl}/v1/agents/${otherAgent}`);
  await remove(id, `${baseUrl}/v1/agents/${otherAgent}`);
  await send(`${baseUrl}/v1/agents/${otherAgent}/responses`, {
    method: "POST",
    headers: { ...json, "idempotency-key": randomUUID() },
    body: JSON.stringify({ message: "Continue it through another agent", conversation_id: id }),
  });

  // Without a key, every operation.
  await list(id, "", api, {});
  await send(`${api}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": randomUUID() },
    body: JSON.stringify({ message: "Who am I?" }),
  });
  await send(`${api}/responses/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", "idempotency-key": randomUUID() },
    body: JSON.stringify({ message: "Who am I?" }),
  });
  await send(`${api}/conversations/${id}`, { method: "DELETE" });

  await create({ message: "No key for this one" }, null);
  // Refused bodies; the first one's key then carries a valid payload.
  const refusedKey = randomUUID();
  await create({ metadata: { source: "no message" } }, refusedKey);
  await create({ message: "Now with a message" }, refusedKey);
  await send(`${api}/responses/stream`, {
    method: "POST",
    headers: { ...json, accept: "text/event-stream", "idempotency-key": randomUUID() },
    body: JSON.stringify({ message: 42 }),
  });

  await list(randomUUID());
  await remove(randomUUID());
  await remove(id);
  await list(id);
  await remove(id);
  await create({ message: "Continue the deleted one", conversation_id: id }, randomUUID());
  await list(id);
}
