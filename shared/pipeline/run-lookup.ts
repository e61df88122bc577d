/**
 * The billed pipeline, shared by every transport once it has a request id and has passed its own
 * protocol checks: authenticate → authorize → validate → admit (rate limit and debit, one step) →
 * run under a deadline → settle (charge or refund) → envelope. It never throws: every outcome is a
 * PublicResponse. An account read (`metering: 'account'`) takes the same path with another
 * admission: counted in the account reads' own window, never debited, never ledgered.
 */
import type { OperationVariant } from '../../schemas/operation-definition.js';
import type { RateLimitSetting } from '../accounts/accounts.js';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import type {
  AdmissionDecision,
  BatchItemRef,
  CreditLedger,
  InflightEntry,
  LedgerEntry,
  Transport,
} from '../billing/credit-ledger.js';
import { isCapped, type SpendCaps, spendable } from '../billing/spend-caps.js';
import type { Clock } from '../clock.js';
import {
  type ApiError,
  InsufficientCreditsError,
  InternalError,
  LookupTimeoutError,
  RateLimitExceededError,
  SpendCapReachedError,
  storeFailure,
  toApiError,
} from '../errors.js';
import type { RateDecision } from '../limits/rolling-window.js';
import type { Logger } from '../logger.js';
import { connectionCallerId } from '../oauth/oauth-store.js';
import type { Metrics } from '../observability/metrics.js';
import type { ApiFamily } from '../paging/cursors.js';
import type { AcceptedRun, RegisteredOperation, RunResult } from './operation.js';
import { baseHeaders, errorResponse, type PublicResponse } from './public-response.js';
import type { RawInput } from './validate-input.js';

export interface PipelineDependencies {
  authenticator: Authenticator;
  ledger: CreditLedger;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** The window of account reads, per account, apart from its lookups' rate limit (ACCOUNT_RATE_LIMIT). */
  accountReads: RateLimitSetting;
}

export interface LookupRequest {
  operation: RegisteredOperation;
  variant?: OperationVariant;
  /**
   * The credential as the transport received it, or the principal a transport already authenticated
   * (the MCP endpoint authenticates every HTTP request before any tool runs).
   */
  credential:
    | { scheme: 'bearer'; authorization: string | undefined }
    | { scheme: 'apiKey'; apiKey: string | undefined }
    | { scheme: 'principal'; principal: Principal };
  input: RawInput;
  requestId: string;
  /** Which transport the call came through, recorded in the usage ledger. */
  transport?: Transport;
  /** The batch item this call runs for (transport `batch`), recorded on its ledger entry. */
  batchItem?: BatchItemRef;
}

export interface LookupOutcome {
  response: PublicResponse;
  accountId?: string;
  keyId?: string;
  /** Credits the request finally cost (0 when refunded or free). */
  creditCost: number;
  /** Credits admission debited and settlement gave back. */
  creditsRefunded: number;
  /** The refusal answered, for a caller that acts on its kind (the batch worker). */
  error?: ApiError;
}

/** What a request has learned and spent so far; errors are answered with it. */
interface RequestState {
  accountHeaders: Record<string, string>;
  creditCost: number;
  /** Credits admission debited (kept or refunded at settlement). */
  debited: number;
}

export class LookupPipeline {
  constructor(private readonly deps: PipelineDependencies) {}

  async run(request: LookupRequest): Promise<LookupOutcome> {
    const state: RequestState = { accountHeaders: {}, creditCost: 0, debited: 0 };
    const { outcome, error } = await this.answer(request, state);
    this.count(request, state, error);
    return { ...outcome, creditsRefunded: state.debited - state.creditCost, ...(error ? { error } : {}) };
  }

  /** One finished lookup in the counters: the request, its error, and where its credits went. */
  private count(request: LookupRequest, state: RequestState, error: ApiError | undefined): void {
    const { metrics } = this.deps;
    const Operation = request.operation.definition.id;
    metrics.count('Requests', 1, { Operation, Transport: request.transport ?? 'rest' });
    if (error) metrics.count('Errors', 1, { Operation, Code: error.code });
    if (error instanceof RateLimitExceededError) metrics.count('RateLimitDenied', 1, { Operation });
    if (state.creditCost > 0) metrics.count('CreditsCharged', state.creditCost, { Operation });
    if (state.debited > state.creditCost)
      metrics.count('CreditsRefunded', state.debited - state.creditCost, {
        Operation,
        Reason: error?.code ?? 'unknown',
      });
  }

