/** A binary heap; `before(a, b)` is true when `a` must leave the heap before `b`. */
export class BinaryHeap<T> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => boolean;

  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  /** The item that pop() would return, without removing it. */
  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent];
      if (above === undefined || !this.#before(item, above)) break;
      items[i] = above;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) this.#sink(last);
    return top;
  }

  /** Replaces the top item with `item` (one sift instead of a pop and a push). */
  replaceTop(item: T): void {
    if (this.#items.length === 0) this.#items.push(item);
    else this.#sink(item);
  }

  /** Puts `item` at the root and sifts it down. */
  #sink(item: T): void {
    const items = this.#items;
    const n = items.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const leftItem = items[left];
      const rightItem = right < n ? items[right] : undefined;
      let child = left;
      let childItem = leftItem;
      if (rightItem !== undefined && leftItem !== undefined && this.#before(rightItem, leftItem)) {
        child = right;
        childItem = rightItem;
      }
      if (childItem === undefined || !this.#before(childItem, item)) break;
      items[i] = childItem;
      i = child;
    }
    items[i] = item;
  }
}
