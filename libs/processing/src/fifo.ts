// A first-in first-out queue with O(1) push and shift (an array with a moving head, compacted
// once half of it is spent), for partition queues that can hold a whole imported session.
export class Fifo<Item> {
  private items: Item[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: Item): void {
    this.items.push(item);
  }

  peek(): Item | undefined {
    return this.items[this.head];
  }

  shift(): Item | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head] = undefined as Item;
    this.head += 1;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1_024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes and returns every item, oldest first. */
  drain(): Item[] {
    const items = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return items;
  }
}
