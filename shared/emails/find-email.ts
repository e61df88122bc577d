/**
 * Email find: candidates from the name (most common patterns first, at most 16), checked in one
 * SMTP dialogue after a catch-all probe (pipelined in groups where the mail host allows it), until
 * one is valid. A catch-all domain costs one probe and returns no address (it accepts everything);
 * `candidatesChecked` counts candidates only, never the probe. What the domain taught us is remembered (domain-memory.ts) to make the next find cheaper.
 */
import type { VerificationReason, VerificationStatus } from '../../schemas/operations/emails.js';
import { InvalidRequestError, UpstreamError, UpstreamTimeoutError } from '../errors.js';
import { candidates, type NameParts, nameParts, nameSpellings } from './candidates.js';
import { type Dialogue, randomLocalPart, reachMailServer } from './mail-server.js';
import { budgetSignal, type EmailCheckDependencies, refuseUnsupported, verdictOf } from './verify-email.js';

export interface FindResult {
  email: string | null;
  status: 'found' | 'catch_all' | 'not_found' | 'no_mx';
  isCatchAll: boolean;
  isDisposable: boolean;
  candidatesChecked: number;
  verification: { mx: string | null; status: VerificationStatus; reason: VerificationReason } | null;
}

interface Progress {
  checked: number;
  /** The last inconclusive answer, reported when nothing is found. */
  last: { status: VerificationStatus; reason: VerificationReason } | null;
}

export interface FindInput {
  firstName: string;
  lastName?: string;
  domain: string;
}

export async function findEmail(
  deps: EmailCheckDependencies,
  input: FindInput,
  signal: AbortSignal,
): Promise<FindResult> {
  const { domain } = input;
  const parts = addressableName(input);
  refuseUnsupported(deps, domain);
  const isDisposable = deps.disposableDomains.has(domain);
  const known = await deps.memory.recall(domain);
  const base = { isDisposable, isCatchAll: false };

  if (known?.catchAll) return catchAll(base, known.mx);
  const list = candidates(parts, domain, known?.pattern ?? undefined);

  const progress: Progress = { checked: 0, last: null };
  const reach = await reachMailServer(deps, domain, budgetSignal(deps, signal), (dialogue) =>
    tryCandidates(dialogue, domain, list, progress),
  );
  switch (reach.kind) {
    case 'no_mx':
      return {
        ...base,
        email: null,
        status: 'no_mx',
        candidatesChecked: 0,
        verification: { mx: null, status: 'invalid', reason: 'no_mx' },
      };
    case 'dns_error':
      throw new UpstreamError(`The DNS of ${domain} did not answer; no credits were used.`);
    case 'unreachable':
      // Nothing conclusive was learned: a failed search of ours, not an empty one.
      if (progress.checked === 0) {
        throw reach.reason === 'timeout'
          ? new UpstreamTimeoutError(
              `The mail server of ${domain} did not answer in time; no credits were used.`,
            )
          : new UpstreamError(`No mail server of ${domain} completed a dialogue; no credits were used.`);
      }
      return {
        ...base,
        email: null,
        status: 'not_found',
        candidatesChecked: progress.checked,
        verification: { mx: reach.mx, status: 'unverifiable', reason: reach.reason },
      };
    case 'done': {
      const outcome = reach.value;
      if (outcome.kind === 'catch_all') {
        await deps.memory.remember(domain, { catchAll: true, mx: reach.mx, pattern: null });
        return catchAll(base, reach.mx);
      }
      if (outcome.kind === 'found') {
        await deps.memory.remember(domain, { catchAll: false, mx: reach.mx, pattern: outcome.pattern });
        return {
          ...base,
          email: outcome.address,
          status: 'found',
          candidatesChecked: progress.checked,
          verification: { mx: reach.mx, status: 'valid', reason: 'accepted' },
        };
      }
      return {
        ...base,
        email: null,
        status: 'not_found',
        candidatesChecked: progress.checked,
        verification: progress.last ? { mx: reach.mx, ...progress.last } : null,
      };
    }
  }
}

/**
 * The name's parts in ASCII, when they make at least one candidate. A name no spelling can write in
 * an address (an unknown script, or a romanization past 64 characters) is the client's error, not a
 * search that found nothing: the pipeline asks this before admission (`refuseInput`), so it costs
 * nothing.
 */
export function addressableName({ firstName, lastName, domain }: FindInput): NameParts {
  const first = nameSpellings(firstName);
  const last = lastName === undefined ? [] : nameSpellings(lastName);
  const sent = lastName === undefined ? ['firstName'] : ['firstName', 'lastName'];
  const unspellable = sent.filter((field) => (field === 'firstName' ? first : last).length === 0);
  if (unspellable.length > 0) {
    throw new InvalidRequestError(
      unspellable.map((field) => ({
        field,
        code: 'invalid_value',
        message: `${field} has no letters that can be spelled in Latin letters for an email address.`,
      })),
    );
  }
  const parts = nameParts(first, last);
  if (candidates(parts, domain).length > 0) return parts;
  throw new InvalidRequestError(
    sent.map((field) => ({
      field,
      code: 'invalid_value',
      message: `${field} spelled in Latin letters makes no address of at most 64 characters.`,
    })),
  );
}

function catchAll(base: { isDisposable: boolean }, mx: string | null): FindResult {
  return {
    ...base,
    email: null,
    status: 'catch_all',
    isCatchAll: true,
    candidatesChecked: 0,
    verification: { mx, status: 'unverifiable', reason: 'catch_all' },
  };
}

type Outcome = { kind: 'catch_all' } | { kind: 'found'; address: string; pattern: string } | { kind: 'none' };

async function tryCandidates(
  dialogue: Dialogue,
  domain: string,
  list: { address: string; pattern: string }[],
  progress: Progress,
): Promise<Outcome> {
  let probed = false;
  const addresses = list.map((candidate) => candidate.address);
  for await (const answer of dialogue.ask([`${randomLocalPart()}@${domain}`, ...addresses])) {
    if (!probed) {
      if (answer.reason === 'accepted') return { kind: 'catch_all' };
      if (answer.reason !== 'rejected') {
        // The server will not tell mailboxes apart for us (greylisting, a block): stop, charge nothing more.
        progress.last = verdictOf(answer.reason);
        return { kind: 'none' };
      }
      probed = true;
      continue;
    }
    const candidate = list[progress.checked] as { address: string; pattern: string };
    progress.checked += 1;
    progress.last = verdictOf(answer.reason);
    if (answer.reason === 'accepted') return { kind: 'found', ...candidate };
    if (answer.reason !== 'rejected') return { kind: 'none' };
  }
  return { kind: 'none' };
}
