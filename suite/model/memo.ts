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
