/**
 * Exchanges come to the judge as they end, but the model must see operations in the order they
 * were sent, or an overlap would pass for a sequence. Sequence numbers are given as requests
 * start (the proxy counts them; a HAR is numbered in start order), so an exchange is let through
 * once every lower number has come: a missing number is a request still running. Bounded: past
 * `maxWaiting` exchanges held behind one that never ends, that one is given up on (should it
 * end after all, it comes too late and is dropped).
 */
export class InOrder<T> {
  private next = 0;
  private readonly waiting = new Map<number, T | undefined>();

  constructor(
    private readonly deliver: (item: T) => void,
    private readonly maxWaiting = 1000,
  ) {}

  /** Exchange `sequence` ended; `item` undefined when it carries nothing to deliver. */
  arrived(sequence: number, item: T | undefined): void {
    if (sequence < this.next) return;
    this.waiting.set(sequence, item);
    this.release();
    while (this.waiting.size > this.maxWaiting) {
      this.next = Math.min(...this.waiting.keys());
      this.release();
    }
  }

  /** The traffic is over: what still waits goes through in sequence order. */
  drain(): void {
    for (const sequence of [...this.waiting.keys()].sort((a, b) => a - b)) {
      const item = this.waiting.get(sequence);
      this.waiting.delete(sequence);
      if (item !== undefined) this.deliver(item);
    }
    this.next = Infinity;
  }

  private release(): void {
    while (this.waiting.has(this.next)) {
      const item = this.waiting.get(this.next);
      this.waiting.delete(this.next);
      this.next++;
      if (item !== undefined) this.deliver(item);
    }
  }
}