  private async answer(
    request: LookupRequest,
    state: RequestState,
  ): Promise<{ outcome: Omit<LookupOutcome, 'creditsRefunded'>; error?: ApiError }> {
    const { operation, requestId } = request;
    const billed = operation.price > 0;
    const { accountHeaders } = state;
    let principal: Principal | undefined;
    try {
      principal = await this.authenticate(request);
      this.deps.authenticator.authorize(principal, operation.definition);
      const run = await operation.accept(request.input, request.variant);

      const caps = spendCapsOf(principal);
      const accountRead = operation.definition.metering === 'account';
      const usage = billed || accountRead ? undefined : this.usageEntry(request, principal);
      const admission = accountRead
        ? await this.admitAccountRead(principal)
        : await this.admit(request, principal, caps, usage);
      const policy: RatePolicy = accountRead
        ? { name: 'account', windowSeconds: this.deps.accountReads.windowSeconds }
        : { name: 'lookups', windowSeconds: principal.account.rateLimit.windowSeconds };
      Object.assign(accountHeaders, rateLimitHeaders(admission.rate, policy));
      if (admission.outcome === 'rate_limited')
        throw new RateLimitExceededError(admission.rate.retryAfterSeconds ?? 1);
      if (admission.outcome === 'insufficient_credits') {
        accountHeaders['X-Credits-Remaining'] = String(spendable(admission.balance, caps, admission.spend));
        if (admission.cap)
          throw new SpendCapReachedError(
            operation.price,
            admission.cap,
            principal.key ? 'key' : 'connection',
          );
        throw new InsufficientCreditsError(operation.price, admission.balance);
      }

      const result = admission.entry
        ? await this.runBilled(
            operation,
            run,
            admission.entry,
            admission.balance === undefined ? undefined : spendable(admission.balance, caps, admission.spend),
            state,
            request.transport,
            principal,
            caps,
          )
        : usage
          ? await this.runFree(request, run, principal, {
              entry: usage,
              recorded: admission.outcome === 'admitted' && admission.usageRecorded === true,
            })
          : await this.execute(operation, run, requestId, principal, apiFamily(request.transport));
      return {
        outcome: {
          response: {
            status: 200,
            headers: { ...baseHeaders(requestId), ...accountHeaders },
            body: { data: result.data, meta: { ...result.meta, creditCost: operation.price } },
          },
          accountId: principal.account.accountId,
          keyId: principal.key?.keyId,
          creditCost: operation.price,
        },
      };
    } catch (error) {
      const apiError = toApiError(error);
      if (apiError.status >= 500)
        this.deps.logger.error({ err: apiError.cause ?? apiError, requestId }, apiError.message);
      return {
        outcome: {
          response: errorResponse(apiError, requestId, accountHeaders, billed),
          accountId: principal?.account.accountId,
          keyId: principal?.key?.keyId,
          creditCost: state.creditCost,
        },
        error: apiError,
      };
    }
  }

  private async authenticate(request: LookupRequest): Promise<Principal> {
    const { credential } = request;
    switch (credential.scheme) {
      case 'bearer':
        return this.deps.authenticator.authenticateBearer(credential.authorization);
      case 'apiKey':
        return this.deps.authenticator.authenticateKey(credential.apiKey, 'header');
      case 'principal':
        return credential.principal;
    }
  }

