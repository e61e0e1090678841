/**
 * The idempotency-per-replica mutant's deployment: replicas behind a load balancer that keeps each
 * connection on one replica, each replica with an idempotency memory of its own. The conforming
 * fake runs as one process.
 */
import type { Socket } from "node:net";
import type { Behavior } from "../behavior/behavior.ts";

/**
 * Replicas of one service behind a load balancer that keeps a connection on one replica for
 * its lifetime, taking turns per new connection: the first connection is served by replica 0,
 * the next by replica 1, and so on. Each replica is a context of its session that shares
 * every store but the idempotency records (sessions/session.ts). Mutant only.
 */
export class Replicas {
  private connections = 0;
  private readonly bySocket = new WeakMap<Socket, number>();

  constructor(readonly count: number) {}

  /** The replica serving this connection. */
  of(socket: Socket): number {
    let replica = this.bySocket.get(socket);
    if (replica === undefined) {
      replica = this.connections++ % this.count;
      this.bySocket.set(socket, replica);
    }
    return replica;
  }
}

/** The replicas this behavior runs as; undefined for one process (the conforming fake). */
export function replicasFor(behavior: Behavior): Replicas | undefined {
  const count = behavior.broken.idempotencyReplicas;
  return count > 1 ? new Replicas(count) : undefined;
}
