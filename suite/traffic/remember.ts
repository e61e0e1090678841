/**
 * What the traffic judge remembers is bounded: a map used as a least-recently-set list, whose
 * oldest entry goes once it holds more than its cap (a judgement that needed it is then simply
 * not made).
 */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
}