  /** Rate limit and debit in one step of the store; billing fails closed, the rate limit open. */
  private async admit(
    request: LookupRequest,
    principal: Principal,
    caps: SpendCaps | undefined,
    usage: LedgerEntry | undefined,
  ): Promise<AdmissionDecision> {
    const { operation, requestId, transport, batchItem } = request;
    try {
      return await this.deps.ledger.admit({
        accountId: principal.account.accountId,
        requestId,
        operation: operation.definition.id,
        cost: operation.price,
        rateLimit: principal.account.rateLimit,
        keyUse: principal.keyUse,
        transport,
        keyId: callerId(principal),
        ...(batchItem ? { batchItem } : {}),
        ...(caps ? { caps } : {}),
        ...(usage ? { usage } : {}),
      });
    } catch (error) {
      // Only billed admissions throw: no free lookups while credits cannot be counted.
      throw storeFailure('Billing is temporarily unavailable; no credits were used.', error);
    }
  }

  /** An account read: free and unrecorded, counted in its own window, which fails open. */
  private async admitAccountRead(principal: Principal): Promise<AdmissionDecision> {
    const rate = await this.deps.ledger.admitAccountRead({
      accountId: principal.account.accountId,
      rateLimit: this.deps.accountReads,
      keyUse: principal.keyUse,
    });
    return rate.allowed ? { outcome: 'admitted', rate } : { outcome: 'rate_limited', rate };
  }

  /** The usage entry of a free call, as its ledger keeps it if the call succeeds. */
  private usageEntry(request: LookupRequest, principal: Principal): LedgerEntry {
    const { operation, requestId, transport, batchItem } = request;
    return this.deps.ledger.freeEntry({
      requestId,
      accountId: principal.account.accountId,
      operation: operation.definition.id,
      transport,
      keyId: callerId(principal),
      ...(batchItem ? { batchItem } : {}),
    });
  }

  /**
   * A free call, whose usage entry the admission may have written already (`recorded`); if not, it
   * is written while the lookup runs. Either way a failed lookup writes it again with its status.
   */
  private async runFree(
    request: LookupRequest,
    run: AcceptedRun,
    principal: Principal,
    usage: { entry: LedgerEntry; recorded: boolean },
  ): Promise<RunResult> {
    const { operation, requestId, transport } = request;
    const { ledger, logger } = this.deps;
    const { entry } = usage;
    // The usage record is awaited (a frozen Lambda would lose it); a failure still answers, since a
    // lost usage record of a free call costs nobody a credit.
    const record = (settled: LedgerEntry) =>
      ledger.recordUsage(settled).catch((error: unknown) => {
        logger.warn({ err: error, requestId }, 'could not record a free call');
      });
    const recorded = usage.recorded ? undefined : record(entry);
    try {
      return await this.execute(operation, run, requestId, principal, apiFamily(transport));
    } catch (error) {
      await recorded;
      await record({ ...entry, httpStatus: toApiError(error).status });
      throw error;
    } finally {
      await recorded;
    }
  }

  private async runBilled(
    operation: RegisteredOperation,
    run: AcceptedRun,
    entry: InflightEntry,
    /** What the key may still spend after the debit (the balance, unless the key is capped). */
    remaining: number | undefined,
    state: RequestState,
    transport: Transport | undefined,
    principal: Principal,
    caps: SpendCaps | undefined,
  ): Promise<RunResult> {
    state.accountHeaders['X-Credits-Remaining'] = String(remaining);
    state.creditCost = entry.cost;
    state.debited = entry.cost;
    let result: RunResult;
    try {
      result = await this.execute(operation, run, entry.requestId, principal, apiFamily(transport));
    } catch (error) {
      throw await this.settleFailure(entry, toApiError(error), operation, state, caps);
    }
    try {
      await this.deps.ledger.charge(entry, 200);
    } catch (error) {
      // The answer is delivered; the request stays in flight and reconcile settles it later.
      this.deps.logger.error(
        { err: error, requestId: entry.requestId },
        'could not record a charge; reconcile will settle it',
      );
    }
    return result;
  }

