/**
 * `npm run admin -- <command>`: the operator CLI for accounts, credits, keys, usage and ledger
 * reconciliation, and the migration of an embedded-DynamoDB DATA_DIR into SQLite. Works beside a
 * running `npm start` or alone. Prints JSON on stdout; a failure is one JSON line on stderr
 * (`{"error":{"code","message"}}`) and exit code 1. Every change is recorded with time, actor
 * (`--actor`, the OS user by default) and reason (`--reason`).
 */
import { Command } from 'commander';
import type { Attribution } from '../../shared/accounts/accounts.js';
import {
  actor,
  checkRange,
  futureInstant,
  instant,
  integer,
  osUser,
  scopes,
  signedInteger,
  text,
} from './arguments.js';
import {
  accountHistory,
  adjustCredits,
  createAccount,
  DEFAULT_RECONCILE_AGE_SECONDS,
  grantCredits,
  issueKey,
  linkOAuth,
  listAccounts,
  listKeys,
  type NewAccountOptions,
  type NewKeyOptions,
  reconcile,
  renameAccount,
  revokeKey,
  setAccountStatus,
  setRateLimit,
  showAccount,
  type TimeRange,
  unlinkOAuth,
  usage,
} from './commands.js';
import { reportFailure, runCommand, runStandalone } from './run-command.js';

// Same bounds as DEFAULT_RATE_LIMIT and DEFAULT_RATE_WINDOW_SECONDS in shared/config.ts.
const MAX_RATE_LIMIT = 1_000_000;
const MAX_RATE_WINDOW_SECONDS = 86_400;

/** Printed under every help page: what the CLI reads besides its arguments. */
const SETTINGS_HELP = `
Settings (environment variables, as for npm start):
  DATA_DIR      folder of the local store (default: .data); the store of a running npm start or
                npm run start:synth on the same folder is used through it, whatever STORE says
  the store     STORE: sqlite by default, or dynamodb with DYNAMODB_ENDPOINT (and DYNAMODB_TABLE,
                AWS_REGION; https://dynamodb.<region>.amazonaws.com with your AWS credentials)
  DEFAULT_RATE_LIMIT, DEFAULT_RATE_WINDOW_SECONDS
                rate limit of accounts created without --rate-limit / --rate-window-seconds

Every change is recorded with its time, --actor (default: the OS user, as cli:<user>) and --reason;
\`accounts history\` lists them. Times (--since, --until): an ISO 8601 date (midnight UTC) or
date-time with Z or an offset; --since is inclusive, --until exclusive.

Output: JSON on stdout. Errors: one JSON line on stderr, {"error":{"code","message"}}, exit code 1.`;

type Attributed = { actor?: string; reason?: string };

/** Adds `--actor` and `--reason` to a command that changes an account. */
function recordsChange(command: Command, reason: 'required' | 'optional' = 'optional'): Command {
  command.option(
    '--actor <name>',
    'who makes the change, recorded as cli:<name> (default: the OS user)',
    actor,
  );
  const description = 'why, recorded with the change';
  return reason === 'required'
    ? command.requiredOption('--reason <text>', description, text)
    : command.option('--reason <text>', description, text);
}

/** Who makes the change and why, from `--actor` and `--reason`. */
function by(options: Attributed): Attribution {
  return {
    actor: options.actor ?? actor(osUser()),
    ...(options.reason === undefined ? {} : { reason: options.reason }),
  };
}

/** Adds `--since` and `--until` to a command that reads by time. */
function readsRange(command: Command): Command {
  return command
    .option('--since <time>', 'from this time on, inclusive (ISO 8601 date or date-time, UTC)', instant)
    .option('--until <time>', 'before this time, exclusive (ISO 8601 date or date-time, UTC)', instant);
}

/** The range of `--since`/`--until`, refused before the store is opened when it is empty. */
function range(options: TimeRange): TimeRange {
  checkRange(options);
  return { since: options.since, until: options.until };
}

// Settings made before the commands are added are inherited by every subcommand: errors are thrown
// to reportFailure instead of printed by commander, so they come out as JSON.
const program = new Command('admin')
  .description('Operate accounts, credits and API keys.')
  .exitOverride()
  .configureOutput({ writeErr: () => undefined, outputError: () => undefined })
  .addHelpText('afterAll', SETTINGS_HELP);

const accounts = program
  .command('accounts')
  .description('Create, inspect, rename, limit, suspend and resume accounts; show their history.');
