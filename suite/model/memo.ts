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
 * A function of a text, computed once per text while at most `limit` are kept: past it every kept
 * result is forgotten (a long-running judge goes on without end) and made again when asked.
 */
export function onceEachText<V>(limit: number, compute: (text: string) => V): (text: string) => V {
  const made = new Map<string, V>();
  return (text) => {
    if (made.has(text)) return made.get(text) as V;
    if (made.size >= limit) made.clear();
    const value = compute(text);
    made.set(text, value);
    return value;
  };
}

/**
 * A number for each text: equal texts get one number, different texts never share one. Past
 * `limit` texts it forgets them all but never hands a number out again: a text seen before and
 * after may get two numbers, two texts never one.
 */
export class TextNumbers {
  #next = 0;
  readonly of: (text: string) => number;
  constructor(limit: number) {
    this.of = onceEachText(limit, () => this.#next++);
  }
}
