/**
 * The service's paths, built under the base URL's own path prefix
 * (https://host/api → https://host/api/v1/...), every path segment URL-encoded.
 */

/** Encodes one path segment; "." and ".." are encoded too so no server resolves them as dot-segments. */
export function segment(value: string): string {
  const encoded = encodeURIComponent(value);
  return encoded === "." || encoded === ".." ? encoded.replaceAll(".", "%2E") : encoded;
}

export interface Endpoints {
  /** scheme://host[:port] the connection pool talks to. */
  origin: string;
  responses(agentId: string): string;
  stream(agentId: string): string;
  messages(agentId: string, conversationId: string, query?: Record<string, string | number>): string;
  conversation(agentId: string, conversationId: string): string;
}

export function endpoints(baseUrl: string): Endpoints {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/+$/, "");
  const agent = (agentId: string) => `${prefix}/v1/agents/${segment(agentId)}`;
  return {
    origin: url.origin,
    responses: (agentId) => `${agent(agentId)}/responses`,
    stream: (agentId) => `${agent(agentId)}/responses/stream`,
    messages: (agentId, conversationId, query) => {
      const path = `${agent(agentId)}/conversations/${segment(conversationId)}/messages`;
      if (query === undefined || Object.keys(query).length === 0) return path;
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) params.append(name, String(value));
      return `${path}?${params.toString()}`;
    },
    conversation: (agentId, conversationId) => `${agent(agentId)}/conversations/${segment(conversationId)}`,
  };
}
