/**
 * A client written in a hurry, kept as a counter-example: each method breaks client rules of
 * the spec, and careless-client.test.ts shows the reference fake reporting every one of them.
 * Compare with well-behaved-client.ts; do not copy this one.
 */
import { randomUUID } from "node:crypto";
import { request, type Dispatcher } from "undici";

export interface CarelessClientOptions {
  baseUrl: string;
  apiKey: string;
  agentId: string;
  dispatcher?: Dispatcher;
}

export interface Answer {
  status: number;
  body: string;
}

export function createCarelessClient(options: CarelessClientOptions) {
  const base = `${options.baseUrl}/v1/agents/${options.agentId}`;
  const auth = { authorization: `Bearer ${options.apiKey}` };
  const dispatcher = options.dispatcher;

  async function post(path: string, headers: Record<string, string>, body: string): Promise<Answer> {
    const response = await request(`${base}${path}`, { method: "POST", headers, body, dispatcher });
    return { status: response.statusCode, body: await response.body.text() };
  }

  return {
    /** One Idempotency-Key "to be safe", for every question: a second question is a second payload under it (CLIENT-3). */
    ask(message: string): Promise<Answer> {
      return post(
        "/responses",
        { ...auth, "content-type": "application/json", "idempotency-key": "careless-client" },
        JSON.stringify({ message }),
      );
    },

    /** No Idempotency-Key, and the JSON sent as text/plain (CLIENT-2, CLIENT-6). */
    askQuickly(message: string): Promise<Answer> {
      return post("/responses", { ...auth, "content-type": "text/plain" }, JSON.stringify({ message }));
    },

    /**
     * No Accept header (CLIENT-5), and a stream that breaks off or fails is simply sent again
     * under a new key, which may duplicate the message (CLIENT-4).
     */
    async streamAnswer(message: string): Promise<string> {
      let last = "";
      for (let attempt = 0; attempt < 2; attempt++) {
        const headers = { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() };
        try {
          const response = await request(`${base}/responses/stream`, {
            method: "POST",
            headers,
            body: JSON.stringify({ message }),
            dispatcher,
          });
          last = await response.body.text();
          if (last.includes("event: response.completed")) return last;
        } catch {
          // "Network blip": try again.
        }
      }
      return last;
    },

    /** Retries 429 and 503 at once, ignoring Retry-After, up to ten times (CLIENT-7). */
    async askPersistently(message: string): Promise<Answer> {
      const headers = { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() };
      let answer: Answer = { status: 0, body: "" };
      for (let attempt = 0; attempt < 10; attempt++) {
        answer = await post("/responses", headers, JSON.stringify({ message }));
        if (answer.status !== 429 && answer.status !== 503) return answer;
      }
      return answer;
    },

    /** The key without "Bearer " (CLIENT-1). */
    async history(conversationId: string): Promise<Answer> {
      const response = await request(`${base}/conversations/${conversationId}/messages`, {
        headers: { authorization: options.apiKey },
        dispatcher,
      });
      return { status: response.statusCode, body: await response.body.text() };
    },
  };
}
