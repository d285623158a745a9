/**
 * Waiting work in lanes (a tenant, a client address) served round-robin: each lane's items keep their
 * order, and the lanes take turns, so one lane's hundred items wait behind each other, not in front
 * of another lane's single item.
 */
export class FairQueue<Item> {
  // A Map iterates in insertion order: the first lane is the one whose turn it is.
  private readonly lanes = new Map<string, Item[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Items waiting in `lane`. */
  waiting(lane: string): number {
    return this.lanes.get(lane)?.length ?? 0;
  }

  push(lane: string, item: Item): void {
    const items = this.lanes.get(lane);
    if (items) items.push(item);
    else this.lanes.set(lane, [item]);
    this.count++;
  }

  /**
   * The next item of the first lane in the round that `may` serve now; that lane then goes to the back
   * of the round. Undefined when no lane may.
   */
  shift(may: (lane: string) => boolean = () => true): Item | undefined {
    const next = [...this.lanes.entries()].find(([lane]) => may(lane));
    if (!next) return undefined;
    const [lane, items] = next;
    const item = items.shift()!;
    this.lanes.delete(lane);
    if (items.length > 0) this.lanes.set(lane, items);
    this.count--;
    return item;
  }

  /** Whether some lane with items waiting `may` serve now. */
  has(may: (lane: string) => boolean): boolean {
    for (const lane of this.lanes.keys()) if (may(lane)) return true;
    return false;
  }

  /** Removes and returns every item, lane by lane. */
  drain(): Item[] {
    const items = [...this.lanes.values()].flat();
    this.lanes.clear();
    this.count = 0;
    return items;
  }
}
