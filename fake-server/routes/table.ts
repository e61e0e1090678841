/**
 * The route table: every path the fake serves under /v1 and /__fake, with a handler per method, so
 * an unknown path is a 404 that lists the routes and a missing method a 405 with `Allow`.
 */
import { clientViolationsRoute } from "./client-violations.ts";
import type { Handler } from "../context.ts";
import { healthRoute, requestsRoute, resetRoute } from "./admin.ts";
import { createResponse } from "./create-response.ts";
import { deleteConversation } from "./delete-conversation.ts";
import { listMessages } from "./list-messages.ts";
import { exportConversationRoute, importConversationRoute } from "./conversation-import.ts";
import {
  addAnswerRule,
  addFaultRule,
  answerBook,
  clearRules,
  faultBook,
  listAnswerRules,
  listFaultRules,
  removeRule,
} from "./rules.ts";
import { streamResponse } from "./stream-response.ts";

export interface Route {
  readonly pattern: string;
  /** Method -> handler; any other method on this path is 405 with these in `Allow`. */
  readonly methods: ReadonlyMap<string, Handler>;
  /** One of the fake's own endpoints: errors in the fake's shape whatever the variants. */
  readonly control: boolean;
}

const route = (pattern: string, methods: [string, Handler][]): Route => ({
  pattern,
  methods: new Map(methods),
  control: pattern.startsWith("/__fake"),
});

/** Every route of the fake: the service under /v1, the fake's own controls under /__fake. */
export function buildRoutes(reset: () => void): Route[] {
  return [
    route("/v1/agents/:agent_id/responses", [["POST", createResponse]]),
    route("/v1/agents/:agent_id/responses/stream", [["POST", streamResponse]]),
    route("/v1/agents/:agent_id/conversations/:conversation_id/messages", [
      ["GET", listMessages],
      ["HEAD", listMessages],
    ]),
    route("/v1/agents/:agent_id/conversations/:conversation_id", [["DELETE", deleteConversation]]),
    route("/__fake/reset", [["POST", resetRoute(reset)]]),
    route("/__fake/requests", [["GET", requestsRoute]]),
    route("/__fake/health", [["GET", healthRoute]]),
    route("/__fake/client-violations", [["GET", clientViolationsRoute]]),
    route("/__fake/faults", [
      ["POST", addFaultRule],
      ["GET", listFaultRules],
      ["DELETE", clearRules(faultBook)],
    ]),
    route("/__fake/faults/:rule_id", [["DELETE", removeRule(faultBook, "fault")]]),
    route("/__fake/answers", [
      ["POST", addAnswerRule],
      ["GET", listAnswerRules],
      ["DELETE", clearRules(answerBook)],
    ]),
    route("/__fake/answers/:rule_id", [["DELETE", removeRule(answerBook, "answer")]]),
    route("/__fake/conversations", [["POST", importConversationRoute]]),
    route("/__fake/conversations/:conversation_id", [["GET", exportConversationRoute]]),
  ];
}

/** The routes as one line, for the 404 message: every method of every path, as the table serves them. */
export function describeRoutes(routes: readonly Route[]): string {
  return routes.map((r) => `${[...r.methods.keys()].join("|")} ${r.pattern.replace(/:(\w+)/g, "{$1}")}`).join(", ");
}
