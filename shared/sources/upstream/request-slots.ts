/**
 * A fixed number of slots for requests in flight within one process, handed out first come, first
 * served. A request that finds them all taken waits for one; its signal ends the wait (with the
 * signal's reason), so a wait never outlives the request's deadline.
 */
export class RequestSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Takes a slot, waiting while none is free; the answer gives it back (once, however often called). */
  async take(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.free > 0) {
      this.free -= 1;
      return this.giveBack();
    }
    await new Promise<void>((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener('abort', gaveUp);
        resolve();
      };
      const gaveUp = () => {
        this.waiting.splice(this.waiting.indexOf(granted), 1);
        reject(signal.reason);
      };
      this.waiting.push(granted);
      signal.addEventListener('abort', gaveUp, { once: true });
    });
    return this.giveBack();
  }

  /** A slot given back goes straight to the longest waiter, so a newcomer cannot overtake it. */
  private giveBack(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    };
  }
}
