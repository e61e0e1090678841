/**
 * The API keys the fake accepts (`--key TOKEN=AGENT[,AGENT...][@CHANNEL]`, the `keys` option): each
 * grants some agents on one channel. Parsed once at start; logs and violations show a key only
 * redacted.
 */

/** What one API key grants: a set of agents on one channel. */
export interface ApiKeyGrant {
  readonly token: string;
  readonly agents: ReadonlySet<string>;
  readonly channel: string;
}

export const DEFAULT_CHANNEL = "default";

/** A key specification the fake cannot use; the message says which part is wrong. */
export class KeySpecError extends Error {
  override name = "KeySpecError";
}

const TOKEN = /^[\x21-\x7e]+$/; // visible ASCII, as a bearer token travels in a header
const NAME = /^[^\s,@=/]+$/; // an agent or channel name: one path-safe word

/** Parses "TOKEN=AGENT[,AGENT...][@CHANNEL]"; the channel defaults to "default". */
export function parseKeySpec(spec: string): ApiKeyGrant {
  const equals = spec.indexOf("=");
  if (equals <= 0)
    throw new KeySpecError(`key ${JSON.stringify(spec)} must look like TOKEN=AGENT[,AGENT...][@CHANNEL]`);
  const token = spec.slice(0, equals);
  if (!TOKEN.test(token))
    throw new KeySpecError(`key token ${JSON.stringify(token)} must be visible ASCII without spaces`);
  const rest = spec.slice(equals + 1);
  const at = rest.lastIndexOf("@");
  const agentList = at === -1 ? rest : rest.slice(0, at);
  const channel = at === -1 ? DEFAULT_CHANNEL : rest.slice(at + 1);
  if (!NAME.test(channel))
    throw new KeySpecError(`channel ${JSON.stringify(channel)} in key ${JSON.stringify(token)} must be one word`);
  const agents = agentList.split(",");
  for (const agent of agents) {
    if (!NAME.test(agent)) {
      throw new KeySpecError(
        `agent ${JSON.stringify(agent)} in key ${JSON.stringify(token)} must be a non-empty word without , @ = / or spaces`,
      );
    }
  }
  return { token, agents: new Set(agents), channel };
}

/** The key registry: token -> grant. Duplicate tokens are a configuration error. */
export function parseKeySpecs(specs: readonly string[]): ReadonlyMap<string, ApiKeyGrant> {
  if (specs.length === 0) throw new KeySpecError("at least one API key is needed");
  const grants = new Map<string, ApiKeyGrant>();
  for (const spec of specs) {
    const grant = parseKeySpec(spec);
    if (grants.has(grant.token)) throw new KeySpecError(`key token ${JSON.stringify(grant.token)} is given twice`);
    grants.set(grant.token, grant);
  }
  return grants;
}

/** How a key appears in logs: its first 6 characters and an ellipsis. */
export function redactKey(token: string): string {
  return `${token.slice(0, 6)}…`;
}