  /** Refunds or keeps the charge by the operation's settlement rule; returns the error to answer. */
  private async settleFailure(
    entry: InflightEntry,
    error: ApiError,
    operation: RegisteredOperation,
    state: RequestState,
    caps: SpendCaps | undefined,
  ): Promise<ApiError> {
    const keepsCharge = operation.definition.settlement.chargedErrors.includes(error.code) || !error.refund;
    try {
      if (keepsCharge) {
        await this.deps.ledger.charge(entry, error.status);
      } else {
        const { balance, spend } = await this.deps.ledger.refund(entry, error.code, error.status);
        if (balance !== undefined)
          state.accountHeaders['X-Credits-Remaining'] = String(spendable(balance, caps, spend));
        state.creditCost = 0;
      }
      return error;
    } catch (settleError) {
      this.deps.logger.error({ err: settleError, requestId: entry.requestId }, 'settlement failed');
      // When settlement is uncertain the client must not retry on its own.
      return error.withRetryable(
        false,
        `${error.message} Credit settlement is pending and will be reconciled.`,
      );
    }
  }

  /** Runs the operation under its deadline, and checks its data against the public schema. */
  private async execute(
    operation: RegisteredOperation,
    run: AcceptedRun,
    requestId: string,
    principal: Principal,
    api: ApiFamily,
  ): Promise<RunResult> {
    const { definition } = operation;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new LookupTimeoutError(
          `The lookup did not finish within ${definition.runtime.timeoutMs} ms.`,
        );
        controller.abort(error);
        reject(error);
      }, definition.runtime.timeoutMs);
    });
    try {
      const result = await Promise.race([
        run({
          signal: controller.signal,
          operationId: definition.id,
          api,
          requestId,
          accountId: principal.account.accountId,
          principal,
          clock: this.deps.clock,
        }),
        deadline,
      ]);
      const data = definition.data.safeParse(result.data);
      if (!data.success)
        throw new InternalError(data.error, { message: 'The lookup produced an invalid result.' });
      return { data: data.data, meta: result.meta };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * What the ledger records as the caller: the key, the OAuth connection (its id, `cnx_…`), or the
 * outside issuer's subject of a caller without either.
 */
function callerId(principal: Principal): string | undefined {
  if (principal.key) return principal.key.keyId;
  if (principal.connection) return connectionCallerId(principal.connection.connectionId);
  return principal.oauthSubject === undefined ? undefined : `oauth:${principal.oauthSubject}`;
}

/**
 * The caller's spend caps: the key's, or the connection's daily cap (counted under the connection's
 * id as a key's are under its id); none for a caller without caps.
 */
export function spendCapsOf(principal: Principal): SpendCaps | undefined {
  const key = principal.key;
  const caps = key
    ? { keyId: key.keyId, dailyCreditCap: key.dailyCreditCap, monthlyCreditCap: key.monthlyCreditCap }
    : principal.connection && {
        keyId: connectionCallerId(principal.connection.connectionId),
        dailyCreditCap: principal.connection.dailyCreditCap,
        monthlyCreditCap: null,
      };
  return isCapped(caps) ? caps : undefined;
}

/** REST v1 and MCP serve the v1 bodies (MCP's results are the REST bodies); v2 is its own family. */
function apiFamily(transport: Transport | undefined): ApiFamily {
  return transport === 'v2' ? 'v2' : 'v1';
}

/**
 * The window a call counted in, as the IETF fields name it: `lookups` (the account's rate limit) or
 * `account` (the account reads' own window).
 */
interface RatePolicy {
  name: 'lookups' | 'account';
  windowSeconds: number;
}

/**
 * X-RateLimit-* and, with the same values, the IETF fields of draft-ietf-httpapi-ratelimit-headers-11
 * (structured fields: `RateLimit-Policy` gives the quota `q` per window `w` seconds, `RateLimit` the
 * remaining quota `r` and the seconds `t` until the window resets). `RateLimit` is left out, as
 * X-RateLimit-Remaining is, when the limiter could not count.
 */
function rateLimitHeaders(rate: RateDecision, policy: RatePolicy): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(rate.limit),
    'RateLimit-Policy': `"${policy.name}";q=${rate.limit};w=${policy.windowSeconds}`,
  };
  if (rate.remaining !== undefined) headers['X-RateLimit-Remaining'] = String(rate.remaining);
  if (rate.resetSeconds !== undefined) headers['X-RateLimit-Reset'] = String(rate.resetSeconds);
  if (rate.remaining !== undefined && rate.resetSeconds !== undefined)
    headers.RateLimit = `"${policy.name}";r=${rate.remaining};t=${rate.resetSeconds}`;
  return headers;
}
