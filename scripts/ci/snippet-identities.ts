/**
 * What a CI snippet's settings become when it runs against the fake: the service's URL, keys
 * and stream-error hook are the fake's, whatever secret or variable the snippet reads them
 * from; every other setting (agents, profile, flags) is taken as printed, and must be a
 * literal, so the test runs what a user copies.
 */
import { createFakeServer, type FakeServer } from "../../fake-server/index.ts";

const PRIMARY_KEY = "sk-ci-primary";
const OTHER_KEY = "sk-ci-other";
/** The fake's test hook: an `error` event after one delta. */
const STREAM_ERROR_HEADER = "X-Fake-Fault: error-after=1";

/** `CONFORMANCE_OTHER_API_KEY` and the action's `other-api-key` alike become "other-api-key". */
export function settingName(name: string): string {
  return name
    .replace(/^CONFORMANCE_/, "")
    .toLowerCase()
    .replaceAll("_", "-");
}

/** A value that reads a CI variable or secret rather than stating itself. */
export const isReference = (value: string) => /\$\{\{|\$[A-Za-z_{]/.test(value);

export interface SnippetFake {
  readonly fake: FakeServer;
  /** The value a setting takes against the fake. */
  valueOf(name: string, printed: string): string;
}

/**
 * A fake whose keys grant the agents the snippet names: the primary key both agents on one
 * channel, the other key the first agent on another, as the snippet's service would.
 */
export async function fakeFor(settings: Readonly<Record<string, string>>): Promise<SnippetFake> {
  const named = Object.fromEntries(Object.entries(settings).map(([name, value]) => [settingName(name), value]));
  const agent = named["agent-id"];
  if (agent === undefined || isReference(agent))
    throw new Error(`the snippet's agent id must be printed as a literal, not ${JSON.stringify(agent)}`);
  const other = named["other-agent-id"];
  const agents = other === undefined ? agent : `${agent},${other}`;
  const fake = await createFakeServer({
    host: "127.0.0.1",
    port: 0,
    keys: [`${PRIMARY_KEY}=${agents}@web`, `${OTHER_KEY}=${agent}@sms`],
  });
  const valueOf = (name: string, printed: string): string => {
    switch (settingName(name)) {
      case "base-url":
        return fake.url;
      case "api-key":
        return PRIMARY_KEY;
      case "other-api-key":
        return OTHER_KEY;
      case "stream-error-header":
        return STREAM_ERROR_HEADER;
      default:
        if (isReference(printed))
          throw new Error(`${name}: ${JSON.stringify(printed)} reads a CI variable the test cannot map to the fake`);
        return printed;
    }
  };
  return { fake, valueOf };
}
