/**
 * Host slots in SQLite: one row per slot, taken by an upsert whose condition is the lease having
 * ended, and given back by a delete that names the holder. Slots are never read back whole: the
 * statements' conditions decide, so there is no record to decode.
 */
import type { HostSlotStore, SlotClaim } from '../../limits/host-slots.js';
import type { Database } from './database.js';

export class SqliteHostSlotStore implements HostSlotStore {
  constructor(private readonly database: Database) {}

  async take(claim: SlotClaim, now: number, leaseUntil: number): Promise<boolean> {
    const { changes } = await this.database.write(() =>
      this.database
        .statement(
          `INSERT INTO host_slots (kind, host, slot, holder, lease_until) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (kind, host, slot) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until
           WHERE host_slots.lease_until < ?`,
        )
        .run(claim.kind, claim.host, claim.slot, claim.holder, leaseUntil, now),
    );
    return changes === 1;
  }

  async give(claim: SlotClaim): Promise<void> {
    await this.database.write(() =>
      this.database
        .statement('DELETE FROM host_slots WHERE kind = ? AND host = ? AND slot = ? AND holder = ?')
        .run(claim.kind, claim.host, claim.slot, claim.holder),
    );
  }
}
