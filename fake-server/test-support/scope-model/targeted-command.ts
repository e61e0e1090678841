/**
 * What the scope property's commands on one conversation share: the conversation they aim at, one
 * the model knows (live or deleted) or an id that never existed.
 */
import type { AsyncCommand } from "fast-check";
import { pickTarget, type Identity, type Real, type ScopeModel, type Target } from "./model.ts";

/**
 * A command by one identity on one conversation: the `targetIndex`-th the model knows of
 * (live or deleted), or an id that never existed. It may run in any state: what it must
 * see depends on whether the identity reaches the conversation, which `run` decides.
 */
export abstract class TargetedCommand implements AsyncCommand<ScopeModel, Real> {
  constructor(
    readonly who: Identity,
    readonly targetIndex: number,
    readonly unknownId: string,
  ) {}

  check(): boolean {
    return true;
  }

  protected target(model: Readonly<ScopeModel>): Target {
    return pickTarget(model, this.targetIndex, this.unknownId);
  }

  abstract run(model: ScopeModel, real: Real): Promise<void>;
  abstract toString(): string;
}
