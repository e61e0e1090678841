/**
 * Preflight: a few cheap requests before any check, to tell an operator's mistake (a wrong
 * key, a wrong base URL, an agent the key cannot use) from non-conformance. A diagnosed
 * mistake stops the run with exit 2 and one line naming the flag to fix, instead of a list of
 * MUST failures blamed on the service.
 *
 * A conforming target is never stopped. The spec leaves error bodies open and lets a service
 * answer an unknown conversation's listing as it likes, so a listing that looks wrong is only
 * a diagnosis when deleting the same unknown conversation, whose answer the spec pins down
 * (DEL-2: 404 conversation_not_found), does not vouch for the target either. A well-formed
 * create must be 2xx (RESP-1), so its refusal is a diagnosis on its own.
 *
 * A listing whose 404 names no code is compared with the answer to a path that has no route: a
 * service that answers the two differently routed the listing, and is judged, not stopped.
 *
 * Requests, in order: the listing of an unknown conversation for each identity (free); with
 * --other-agent-id, a create without a message through each agent (the spec's RESP-4 has it
 * refused and change nothing), to compare how the two agents refuse it; and at most one real
 * create, when no answer so far showed the agent usable and the budget allows it. Whatever a
 * create started is deleted at once; the caller counts it as spent.
 */

import { randomUUID } from "node:crypto";
import { CONVERSATION_NOT_FOUND, errorCode } from "../../schemas/index.ts";
import { endpoints } from "../http/endpoints.ts";
import { displayUrl } from "../http/redact.ts";
import { mediaType, tryParseJson } from "../http/response-body.ts";
import type { HttpResult, Identity, ServiceClient, Transcript } from "../http/types.ts";
import { is2xx } from "../judgements/expect.ts";
import { sameNotFound, type AskNoSuchRoute } from "./route-probe.ts";

export interface PreflightInput {
  client: ServiceClient;
  /** Redacted description of the target, e.g. "http://127.0.0.1:4010 (agent agent-a)". */
  describe: string;
  baseUrl: string;
  runId: string;
  primary: Identity;
  otherAgent?: Identity | undefined;
  otherKey?: Identity | undefined;
  /** Creates preflight may spend (the run's budget; 0 sends no create at all). */
  creates: number;
  /** Asks a path that has no route, to tell a router's 404 from a missing resource's (route-probe.ts). */
  askNoSuchRoute?: AskNoSuchRoute | undefined;
}

type Diagnosis =
  | "unreachable"
  | "plain-http-port"
  | "busy"
  | "key-refused"
  | "not-this-api"
  | "base-url-ends-in-v1"
  | "agent-unusable"
  | "other-agent-unusable"
  | "other-key-refused";

type ProbeName = "list" | "delete" | "create" | "create-without-message" | "no-such-route";

/** One request preflight sent, and the status it got (undefined: no answer). */
interface ProbeRecord {
  probe: ProbeName;
  identity: "primary" | "other agent" | "other key";
  status: number | undefined;
}

/** A create the target may charge for: the run counts it as spent. */
interface PreflightCreate {
  agentId: string;
  /** The conversation it started, when the answer named one. */
  conversationId: string | undefined;
  /** Whether it was deleted at once; if not, the end-of-run cleanup has to. */
  deleted: boolean;
}

export type Preflight =
  | { ok: true; probes: ProbeRecord[]; created: PreflightCreate[] }
  | { ok: false; diagnosis: Diagnosis; reason: string; probes: ProbeRecord[] };

type Answer =
  | { kind: "answer"; status: number; headers: Record<string, string>; json: unknown; text: string }
  | { kind: "silent"; message: string };
type Answered = Extract<Answer, { kind: "answer" }>;

/** How a listing of an unknown conversation looks, from its status and body fields. */
type Look = "fine" | "refused" | "busy" | "html" | "no-route" | "agent";

/** Own waits for a 429/503 the client did not already wait out. */
const BUSY_RETRIES = 3;
const LONGEST_BUSY_WAIT_MS = 10_000;

const isBusy = (status: number) => status === 429 || status === 503;

/** The error's transcript, when the client threw after the target answered (size cap, reset, retries exhausted). */
function transcriptOf(error: unknown): Transcript | undefined {
  return typeof error === "object" && error !== null ? (error as { transcript?: Transcript }).transcript : undefined;
}

/** The client gave up on "try later" answers itself (its InconclusiveError of kind "retries"). */
function clientWaitedOut(error: unknown): boolean {
  const fields = error as { name?: unknown; kind?: unknown };
  return fields.name === "InconclusiveError" && fields.kind === "retries";
}

