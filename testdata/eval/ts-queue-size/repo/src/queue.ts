export class Queue<T> {
  private items: T[] = [];
  private head = 0;

  enqueue(item: T): void {
    this.items.push(item);
  }

  dequeue(): T | undefined {
    const item = this.items[this.head];
    this.head++;
    return item;
  }

  get size(): number {
    return this.items.length;
  }
}
