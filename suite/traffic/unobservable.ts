import type { RequirementId } from "../../requirements/catalog.ts";
import type { Counterexample } from "../report/report-types.ts";

/**
 * Requirements no traffic can show, and why: they need a request the judge cannot know the
 * meaning of (an unknown id, another key's scope), a comparison the traffic does not hold, or
 * what happens inside the client. They are always not_observed, with this reason.
 */
export const UNOBSERVABLE: Readonly<Partial<Record<RequirementId, string>>> = {
  "RESP-6":
    "whether a create was refused because of its external_reference or metadata cannot be told from why else it was refused",
  "RESP-7": "a refusal of non-object metadata cannot be told from a refusal for another reason",
  "RESP-8": "traffic cannot tell a conversation id that never existed from one made before the recording began",
  "IDEM-7": "traffic does not show which keys share a scope",
  "LIST-7": "whether total counts other conversations' messages needs every conversation of the scope listed",
  "LIST-11": "a lagging listing cannot be told from one read before the exchange was stored",
  "SCOPE-3": "traffic does not show which keys share a channel",
  "CLIENT-8": "what a client does with an answer happens on its side of the wire",
  "CLIENT-9": "a hang-up mid-stream looks exactly like an allowed cancellation",
  "CLIENT-10": "whether a client passes events on at once happens inside the client",
};

/** Whether traffic can show the requirement at all: one it cannot (above) is the suite's alone. */
export const shownByTraffic = (id: string): boolean => !(id in UNOBSERVABLE);

/**
 * Callers whose standing traffic cannot know, and why: a finding that needs one of them to be
 * refused is the suite's alone, whatever its requirement. (The other agent is named by the path;
 * no key at all is refused on sight.)
 */
export const UNKNOWABLE_CALLERS: Readonly<Record<string, string>> = {
  otherKey: "traffic does not show whether another key of the same agent shares the conversation's channel",
  unknownKey: "traffic cannot tell a key nobody issued from one issued before the recording began",
};

/**
 * Whether traffic can show a failure of `id` that `counterexample` (the property's, if any) shows:
 * its requirement is one traffic shows, no request of it comes from a caller above, and it does not
 * rest on what only the suite knew of its own requests (`ownTrafficOnly`).
 */
export const counterexampleShownByTraffic = (id: string, counterexample: Counterexample | undefined): boolean =>
  shownByTraffic(id) &&
  counterexample?.ownTrafficOnly !== true &&
  !(counterexample?.operations ?? []).some((o) => o.who in UNKNOWABLE_CALLERS);