function retryWaitMs(retryAfter: string | undefined, attempt: number): number {
  const text = retryAfter?.trim() ?? "";
  const asked = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - Date.now();
  const wait = Number.isFinite(asked) ? Math.max(0, asked) : 1000 * 2 ** attempt;
  return Math.min(wait, LONGEST_BUSY_WAIT_MS);
}

/** Sends one probe; a 429/503 is waited out a few times, unless the client already did. */
async function ask(send: () => Promise<HttpResult>): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    let answer: Answer;
    let waitedOut = false;
    try {
      const result = await send();
      answer = { kind: "answer", status: result.status, headers: result.headers, json: result.json, text: result.text };
    } catch (error) {
      const response = transcriptOf(error)?.response;
      if (response === undefined)
        return { kind: "silent", message: error instanceof Error ? error.message : String(error) };
      const text = response.body ?? "";
      answer = { kind: "answer", status: response.status, headers: response.headers, json: tryParseJson(text), text };
      waitedOut = clientWaitedOut(error);
    }
    if (!isBusy(answer.status) || waitedOut || attempt >= BUSY_RETRIES) return answer;
    await new Promise((resolve) => setTimeout(resolve, retryWaitMs(answer.headers["retry-after"], attempt)));
  }
}

function isHtml(answer: Answered): boolean {
  const type = mediaType(answer.headers["content-type"]);
  return type === "text/html" || type === "application/xhtml+xml" || /^\s*<(!doctype html|html)/i.test(answer.text);
}

/** A code reduced to letters: "not_found", "NotFound" and ".../not-found" all become "notfound". */
const plainCode = (answer: Answered) => (errorCode(answer.json) ?? "").toLowerCase().replace(/[^a-z]/g, "");

function lookOf(answer: Answered): Look {
  if (answer.status === 401 || answer.status === 403) return "refused";
  if (isBusy(answer.status)) return "busy";
  // A server error is the service's own trouble, whatever page a gateway wraps it in: the checks judge it.
  if (answer.status >= 500) return "fine";
  if (isHtml(answer)) return "html";
  if (answer.status !== 404) return "fine";
  // No body, or one that is not JSON: a router's or a proxy's 404 more often than this API's.
  if (answer.json === undefined) return "no-route";
  const code = plainCode(answer);
  if (code.includes("agent")) return "agent";
  if (code.endsWith("notfound") && !code.includes("conversation")) return "no-route";
  // JSON naming no code at all ({"detail":"Not Found"} of a framework's router): suspicious too,
  // and, like every suspicion here, only diagnosed when the delete does not vouch for the target.
  if (code === "") return "no-route";
  return "fine";
}

/** The spec's own answer to deleting an unknown conversation: the target is this API, and lets this identity in. */
const vouches = (answer: Answered) => answer.status === 404 && errorCode(answer.json) === CONVERSATION_NOT_FOUND;

/** "404 with code not_found", for a diagnosis line; target-chosen text is kept short and printable. */
function described(answer: Answered): string {
  const code = errorCode(answer.json);
  if (isHtml(answer)) return `${answer.status} with an HTML page`;
  if (code !== undefined) return `${answer.status} with code ${code.replace(/[^\x21-\x7e]/g, "?").slice(0, 60)}`;
  if (answer.text.trim() === "") return `${answer.status} with no body`;
  if (answer.json === undefined) return `${answer.status} with a body that is not JSON`;
  return `${answer.status} with a JSON body that names no error code`;
}

/**
 * https:// to a port that speaks plain HTTP fails in TLS's record layer (OpenSSL's "wrong
 * version number"): the same URL with http://, when that is what happened.
 */
function plainHttpUrl(baseUrl: string, message: string): string | undefined {
  const url = new URL(baseUrl);
  if (
    url.protocol !== "https:" ||
    !/wrong[ _]version[ _]number|packet length too long|ERR_SSL_HTTP_REQUEST/i.test(message)
  )
    return undefined;
  url.protocol = "http:";
  return displayUrl(url.toString());
}

/** The base URL without a trailing /v1 segment, if it has one (the suite adds /v1 itself). */
function withoutV1(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, "");
  if (!/\/v1$/i.test(path)) return undefined;
  url.pathname = path.slice(0, -"/v1".length) || "/";
  return displayUrl(url.toString());
}

