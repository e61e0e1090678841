/**
 * 5,000 generated hostile requests against one running fake: never a 5xx, never an
 * unexpected error in the fake's log, never a polluted prototype, every error a JSON error
 * body, and the store exactly as it was after every request that was refused.
 */

import fc from "fast-check";
import { Client } from "undici";
import { expect, onTestFinished, test } from "vitest";
import { ErrorBody } from "../../schemas/index.ts";
import { fakeServer } from "../test-support/server.ts";
import { hostileRequest, type HostileRequest } from "../test-support/hostile-requests.ts";
import { storeSnapshot, type KnownConversation } from "../test-support/store-snapshot.ts";

const RUNS = 5_000;
const OWNERS = [
  { agentId: "agent-a", channel: "web" },
  { agentId: "agent-b", channel: "web" },
  { agentId: "agent-a", channel: "sms" },
] as const;

interface Answer {
  status: number;
  text: string;
  contentType: string | undefined;
}

/**
 * A path with bytes outside ASCII is not valid HTTP/1.1: Node's parser answers a bare 400
 * and closes the connection before the fake sees the request. That answer, and only for
 * such a path, is not the fake's JSON error.
 */
function refusedByHttpParser(request: HostileRequest, answer: Answer): boolean {
  return (
    /[^\x00-\x7f]/.test(request.path) && answer.status === 400 && answer.text === "" && answer.contentType === undefined
  );
}

async function send(client: Client, request: HostileRequest): Promise<Answer> {
  const response = await client.request({
    method: request.method,
    path: request.path,
    headers: request.headers,
    body: request.body,
  });
  const contentType = response.headers["content-type"];
  return {
    status: response.statusCode,
    text: await response.body.text(),
    contentType: typeof contentType === "string" ? contentType : undefined,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function prototypesClean(): boolean {
  const probe: Record<string, unknown> = {};
  return (
    probe["polluted"] === undefined &&
    !Object.hasOwn(Object.prototype, "polluted") &&
    !Object.hasOwn(Array.prototype, "polluted")
  );
}

test(
  `${RUNS} hostile requests: no 5xx, no crash, no pollution, and refused requests change nothing`,
  { timeout: 120_000 },
  async () => {
    const unexpected: string[] = [];
    const fake = await fakeServer({ faults: false, log: (line) => unexpected.push(line) });
    const client = new Client(fake.url, { pipelining: 1 });
    onTestFinished(() => client.close());
    const { conversations } = fake.app.internals;
    const known: KnownConversation[] = OWNERS.map(({ agentId, channel }) => ({
      id: conversations.seed(agentId, channel, 2).id,
      agentId,
      channel,
    }));
    const knownIds = known.map((conversation) => conversation.id);

    /** A conversation a successful create announced, with whichever owner the store gives it. */
    const learn = (id: unknown) => {
      if (typeof id !== "string" || known.some((conversation) => conversation.id === id)) return;
      const owner = OWNERS.find(({ agentId, channel }) => conversations.find(id, agentId, channel));
      if (owner) known.push({ id, ...owner });
    };

    let sent = 0;
    await fc.assert(
      fc.asyncProperty(hostileRequest({ conversationIds: knownIds }), async (request) => {
        unexpected.length = 0;
        const before = storeSnapshot(fake.app.internals, known);
        const answer = await send(client, request);
        sent++;
        expect(answer.status, answer.text).toBeLessThan(500);
        expect(unexpected).toEqual([]);
        expect(prototypesClean()).toBe(true);
        if (answer.status >= 400) {
          if (refusedByHttpParser(request, answer)) return;
          if (request.method !== "HEAD")
            expect(
              ErrorBody.safeParse(parseJson(answer.text)).success,
              `${answer.status} ${JSON.stringify(answer.text)}`,
            ).toBe(true);
          expect(storeSnapshot(fake.app.internals, known), `${answer.status} ${answer.text}`).toBe(before);
        } else if (request.method === "POST") {
          // A plain create answers JSON, a stream announces the id in response.created.
          learn(/"conversation_id":"([0-9a-f-]{36})"/.exec(answer.text)?.[1]);
        }
      }),
      { numRuns: RUNS },
    );
    expect(sent).toBeGreaterThanOrEqual(RUNS);
    // Still serving after all of it.
    const health = await client.request({ method: "GET", path: "/__fake/health" });
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  },
);
