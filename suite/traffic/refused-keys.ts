/**
 * What the traffic judge remembers outside the model: the keys of creates refused with a 4xx,
 * until a create with the key is accepted. The model reads a refusal as "nothing happened"; this
 * holds the service to it for the key too (service-rules.ts). Bounded: past the cap the oldest
 * keys are forgotten, and a judgement that needed them is simply not made.
 */
import type { RequirementId } from "../../requirements/catalog.ts";
import { remember } from "./remember.ts";

/** A create refused with a 4xx under a key no accepted request holds. */
export interface KeyRefusal {
  /** When the refusal finished, epoch ms. */
  readonly finishedAt: number;
  /** Canonical JSON of the refused body. */
  readonly payload: string;
  readonly status: number;
  /** What a later 409 for the key breaks: RESP-4 (no string message) or IDEM-3 (refused for another reason). */
  readonly requirement: Extract<RequirementId, "RESP-4" | "IDEM-3">;
}

const MAX_KEYS = 100_000;

const idOf = (token: string, agent: string, key: string) => `${token}\u0000${agent}\u0000${key}`;

export class RefusedKeys {
  private readonly refusals = new Map<string, KeyRefusal>();
  private readonly accepted = new Map<string, true>();

  /** The last refusal of a key no accepted create holds. */
  refusal(token: string, agent: string, key: string): KeyRefusal | undefined {
    return this.refusals.get(idOf(token, agent, key));
  }

  /** A create with this key was answered: a 2xx takes the key; a 4xx other than 409 refused it, unless the key was taken. */
  answered(token: string, agent: string, key: string, answer: KeyRefusal): void {
    const id = idOf(token, agent, key);
    if (answer.status >= 200 && answer.status < 300) {
      this.refusals.delete(id);
      remember(this.accepted, id, true, MAX_KEYS);
    } else if (answer.status >= 400 && answer.status < 500 && answer.status !== 409 && !this.accepted.has(id)) {
      remember(this.refusals, id, answer, MAX_KEYS);
    }
  }
}
