/**
 * The flags that point the suite's command line at a standalone fake with its default keys: the
 * target, every identity the scope checks need and, unless left out, the header with which the
 * fake ends a stream in an `error` event (SSE-6). What README gives for the standalone fake.
 */
import { DEFAULT_IDENTITIES } from "../../fake-server/access/default-identities.ts";

export const STREAM_ERROR_HEADER = "X-Fake-Fault: error-after=1";

export function fakeTargetFlags(baseUrl: string, options: { readonly streamError?: boolean } = {}): string[] {
  const { apiKey, agentId, otherAgentId, otherApiKey } = DEFAULT_IDENTITIES;
  return [
    "--base-url",
    baseUrl,
    "--api-key",
    apiKey,
    "--agent-id",
    agentId,
    "--other-agent-id",
    otherAgentId,
    "--other-api-key",
    otherApiKey,
    ...(options.streamError === false ? [] : ["--stream-error-header", STREAM_ERROR_HEADER]),
  ];
}