recordsChange(
  accounts
    .command('create')
    .description('Create an account with its first API key (shown only here).')
    .requiredOption('--name <name>', 'account name', text)
    .option('--credits <credits>', 'starting credits (default: 0)', integer(0))
    .option(
      '--rate-limit <requests>',
      'requests per window (default: DEFAULT_RATE_LIMIT)',
      integer(1, MAX_RATE_LIMIT),
    )
    .option(
      '--rate-window-seconds <seconds>',
      'window length (default: DEFAULT_RATE_WINDOW_SECONDS)',
      integer(1, MAX_RATE_WINDOW_SECONDS),
    )
    .option('--scopes <families>', 'comma-separated families the first key may call (default: all)', scopes),
).action((options: NewAccountOptions & Attributed) =>
  runCommand((context) => createAccount(context, { ...options, ...by(options) })),
);
accounts
  .command('list')
  .description('List every account with its balance.')
  .action(() => runCommand(listAccounts));
accounts
  .command('show <accountId>')
  .description('Show an account with its balance, grants and adjustments, and keys.')
  .action((accountId: string) => runCommand((context) => showAccount(context, accountId)));
recordsChange(
  accounts
    .command('suspend <accountId>')
    .description('Refuse every request of the account (403) until resumed.'),
).action((accountId: string, options: Attributed) =>
  runCommand((context) => setAccountStatus(context, accountId, 'suspended', by(options))),
);
recordsChange(accounts.command('resume <accountId>').description('Serve a suspended account again.')).action(
  (accountId: string, options: Attributed) =>
    runCommand((context) => setAccountStatus(context, accountId, 'active', by(options))),
);
recordsChange(
  accounts
    .command('rename <accountId>')
    .description('Change the name of an account.')
    .requiredOption('--name <name>', 'the new name', text),
).action((accountId: string, options: { name: string } & Attributed) =>
  runCommand((context) => renameAccount(context, accountId, options.name, by(options))),
);
recordsChange(
  accounts
    .command('set-rate-limit <accountId>')
    .description(
      'Change the rate limit of an account (give either or both; running servers apply it within KEY_CACHE_SECONDS).',
    )
    .option('--rate-limit <requests>', 'requests per window', integer(1, MAX_RATE_LIMIT))
    .option('--rate-window-seconds <seconds>', 'window length', integer(1, MAX_RATE_WINDOW_SECONDS)),
).action(
  (
    accountId: string,
    options: { rateLimit?: number; rateWindowSeconds?: number } & Attributed,
    command: Command,
  ) => {
    if (options.rateLimit === undefined && options.rateWindowSeconds === undefined) {
      command.error('Give --rate-limit, --rate-window-seconds or both.', { code: 'commander.missingOption' });
    }
    const change = {
      ...(options.rateLimit === undefined ? {} : { limit: options.rateLimit }),
      ...(options.rateWindowSeconds === undefined ? {} : { windowSeconds: options.rateWindowSeconds }),
    };
    return runCommand((context) => setRateLimit(context, accountId, change, by(options)));
  },
);
readsRange(
  accounts
    .command('history <accountId>')
    .description('Every recorded change of an account, newest first: grants, adjustments and audit entries.'),
).action((accountId: string, options: TimeRange) => {
  const within = range(options);
  return runCommand((context) => accountHistory(context, accountId, within));
});

recordsChange(
  accounts
    .command('link-oauth <accountId>')
    .description('Let an OAuth identity of OAUTH_ISSUER use the account on /mcp (its credits and limits).')
    .requiredOption('--subject <subject>', 'the `sub` claim of its access tokens', text),
).action((accountId: string, options: { subject: string } & Attributed) =>
  runCommand((context) => linkOAuth(context, accountId, options.subject, by(options))),
);
recordsChange(
  accounts
    .command('unlink-oauth')
    .description('Stop an OAuth identity from using its account.')
    .requiredOption('--subject <subject>', 'the `sub` claim of its access tokens', text),
).action((options: { subject: string } & Attributed) =>
  runCommand((context) => unlinkOAuth(context, options.subject, by(options))),
);

/** The OAuth commands load oidc-provider (a third of a second): only when one of them runs. */
const oauthCommands = () => import('./oauth-commands.js');

const oauth = program
  .command('oauth')
  .description('Clients of the built-in OAuth authorization server, and the connections customers approved.');
const clients = oauth
  .command('clients')
  .description('Register, list and remove OAuth clients by hand (besides metadata documents and DCR).');
recordsChange(
  clients
    .command('register')
    .description('Register a public OAuth client (PKCE, no secret); prints its client_id.')
    .requiredOption('--name <name>', 'the name the consent page shows', text)
    .requiredOption(
      '--redirect-uri <uri>',
      'where the client receives the code, matched exactly; repeat for several',
      (uri: string, previous: string[] = []) => [...previous, uri],
    )
    .option('--native', 'a native application (RFC 8252): any port of a loopback redirect URI', false),
).action((options: { name: string; redirectUri: string[]; native: boolean } & Attributed) =>
  runCommand(async (context) =>
    (await oauthCommands()).registerClient(
      context,
      { name: options.name, redirectUris: [...new Set(options.redirectUri)], native: options.native },
      by(options),
    ),
  ),
);
clients
  .command('list')
  .description('List the clients registered with `oauth clients register`.')
  .action(() => runCommand(async (context) => (await oauthCommands()).listClients(context)));
