/**
 * Run functions of the account family: the account view (accounts/account-view.ts) over the
 * runtime's store, for the principal the pipeline authenticated.
 */
import { catalog } from '../../schemas/catalog.js';
import { accountOperations } from '../../schemas/operations/account.js';
import {
  type AccountViewDependencies,
  accountDetails,
  accountLedger,
  accountUsage,
} from '../accounts/account-view.js';
import { CreditLedger } from '../billing/credit-ledger.js';
import { CursorIssuer, cursorSecret } from '../paging/cursors.js';
import { implement, type OperationImplementation, type RunnerRuntime } from '../pipeline/operation.js';

/** What the account view reads in a process of the runtime: its store, clock and prices. */
/** The catalog entries this module runs: a function of this family serves only these. */
export { accountOperations as operations };

export function accountViewDependencies(runtime: RunnerRuntime): AccountViewDependencies {
  return {
    ledger: new CreditLedger(runtime.store.billing, runtime.clock, runtime.logger),
    clock: runtime.clock,
    cursors: new CursorIssuer(
      runtime.store,
      runtime.clock,
      cursorSecret(runtime.store, runtime.config.CURSOR_SECRET),
    ),
    operations: catalog,
    priceOverrides: runtime.config.PRICE_OVERRIDES,
  };
}

export function createImplementations(runtime: RunnerRuntime): OperationImplementation[] {
  const deps = accountViewDependencies(runtime);
  return implement(accountOperations, {
    'account.details': async (_input, { principal }) => ({ data: await accountDetails(deps, principal) }),
    'account.usage': async (input, { principal }) => ({ data: await accountUsage(deps, principal, input) }),
    'account.ledger': async (input, { principal, api }) => {
      const { entries, paging } = await accountLedger(deps, principal, input, api);
      return { data: { entries }, meta: { paging } };
    },
  });
}
