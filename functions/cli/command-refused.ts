/**
 * What the operator CLI's commands refuse with, apart from the runner (run-command.ts) that opens
 * the store: commands.ts is also imported by the reconcile Lambda, which must not bundle the local
 * store opener (and with it the embedded DynamoDB).
 */
import type { StartUpFailureCode } from '../../shared/start-up-failure.js';

/**
 * The codes a script can branch on: `invalid_argument` (fix the command line),
 * `invalid_configuration` and `store_unavailable` (fix the environment), `not_found` (no such
 * account or key), `insufficient_credits` (an adjustment would take a balance below 0),
 * `internal_error` (anything else). A folder that is not a dataset is an argument to fix.
 */
export type CliErrorCode =
  | StartUpFailureCode
  | 'invalid_argument'
  | 'not_found'
  | 'insufficient_credits'
  | 'internal_error';

/** A command refused by the state it found; nothing was changed. */
export class CommandRefusedError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CommandRefusedError';
  }
}
