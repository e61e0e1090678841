// A chat app as a browser runs it: plain fetch calls to the fake on another origin with the
// headers the spec asks for, so the browser sends preflights and applies CORS to every answer.
// The browser tests call `chatApp` from the page and compare what it saw with the spec.
"use strict";

/** Every call gives up after this long, so a stuck request fails the test instead of hanging it. */
const TIMEOUT_MS = 5000;

function headers(key, session, extra = {}) {
  const all = { Authorization: `Bearer ${key}`, ...extra };
  if (session !== null) all["X-Fake-Session"] = session;
  return all;
}

function post(url, session, idempotencyKey, body, extra = {}) {
  return fetch(url, {
    method: "POST",
    headers: headers("sk-fake-a", session, {
      "Content-Type": "application/json",
      "Idempotency-Key": idempotencyKey,
      ...extra,
    }),
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
}

function send(url, session, init = {}, key = "sk-fake-a") {
  return fetch(url, { ...init, headers: headers(key, session), signal: AbortSignal.timeout(TIMEOUT_MS) });
}

/** Reads an event stream as it arrives (no buffering of the whole body), noting the chunk each event completed in. */
async function readEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const events = [];
  let buffered = "";
  let chunks = 0;
  let name = "";
  let data = [];
  // One line at a time; a CR at the end of a chunk may be the first half of CRLF.
  const takeLine = () => {
    const match = /\r\n|\r|\n/.exec(buffered);
    if (match === null || (match[0] === "\r" && match.index === buffered.length - 1)) return undefined;
    const line = buffered.slice(0, match.index);
    buffered = buffered.slice(match.index + match[0].length);
    return line;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks++;
    buffered += value;
    for (let line = takeLine(); line !== undefined; line = takeLine()) {
      if (line === "") {
        if (data.length > 0)
          events.push({ event: name || "message", data: JSON.parse(data.join("\n")), chunk: chunks });
        name = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const fieldValue = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") name = fieldValue;
      if (field === "data") data.push(fieldValue);
    }
  }
  return { chunks, events, unfinished: buffered };
}

async function jsonOrNull(response) {
  const text = await response.text();
  return text === "" ? null : JSON.parse(text);
}

globalThis.chatApp = {
  /** Every operation once, in the order an app would: create, stream, retry, list, delete; then a bad key. */
  async converse(fakeUrl, session, run) {
    const api = `${fakeUrl}/v1/agents/agent-a`;
    const first = { message: "How do reminders work?" };
    const create = await post(`${api}/responses`, session, `${run}-create`, first);
    const created = {
      status: create.status,
      contentType: create.headers.get("content-type"),
      replayed: create.headers.get("idempotent-replayed"),
      body: await create.json(),
    };
    const id = created.body.conversation_id;

    const streamed = await post(
      `${api}/responses/stream`,
      session,
      `${run}-stream`,
      { message: "And exports?", conversation_id: id },
      { Accept: "text/event-stream" },
    );
    const stream = {
      status: streamed.status,
      contentType: streamed.headers.get("content-type"),
      ...(await readEvents(streamed)),
    };

    const again = await post(`${api}/responses`, session, `${run}-create`, first);
    const replay = {
      status: again.status,
      replayed: again.headers.get("idempotent-replayed"),
      body: await again.json(),
    };

    const list = await send(`${api}/conversations/${id}/messages?page=1&page_size=10`, session);
    const listed = { status: list.status, body: await list.json() };
    const remove = await send(`${api}/conversations/${id}`, session, { method: "DELETE" });
    const deleted = { status: remove.status, text: await remove.text() };
    const removeAgain = await send(`${api}/conversations/${id}`, session, { method: "DELETE" });
    const deletedAgain = { status: removeAgain.status, body: await jsonOrNull(removeAgain) };

    const refusal = await send(`${api}/conversations/${id}/messages`, session, {}, "sk-not-a-key");
    const refused = {
      status: refusal.status,
      wwwAuthenticate: refusal.headers.get("www-authenticate"),
      body: await jsonOrNull(refusal),
    };
    return { created, stream, replay, listed, deleted, deletedAgain, refused };
  },

  /** One create; a failure the browser reports (CORS, network) comes back as "Name: message". */
  async createOnce(fakeUrl, session, idempotencyKey) {
    try {
      const response = await post(`${fakeUrl}/v1/agents/agent-a/responses`, session, idempotencyKey, {
        message: "Hello from the page",
      });
      return { status: response.status, body: await response.json() };
    } catch (error) {
      return { error: `${error.name}: ${error.message}` };
    }
  },

  /** The fake's request log of one session, read from the page like any other cross-origin call. */
  async requestLog(fakeOrigin, session) {
    const response = await fetch(`${fakeOrigin}/__fake/requests?session=${encodeURIComponent(session)}`, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = await response.json();
    return {
      status: response.status,
      requests: body.requests.map((entry) => ({
        session: entry.session,
        method: entry.method,
        path: entry.path,
        status: entry.status,
      })),
    };
  },
};