/** A 4xx that refuses the body itself: the request got past the key and the agent. */
function refusesBody(answer: Answer): answer is Answered {
  return (
    answer.kind === "answer" &&
    answer.status >= 400 &&
    answer.status < 500 &&
    ![401, 403, 404, 429].includes(answer.status)
  );
}

/** Mirrors the client's budget rule: a 4xx or 503 consumed nothing, anything else may have. */
const consumed = (answer: Answer) =>
  answer.kind === "silent" || !((answer.status >= 400 && answer.status < 500) || answer.status === 503);

export async function preflight(input: PreflightInput): Promise<Preflight> {
  const { client, describe, primary, otherAgent, otherKey } = input;
  const probes: ProbeRecord[] = [];
  const created: PreflightCreate[] = [];
  const unknown = randomUUID();
  const stop = (diagnosis: Diagnosis, reason: string): Preflight => ({ ok: false, diagnosis, reason, probes });

  const probe = async (
    name: ProbeName,
    identity: ProbeRecord["identity"],
    send: () => Promise<HttpResult>,
  ): Promise<Answer> => {
    const answer = await ask(send);
    probes.push({ probe: name, identity, status: answer.kind === "answer" ? answer.status : undefined });
    return answer;
  };

  /** The listing's answer, and how it looks once the delete of the same unknown conversation had its say. */
  const listingOf = async (
    identity: ProbeRecord["identity"],
    as: Identity,
  ): Promise<{ answer: Answer; look: Look }> => {
    const answer = await probe("list", identity, () => client.list(unknown, { as }));
    if (answer.kind === "silent") return { answer, look: "fine" };
    const look = lookOf(answer);
    if (look === "fine" || look === "busy") return { answer, look };
    const deletion = await probe("delete", identity, () => client.delete(unknown, { as }));
    // Only a delete that answered, and not with the spec's own answer, confirms the suspicion.
    const confirmed = deletion.kind === "answer" && !isBusy(deletion.status) && !vouches(deletion);
    if (!confirmed) return { answer, look: "fine" };
    if (look === "no-route" && (await routedElsewise(identity, as, answer))) return { answer, look: "fine" };
    return { answer, look };
  };

  /** The listing's 404 differs from a certain router 404: the route exists, the conversation does not. */
  const routedElsewise = async (
    identity: ProbeRecord["identity"],
    as: Identity,
    listing: Answered,
  ): Promise<boolean> => {
    if (input.askNoSuchRoute === undefined) return false;
    const routeless = await input.askNoSuchRoute(as);
    probes.push({ probe: "no-such-route", identity, status: routeless?.status });
    if (routeless === undefined || isBusy(routeless.status)) return false;
    const listingPath = endpoints(input.baseUrl).messages(as.agentId, unknown);
    return !sameNotFound(
      { status: listing.status, headers: listing.headers, text: listing.text, path: listingPath },
      routeless,
    );
  };

  let left = input.creates;
  /** A create that may have started a conversation: counted, and deleted at once. */
  const keep = async (answer: Answer, identity: ProbeRecord["identity"], as: Identity): Promise<void> => {
    if (!consumed(answer)) return;
    left--;
    const body = answer.kind === "answer" ? answer.json : undefined;
    const id = (body as { conversation_id?: unknown } | undefined)?.conversation_id;
    const conversationId = typeof id === "string" && id !== "" ? id : undefined;
    let deleted = false;
    if (conversationId !== undefined) {
      const deletion = await probe("delete", identity, () => client.delete(conversationId, { as }));
      deleted = deletion.kind === "answer" && is2xx(deletion.status);
    }
    created.push({ agentId: as.agentId, conversationId, deleted });
  };

  // 1. The primary identity: reachable, the key accepted, the base URL right, this API.
  const first = await listingOf("primary", primary);
  if (first.answer.kind === "silent") {
    const plain = plainHttpUrl(input.baseUrl, first.answer.message);
    if (plain !== undefined) {
      return stop(
        "plain-http-port",
        `the target ${describe} did not answer over TLS: the port answers plain HTTP: use http:// (--base-url ${plain})`,
      );
    }
    return stop("unreachable", `the target ${describe} did not answer a first request: ${first.answer.message}`);
  }
  const listing = first.answer;
  switch (first.look) {
    case "busy":
      return stop(
        "busy",
        `the target ${describe} is busy: it still answered ${listing.status} to a first request after waiting: try again later`,
      );
    case "refused":
      return stop(
        "key-refused",
        `the API key was refused (${listing.status}) by ${describe}: check --api-key / CONFORMANCE_API_KEY`,
      );
    case "agent":
      return stop(
        "agent-unusable",
        `agent ${primary.agentId} is not usable with this key (the message listing answered ${described(listing)}): check --agent-id / CONFORMANCE_AGENT_ID`,
      );
    case "html":
    case "no-route": {
      const shorter = withoutV1(input.baseUrl);
      if (shorter !== undefined) {
        return stop(
          "base-url-ends-in-v1",
          `--base-url ${displayUrl(input.baseUrl)} already ends in /v1, which the suite adds itself (the message listing at …/v1/v1/… answered ${described(listing)}): try --base-url ${shorter}`,
        );
      }
      return stop(
        "not-this-api",
        first.look === "html"
          ? `${describe} answers with an HTML page, not this API: is --base-url (CONFORMANCE_BASE_URL) the service's base URL?`
          : `${describe} does not serve this API (the message listing answered ${described(listing)}): is --base-url (CONFORMANCE_BASE_URL) the service's base URL?`,
      );
    }
    case "fine":
      break;
  }

  // 2. The other identities, as cheaply.
  if (otherAgent !== undefined) {
    const { answer, look } = await listingOf("other agent", otherAgent);
    if (answer.kind === "answer" && look !== "fine" && look !== "busy") {
      return stop(
        "other-agent-unusable",
        `agent ${otherAgent.agentId} is not usable with this key (the message listing through it answered ${described(answer)}): check --other-agent-id / CONFORMANCE_OTHER_AGENT_ID`,
      );
    }
  }
  if (otherKey !== undefined) {
    const { answer, look } = await listingOf("other key", otherKey);
    if (answer.kind === "answer" && (look === "refused" || look === "agent")) {
      const evidence = look === "refused" ? String(answer.status) : described(answer);
      return stop(
        "other-key-refused",
        `the other API key was refused (${evidence}) by ${describe}: check --other-api-key / CONFORMANCE_OTHER_API_KEY`,
      );
    }
  }

  // 3. Creates. A listing served through the agent already shows the key may use it.
  let agentShown = is2xx(listing.status);
  const invalidCreate = async (identity: ProbeRecord["identity"], as: Identity, label: string) => {
    const answer = await probe("create-without-message", identity, () =>
      client.create({ as, body: {}, idempotencyKey: `conf-${input.runId}-preflight-${label}` }),
    );
    await keep(answer, identity, as);
    return answer;
  };
  if (otherAgent !== undefined && left > 0) {
    // Same key, same invalid body: if the primary agent refuses the body and the other agent
    // refuses the caller, the other agent is what differs.
    const reference = await invalidCreate("primary", primary, "no-message-primary");
    if (reference.kind === "answer" && is2xx(reference.status)) agentShown = true;
    if (refusesBody(reference)) {
      const other = await invalidCreate("other agent", otherAgent, "no-message-other");
      if (other.kind === "answer" && [401, 403, 404].includes(other.status)) {
        return stop(
          "other-agent-unusable",
          `agent ${otherAgent.agentId} is not usable with this key (a create without a message answered ${described(other)} through it, ${described(reference)} through agent ${primary.agentId}): check --other-agent-id / CONFORMANCE_OTHER_AGENT_ID`,
        );
      }
    }
  }
  if (!agentShown && left > 0) {
    const key = `conf-${input.runId}-preflight`;
    const answer = await probe("create", "primary", () =>
      client.create({ body: { message: `${key}: is this agent usable?` }, idempotencyKey: key }),
    );
    await keep(answer, "primary", primary);
    if (answer.kind === "answer") {
      if (answer.status === 401) {
        return stop(
          "key-refused",
          `the API key was refused (401) by ${describe}: check --api-key / CONFORMANCE_API_KEY`,
        );
      }
      if (isHtml(answer) && (answer.status === 404 || answer.status === 405)) {
        return stop(
          "not-this-api",
          `${describe} answers a create with an HTML page, not this API: is --base-url (CONFORMANCE_BASE_URL) the service's base URL?`,
        );
      }
      // A 404 that names no code says nothing about what was not found: the checks judge it.
      if (answer.status === 403 || (answer.status === 404 && errorCode(answer.json) !== undefined)) {
        return stop(
          "agent-unusable",
          `agent ${primary.agentId} is not usable with this key (a create through it answered ${described(answer)}): check --agent-id / CONFORMANCE_AGENT_ID`,
        );
      }
    }
  }
  return { ok: true, probes, created };
}
