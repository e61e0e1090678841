/**
 * A function of an object that is never changed, computed once per object: the search asks for
 * the same states' texts at every step, and states are shared between the worlds that hold them.
 */
export function onceEach<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    if (made.has(key)) return made.get(key) as V;
    const value = compute(key);
    made.set(key, value);
    return value;
  };
}

/**
 * A number for each text: equal texts get one number, different texts never share one. Past
 * `limit` texts it forgets them all (a long-running judge goes on without end) but never hands a
 * number out again: a text seen before and after may get two numbers, two texts never one.
 */
export class TextNumbers {
  readonly #numbers = new Map<string, number>();
  #next = 0;
  constructor(readonly limit: number) {}
  of(text: string): number {
    const known = this.#numbers.get(text);
    if (known !== undefined) return known;
    if (this.#numbers.size >= this.limit) this.#numbers.clear();
    const made = this.#next++;
    this.#numbers.set(text, made);
    return made;
  }
}