clients
  .command('remove <clientId>')
  .description('Remove a client registered with `oauth clients register`: no new authorization or refresh.')
  .action((clientId: string) =>
    runCommand(async (context) => (await oauthCommands()).removeClient(context, clientId)),
  );
const connections = oauth
  .command('connections')
  .description("List and revoke an account's OAuth connections.");
connections
  .command('list')
  .description("An account's connections, newest first: client, scopes, daily cap, last use, revocation.")
  .requiredOption('--account <accountId>', 'the account', text)
  .action((options: { account: string }) =>
    runCommand(async (context) => (await oauthCommands()).listConnections(context, options.account)),
  );
recordsChange(
  connections
    .command('revoke <connectionId>')
    .description('Revoke a connection and delete its tokens; /mcp refuses it within KEY_CACHE_SECONDS.'),
).action((connectionId: string, options: Attributed) =>
  runCommand(async (context) => (await oauthCommands()).revokeConnection(context, connectionId, by(options))),
);

const credits = program.command('credits').description('Manage credit balances.');
recordsChange(
  credits
    .command('grant')
    .description('Add credits to an account.')
    .argument('<accountId>')
    .argument('<credits>', 'credits to add', integer(1)),
).action((accountId: string, amount: number, options: Attributed) =>
  runCommand((context) => grantCredits(context, accountId, amount, by(options))),
);
recordsChange(
  credits
    .command('adjust')
    .description('Add (25) or take away (-5) credits, with a reason; never below a balance of 0.')
    .argument('<accountId>')
    .argument('<amount>', 'signed credits', signedInteger),
  'required',
).action((accountId: string, amount: number, options: Attributed) =>
  runCommand((context) => adjustCredits(context, accountId, amount, by(options))),
);

const keys = program.command('keys').description('Issue, revoke and list API keys.');
recordsChange(
  keys
    .command('issue <accountId>')
    .description('Issue another API key (shown only here).')
    .option('--scopes <families>', 'comma-separated families the key may call (default: all)', scopes)
    .option(
      '--expires-at <iso>',
      'ISO 8601 date or date-time after which the key stops working',
      futureInstant,
    )
    .option('--label <label>', "operator's note on what the key is for", text)
    .option(
      '--daily-credit-cap <credits>',
      'credits the key may spend per UTC day (default: no cap)',
      integer(1),
    )
    .option(
      '--monthly-credit-cap <credits>',
      'credits the key may spend per UTC month (default: no cap)',
      integer(1),
    ),
).action((accountId: string, options: NewKeyOptions & Attributed) =>
  runCommand((context) => issueKey(context, accountId, { ...options, ...by(options) })),
);
recordsChange(
  keys
    .command('revoke <accountId> <keyId>')
    .description('Revoke a key; running servers honour it within KEY_CACHE_SECONDS.'),
).action((accountId: string, keyId: string, options: Attributed) =>
  runCommand((context) => revokeKey(context, accountId, keyId, by(options))),
);
keys
  .command('list <accountId>')
  .description("List an account's keys (never the keys themselves).")
  .action((accountId: string) => runCommand((context) => listKeys(context, accountId)));

readsRange(
  program
    .command('usage <accountId>')
    .description('Balance, grants and adjustments, totals per operation and the most recent ledger entries.')
    .option('--recent <count>', 'ledger entries to list, newest first', integer(0), 20),
).action((accountId: string, options: TimeRange & { recent: number }) => {
  const within = range(options);
  return runCommand((context) => usage(context, accountId, { ...within, recent: options.recent }));
});

program
  .command('reconcile')
  .description('Settle ledger entries left pending by crashed requests, refunding credits still held.')
  .option(
    '--older-than-seconds <seconds>',
    'only entries at least this old',
    integer(0),
    DEFAULT_RECONCILE_AGE_SECONDS,
  )
  .action((options: { olderThanSeconds: number }) =>
    runCommand((context) => reconcile(context, options.olderThanSeconds)),
  );

program
  .command('migrate')
  .description(
    'Copy the embedded DynamoDB under DATA_DIR (the default store before SQLite) into DATA_DIR/lookup.sqlite.',
  )
  // Loaded on use: it reads DynamoDB, which no other command on SQLite loads.
  .action(() =>
    runStandalone(async (config) =>
      (await import('../../shared/store/migrate-embedded-dynamo.js')).migrateEmbeddedDynamo(config),
    ),
  );

await program.parseAsync().catch(reportFailure);
