/**
 * --shard i/n: a run judges the i-th of n disjoint shares of the selected requirements, so n CI
 * jobs together judge each requirement once, and `merge` makes one report of them. The shares
 * are contiguous runs of the catalog (one family's requirements, judged by one check file,
 * mostly stay together, and so do the checks that name several of them), sized to within one
 * requirement of each other. The interaction property runs in every shard, with a seed of its
 * own: the base seed plus the shard's number.
 */
import { SERVICE_REQUIREMENTS } from "../../requirements/catalog.ts";
import { globToRegExp, isSelected, SELECTABLE_FAMILIES } from "../checks/runtime/selection.ts";

/** Share `index` (1-based) of `count`. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** A shard and the requirements each share judges, in catalog order. */
export interface ShardPlan extends Shard {
  readonly shares: readonly (readonly string[])[];
}

export const MAX_SHARDS = 1_000;

export const SHARD_FORMAT = "must be I/N, this shard's number and the number of shards, with 1 ≤ I ≤ N (e.g. 2/4)";

/** "2/4" → { index: 2, count: 4 }; undefined when the text is not a shard. */
export function parseShard(text: string): Shard | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (match === null) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index >= 1 && index <= count && count <= MAX_SHARDS ? { index, count } : undefined;
}

/** `ids` cut into `count` contiguous shares whose sizes differ by one at most. */
export function splitShares(ids: readonly string[], count: number): string[][] {
  return Array.from({ length: count }, (_, i) =>
    ids.slice(Math.floor((i * ids.length) / count), Math.floor(((i + 1) * ids.length) / count)),
  );
}

/**
 * The requirements a run selects, which the shards share: every service requirement that --only
 * names (all of them when it names a check family such as `interactions`, whose requirements are
 * known only once its checks ran) and --exclude leaves in.
 */
export function shardable(only: readonly string[], exclude: readonly string[]): string[] {
  const familySelected = only.some((glob) => SELECTABLE_FAMILIES.some((family) => globToRegExp(glob).test(family)));
  return SERVICE_REQUIREMENTS.map((r) => r.id)
    .filter((id) => familySelected || isSelected(id, only))
    .filter((id) => !(exclude.length > 0 && isSelected(id, exclude)));
}

export function shardPlan(shard: Shard, only: readonly string[], exclude: readonly string[]): ShardPlan {
  return { ...shard, shares: splitShares(shardable(only, exclude), shard.count) };
}

/** The shard whose share holds `id`, 1-based; undefined when none does. */
export function shardOf(plan: ShardPlan, id: string): number | undefined {
  const i = plan.shares.findIndex((share) => share.includes(id));
  return i === -1 ? undefined : i + 1;
}

/** The property's seed in a shard: the base seed plus the shard's number, within fast-check's range. */
export function shardSeed(base: number, shard: Shard | undefined): number {
  return shard === undefined ? base : (base + shard.index) % 2 ** 31;
}
