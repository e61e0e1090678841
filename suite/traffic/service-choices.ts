/**
 * What the model learns of the service in one conversation and holds it to in every later one:
 * how many messages an exchange lists, how many items show the text sent, the order of items,
 * and whether the two endpoints share an Idempotency-Key. The interaction property judges one
 * history, so a choice one conversation showed binds the next; the traffic judge keeps a history
 * per conversation (cross-request.ts), and without this a conversation whose first listing
 * already broke the service's own choice would pass for one that shows the service's way.
 */
import { allowsCounting, type Counting, type CountingPair, type World } from "../model/world.ts";

export type ServiceChoices = Pick<World, "counting" | "echo" | "order" | "keyScope">;

export const UNKNOWN_CHOICES: ServiceChoices = {
  counting: "any",
  echo: "unknown",
  order: "unknown",
  keyScope: "unknown",
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** `known`, with what every world still possible agrees on and `known` left open. */
export function learnedFrom(known: ServiceChoices, worlds: readonly World[]): ServiceChoices {
  const [first, ...rest] = worlds;
  if (first === undefined) return known;
  const agreed = <K extends keyof ServiceChoices>(field: K): boolean => rest.every((w) => same(w[field], first[field]));
  return {
    counting:
      first.counting !== "any" && agreed("counting") ? narrowed(known.counting, first.counting) : known.counting,
    echo: known.echo === "unknown" && first.echo !== "unknown" && agreed("echo") ? first.echo : known.echo,
    order: known.order === "unknown" && first.order !== "unknown" && agreed("order") ? first.order : known.order,
    // Only keys shown shared: per endpoint may be what is left once a bug (one key run twice at
    // once) ruled the spec's reading out.
    keyScope:
      known.keyScope === "unknown" && first.keyScope === "shared" && agreed("keyScope") ? "shared" : known.keyScope,
  };
}

/**
 * The countings both allow: a later conversation narrows what the first ones left open (one total
 * of 4 for 2 exchanges allows 2 per exchange or 2 before and 1 per exchange; another of 2 for 1
 * settles it). Where they share none, the service contradicted itself, and the judge holds it to
 * what it showed first.
 */
function narrowed(known: Counting, learned: readonly CountingPair[]): Counting {
  if (known === "any") return learned;
  const both = known.filter((pair) => allowsCounting(learned, pair));
  return both.length > 0 ? both : known;
}
