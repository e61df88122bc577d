/**
 * Email find: candidates from the name (most common patterns first, at most 16), checked in one
 * SMTP dialogue after a catch-all probe, until one is valid. The probe is asked alone and answered
 * before any candidate is sent: a catch-all domain costs that one RCPT and returns no address (it
 * accepts everything). Candidates then go in groups (pipelined where the mail host allows it): the
 * two most likely first, the domain's remembered pattern first of all, so that a hit there costs
 * few recipients, then the rest in larger groups. `candidatesChecked` is the number of candidates
 * the mail server answered an RCPT for, in whatever dialogue shape, never the probe. What the domain
 * taught us is remembered (domain-memory.ts) to make the next find cheaper.
 */
import type { VerificationReason, VerificationStatus } from '../../schemas/operations/emails.js';
import { LookupTimeoutError, UpstreamError } from '../errors.js';
import { addressableName, candidates, type FindInput } from './candidates.js';
import { type Dialogue, reachMailServer } from './mail-server.js';
import {
  type EmailCheckDependencies,
  probeFor,
  refuseUnsupported,
  rememberGreylisting,
  startBudget,
  verdictOf,
} from './verify-email.js';

/**
 * How many candidates go in the first group: the two most likely patterns (first.last and first
 * between them hold most company addresses), or the remembered one and the most likely other.
 */
const LEADING_GROUP = 2;

export interface FindResult {
  email: string | null;
  status: 'found' | 'catch_all' | 'not_found' | 'no_mx';
  isCatchAll: boolean;
  isDisposable: boolean;
  candidatesChecked: number;
  verification: { mx: string | null; status: VerificationStatus; reason: VerificationReason } | null;
}

interface Progress {
  /** The dialogues candidates were asked in (one per mail host tried). */
  dialogues: Dialogue[];
  /** Candidates whose answer was read. */
  answered: number;
  /** The last inconclusive answer, reported when nothing is found. */
  last: { status: VerificationStatus; reason: VerificationReason } | null;
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

  const probe = probeFor(known);
  const groups = candidateGroups(
    list.map((candidate) => candidate.address),
    deps.settings.pipeliningGroupSize,
  );
  const progress: Progress = { dialogues: [], answered: 0, last: null };
  const reach = await reachMailServer(deps, domain, startBudget(deps, signal), (dialogue) => {
    progress.dialogues.push(dialogue);
    return tryCandidates(dialogue, `${probe}@${domain}`, list, groups, progress);
  });
  await rememberGreylisting(deps, domain, known, progress.dialogues, probe);
  // Every candidate the mail server answered, whether its answer was read or not (a pipelined
  // group's rest after a hit): what the server was asked about, not what we looked at.
  const checked = list.filter(({ address }) =>
    progress.dialogues.some((dialogue) => dialogue.answered.has(address)),
  ).length;
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
      if (progress.answered === 0) {
        throw reach.reason === 'timeout'
          ? new LookupTimeoutError(
              `The mail server of ${domain} did not answer in time; no credits were used.`,
            )
          : new UpstreamError(`No mail server of ${domain} completed a dialogue; no credits were used.`);
      }
      return {
        ...base,
        email: null,
        status: 'not_found',
        candidatesChecked: checked,
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
          candidatesChecked: checked,
          verification: { mx: reach.mx, status: 'valid', reason: 'accepted' },
        };
      }
      return {
        ...base,
        email: null,
        status: 'not_found',
        candidatesChecked: checked,
        verification: progress.last ? { mx: reach.mx, ...progress.last } : null,
      };
    }
  }
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

/**
 * The candidates in groups: LEADING_GROUP first, then the rest in as few groups of at most
 * `groupSize` as they fit in, of even sizes (16 candidates in groups of 10: 2, 7, 7). With the
 * probe's own group, a find of 16 candidates is EHLO, four groups and QUIT: 6 client flights.
 */
function candidateGroups(addresses: readonly string[], groupSize: number): string[][] {
  const leading = addresses.slice(0, Math.min(LEADING_GROUP, groupSize));
  const rest = addresses.slice(leading.length);
  const count = Math.ceil(rest.length / groupSize);
  const groups = leading.length > 0 ? [leading] : [];
  for (let index = 0, start = 0; index < count; index += 1) {
    // The first `rest.length % count` groups take one more, so sizes differ by one at most.
    const size = Math.floor(rest.length / count) + (index < rest.length % count ? 1 : 0);
    groups.push(rest.slice(start, start + size));
    start += size;
  }
  return groups;
}

type Outcome = { kind: 'catch_all' } | { kind: 'found'; address: string; pattern: string } | { kind: 'none' };

async function tryCandidates(
  dialogue: Dialogue,
  probe: string,
  list: { address: string; pattern: string }[],
  groups: string[][],
  progress: Progress,
): Promise<Outcome> {
  let probed = false;
  // The probe alone first: no candidate is sent before its answer says the domain is not catch-all.
  for await (const answer of dialogue.ask([[probe], ...groups])) {
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
    const candidate = list[progress.answered] as { address: string; pattern: string };
    progress.answered += 1;
    progress.last = verdictOf(answer.reason);
    if (answer.reason === 'accepted') return { kind: 'found', ...candidate };
    if (answer.reason !== 'rejected') return { kind: 'none' };
  }
  return { kind: 'none' };
}
