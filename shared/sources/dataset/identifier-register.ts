/**
 * The identifiers of one kind a dataset has issued, compact enough for the millions a large
 * dataset issues: numbers (digits without a leading zero, at most 19: activity ids, job ids,
 * company ids) are kept as 64-bit integers in an open-addressing table off the JS heap, about a
 * fifth of what a Set of their strings takes; other values in Sets.
 */

const NUMBER = /^[1-9]\d{0,18}$/;
/** Fibonacci hashing: spreads keys whose low bits repeat over the whole table. */
const GOLDEN = 0x9e3779b97f4a7c15n;

class NumberTable {
  /** 0 marks a free slot; no key is 0 (no leading zero). */
  private slots = new BigUint64Array(1024);
  private count = 0;

  private slotOf(key: bigint): number {
    const mask = this.slots.length - 1;
    let index = Number(BigInt.asUintN(64, key * GOLDEN) >> 32n) & mask;
    while (this.slots[index] !== 0n && this.slots[index] !== key) index = (index + 1) & mask;
    return index;
  }

  has(key: bigint): boolean {
    return this.slots[this.slotOf(key)] === key;
  }

  add(key: bigint): void {
    const index = this.slotOf(key);
    if (this.slots[index] === key) return;
    this.slots[index] = key;
    this.count += 1;
    // At most half full, so probes stay short.
    if (this.count * 2 > this.slots.length) this.grow();
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new BigUint64Array(old.length * 2);
    for (const key of old) if (key !== 0n) this.slots[this.slotOf(key)] = key;
  }
}

export class IdentifierRegister {
  private readonly numbers = new NumberTable();
  /** A Set holds at most 2^24 values: texts are spread over several by their last character. */
  private readonly texts = Array.from({ length: 16 }, () => new Set<string>());

  private textsOf(value: string): Set<string> {
    return this.texts[value.charCodeAt(value.length - 1) & 15] as Set<string>;
  }

  has(value: string): boolean {
    return NUMBER.test(value) ? this.numbers.has(BigInt(value)) : this.textsOf(value).has(value);
  }

  add(value: string): void {
    if (NUMBER.test(value)) this.numbers.add(BigInt(value));
    else this.textsOf(value).add(value);
  }
}
