/**
 * What the two published documents share: the four operations of the spec under /v1, their
 * ids, tags and summaries, the server and the bearer scheme. Each document brings its own
 * parameters, request body, responses and schemas: the contract (contract-document.ts) what
 * every conforming service answers, the fake's (fake-document.ts) what the reference fake does.
 */
import type { JsonObject } from "./error-responses.ts";

export interface OperationParts {
  description: string;
  parameters: JsonObject[];
  responses: JsonObject;
}

export interface DocumentParts {
  title: string;
  description: string;
  /** Parameters of every path beside its own ids (the fake's fault header). */
  pathParameters: JsonObject[];
  requestBody: JsonObject;
  create: OperationParts;
  stream: OperationParts;
  list: OperationParts;
  remove: OperationParts;
  schemas: Record<string, unknown>;
  parameters: Record<string, JsonObject>;
  bearerDescription: string;
}

export const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
export const parameterRef = (name: string): JsonObject => ({ $ref: `#/components/parameters/${name}` });

/**
 * The stream's media type. OpenAPI 3.1 has no schema for each event of a stream: the body is
 * text, and validators (Prism, Dredd) check the schema against that text, so the schema is a
 * string and `x-event-data` names the schema of each event's `data:` JSON.
 */
export function eventStreamContent(description: string): JsonObject {
  return {
    "text/event-stream": {
      schema: { type: "string", contentMediaType: "text/event-stream", description },
      "x-event-data": schemaRef("StreamEvent"),
    },
  };
}

/** The OpenAPI 3.1 document of the service, from one document's parts. */
export function documentOf(parts: DocumentParts): JsonObject {
  const op = (
    operationId: string,
    tag: string,
    summary: string,
    own: OperationParts,
    body?: JsonObject,
  ): JsonObject => ({
    operationId,
    tags: [tag],
    summary,
    description: own.description,
    ...(own.parameters.length ? { parameters: own.parameters } : {}),
    ...(body === undefined ? {} : { requestBody: body }),
    responses: own.responses,
  });
  const agent = [parameterRef("AgentId"), ...parts.pathParameters];
  const conversation = [parameterRef("AgentId"), parameterRef("ConversationId"), ...parts.pathParameters];
  return {
    openapi: "3.1.0",
    info: { title: parts.title, version: "1.0.0", description: parts.description },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [
      {
        url: "{base_url}",
        description: "The deployment's base address; every path begins with the version segment /v1.",
        variables: {
          base_url: {
            default: "http://127.0.0.1:4010",
            description: "Base address, e.g. the URL the fake prints on start.",
          },
        },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "responses", description: "Answers to user messages, plain or streamed." },
      { name: "conversations", description: "Reading and deleting conversations." },
    ],
    paths: {
      "/v1/agents/{agent_id}/responses": {
        parameters: agent,
        post: op("createResponse", "responses", "Create a response", parts.create, parts.requestBody),
      },
      "/v1/agents/{agent_id}/responses/stream": {
        parameters: agent,
        post: op("createResponseStream", "responses", "Create a response as a stream", parts.stream, parts.requestBody),
      },
      "/v1/agents/{agent_id}/conversations/{conversation_id}/messages": {
        parameters: conversation,
        get: op("listMessages", "conversations", "List messages of a conversation", parts.list),
      },
      "/v1/agents/{agent_id}/conversations/{conversation_id}": {
        parameters: conversation,
        delete: op("deleteConversation", "conversations", "Delete a conversation", parts.remove),
      },
    },
    components: {
      schemas: parts.schemas,
      parameters: parts.parameters,
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: parts.bearerDescription } },
    },
  };
}
