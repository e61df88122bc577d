/**
 * Mailbox verification. Verdicts are decided here and nowhere else:
 *
 * | what happened                                   | status       | reason      |
 * |-------------------------------------------------|--------------|-------------|
 * | null MX, or no MX and no address                | invalid      | no_mx       |
 * | the random probe is accepted (catch-all, M365)  | unverifiable | catch_all   |
 * | the target is accepted                          | valid        | accepted    |
 * | the target is refused as unknown (5.1.x)        | invalid      | rejected    |
 * | greylisting, rate limits, too many recipients   | unverifiable | limited     |
 * | a block of our sender (5.7.x, blocklists)       | unverifiable | spam_block  |
 * | DNS failure, no dialable host, a dropped dialog | unverifiable | mx_error    |
 * | the mail server too slow                        | unverifiable | timeout     |
 *
 * All of these are 200s that keep the charge (the spec charges a 200 `unverifiable`). Failures on our
 * side are refunded errors: the unsupported provider (422), our concurrency limit (503), our egress.
 * The probe goes first in the same session; in lock-step a catch-all server is not asked about the
 * target at all, pipelined the two go in one group and the target's answer is then ignored. The
 * probe is random, except at a domain whose greylisting has seen one: that one is sent again
 * (domain-memory.ts), so the whitelisting its wait earned is kept.
 */
import type { VerificationReason, VerificationStatus } from '../../schemas/operations/emails.js';
import { EmailUnverifiableError } from '../errors.js';
import type { DisposableDomains } from './disposable-domains.js';
import type { DomainFacts } from './domain-memory.js';
import {
  type Budget,
  type Dialogue,
  type MailServerDependencies,
  randomLocalPart,
  reachMailServer,
} from './mail-server.js';
import type { RcptReason } from './reply-classifier.js';

export interface EmailCheckDependencies extends MailServerDependencies {
  disposableDomains: DisposableDomains;
  unsupportedDomains: ReadonlySet<string>;
  /** Overall time of one verification or find. */
  budgetMs: number;
}

export interface Verification {
  email: string;
  user: string | null;
  domain: string;
  mx: string | null;
  status: VerificationStatus;
  reason: VerificationReason;
  isCatchAll: boolean;
  isDisposable: boolean;
}

/** A recipient answer as a verdict; `accepted` is only valid for a recipient that is not the probe. */
export function verdictOf(reason: RcptReason): { status: VerificationStatus; reason: VerificationReason } {
  switch (reason) {
    case 'accepted':
      return { status: 'valid', reason: 'accepted' };
    case 'rejected':
      return { status: 'invalid', reason: 'rejected' };
    default:
      return { status: 'unverifiable', reason };
  }
}

export function refuseUnsupported(deps: EmailCheckDependencies, domain: string): void {
  if (deps.unsupportedDomains.has(domain)) throw new EmailUnverifiableError(domain);
}

/** The request's deadline and the verification budget, whichever ends first, from now. */
export function startBudget(deps: EmailCheckDependencies, signal: AbortSignal): Budget {
  return {
    signal: AbortSignal.any([signal, AbortSignal.timeout(deps.budgetMs)]),
    endsAt: performance.now() + deps.budgetMs,
  };
}

/** The catch-all probe's local part for `domain`: the one its greylisting has seen, else a new one. */
export function probeFor(known: DomainFacts | undefined): string {
  return known?.probe ?? randomLocalPart();
}

/** After dialogues of which one met greylisting: keep their probe for the next checks of the domain. */
export async function rememberGreylisting(
  deps: EmailCheckDependencies,
  domain: string,
  known: DomainFacts | undefined,
  dialogues: readonly Dialogue[],
  probe: string,
): Promise<void> {
  const greylisted = dialogues.some((dialogue) => dialogue.greylisted);
  if (greylisted && known?.probe !== probe) await deps.memory.remember(domain, { probe });
}

export async function verifyEmail(
  deps: EmailCheckDependencies,
  email: { address: string; domain: string },
  signal: AbortSignal,
): Promise<Verification> {
  refuseUnsupported(deps, email.domain);
  const base = {
    email: email.address,
    user: email.address.slice(0, email.address.lastIndexOf('@')) || null,
    domain: email.domain,
    isDisposable: deps.disposableDomains.has(email.domain),
  };
  // No mailbox is named by an empty local part: nothing to ask a server.
  if (base.user === null)
    return { ...base, mx: null, status: 'invalid', reason: 'rejected', isCatchAll: false };
  const known = await deps.memory.recall(email.domain);
  const probe = probeFor(known);
  const dialogues: Dialogue[] = [];
  const reach = await reachMailServer(
    deps,
    email.domain,
    startBudget(deps, signal),
    (dialogue) => {
      dialogues.push(dialogue);
      return askAbout(dialogue, `${probe}@${email.domain}`, `${base.user}@${email.domain}`);
    },
    // The domain is in its ASCII form already; a local part may not be (RFC 6531).
    { smtpUtf8: !/^[\x20-\x7e]*$/.test(base.user) },
  );
  await rememberGreylisting(deps, email.domain, known, dialogues, probe);
  switch (reach.kind) {
    case 'no_mx':
      return { ...base, mx: null, status: 'invalid', reason: 'no_mx', isCatchAll: false };
    case 'dns_error':
      return { ...base, mx: null, status: 'unverifiable', reason: 'mx_error', isCatchAll: false };
    case 'unreachable':
      return { ...base, mx: reach.mx, status: 'unverifiable', reason: reach.reason, isCatchAll: false };
    case 'done':
      return { ...base, mx: reach.mx, ...reach.value };
  }
}

async function askAbout(dialogue: Dialogue, probe: string, target: string) {
  let probed = false;
  // One group: pipelined, the probe and the target go in one write (a verification in 3 flights).
  for await (const outcome of dialogue.ask([[probe, target]])) {
    if (probed) return { ...verdictOf(outcome.reason), isCatchAll: false };
    if (outcome.reason === 'accepted')
      return { status: 'unverifiable', reason: 'catch_all', isCatchAll: true } as const;
    // A probe refused for another reason than "no such user" says the server will not tell us anything.
    if (outcome.reason !== 'rejected') return { ...verdictOf(outcome.reason), isCatchAll: false };
    probed = true;
  }
  throw new Error('The dialogue ended without the target being asked.');
}
