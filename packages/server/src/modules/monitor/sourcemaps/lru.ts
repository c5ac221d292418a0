/** A tiny least-recently-used map: parsed source maps are large, so only a few are kept. */
export class Lru<K, V> {
  readonly #max: number;
  readonly #items = new Map<K, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get(key: K): V | undefined {
    const v = this.#items.get(key);
    if (v === undefined) return undefined;
    // Map keeps insertion order: re-inserting marks it most recent.
    this.#items.delete(key);
    this.#items.set(key, v);
    return v;
  }

  set(key: K, value: V): void {
    this.#items.delete(key);
    this.#items.set(key, value);
    while (this.#items.size > this.#max) {
      const oldest = this.#items.keys().next().value as K;
      this.#items.delete(oldest);
    }
  }

  get size(): number {
    return this.#items.size;
  }
}
