/**
 * `npm run admin -- <command>`: the operator CLI for accounts, credits, keys, usage and ledger
 * reconciliation, and the migration of an embedded-DynamoDB DATA_DIR into SQLite. Works beside a
 * running `npm start` or alone. Prints JSON on stdout; a failure is one JSON line on stderr
 * (`{"error":{"code","message"}}`) and exit code 1.
 */
import { Command } from 'commander';
import { migrateEmbeddedDynamo } from '../../shared/store/migrate-embedded-dynamo.js';
import { futureInstant, integer, scopes, text } from './arguments.js';
import {
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
  revokeKey,
  setAccountStatus,
  showAccount,
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

Output: JSON on stdout. Errors: one JSON line on stderr, {"error":{"code","message"}}, exit code 1.`;

// Settings made before the commands are added are inherited by every subcommand: errors are thrown
// to reportFailure instead of printed by commander, so they come out as JSON.
const program = new Command('admin')
  .description('Operate accounts, credits and API keys.')
  .exitOverride()
  .configureOutput({ writeErr: () => undefined, outputError: () => undefined })
  .addHelpText('afterAll', SETTINGS_HELP);

const accounts = program.command('accounts').description('Create, inspect, suspend and resume accounts.');
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
  .option('--scopes <families>', 'comma-separated families the first key may call (default: all)', scopes)
  .action((options: NewAccountOptions) => runCommand((context) => createAccount(context, options)));
accounts
  .command('list')
  .description('List every account with its balance.')
  .action(() => runCommand(listAccounts));
accounts
  .command('show <accountId>')
  .description('Show an account with its balance and keys.')
  .action((accountId: string) => runCommand((context) => showAccount(context, accountId)));
accounts
  .command('suspend <accountId>')
  .description('Refuse every request of the account (403) until resumed.')
  .action((accountId: string) => runCommand((context) => setAccountStatus(context, accountId, 'suspended')));
accounts
  .command('resume <accountId>')
  .description('Serve a suspended account again.')
  .action((accountId: string) => runCommand((context) => setAccountStatus(context, accountId, 'active')));

accounts
  .command('link-oauth <accountId>')
  .description('Let an OAuth identity of OAUTH_ISSUER use the account on /mcp (its credits and limits).')
  .requiredOption('--subject <subject>', 'the `sub` claim of its access tokens', text)
  .action((accountId: string, options: { subject: string }) =>
    runCommand((context) => linkOAuth(context, accountId, options.subject)),
  );
accounts
  .command('unlink-oauth')
  .description('Stop an OAuth identity from using its account.')
  .requiredOption('--subject <subject>', 'the `sub` claim of its access tokens', text)
  .action((options: { subject: string }) => runCommand((context) => unlinkOAuth(context, options.subject)));

program
  .command('credits')
  .description('Manage credit balances.')
  .command('grant')
  .description('Add credits to an account.')
  .argument('<accountId>')
  .argument('<credits>', 'credits to add', integer(1))
  .action((accountId: string, credits: number) =>
    runCommand((context) => grantCredits(context, accountId, credits)),
  );

const keys = program.command('keys').description('Issue, revoke and list API keys.');
keys
  .command('issue <accountId>')
  .description('Issue another API key (shown only here).')
  .option('--scopes <families>', 'comma-separated families the key may call (default: all)', scopes)
  .option('--expires-at <iso>', 'ISO 8601 date or date-time after which the key stops working', futureInstant)
  .option('--label <label>', "operator's note on what the key is for", text)
  .action((accountId: string, options: NewKeyOptions) =>
    runCommand((context) => issueKey(context, accountId, options)),
  );
keys
  .command('revoke <accountId> <keyId>')
  .description('Revoke a key; running servers honour it within KEY_CACHE_SECONDS.')
  .action((accountId: string, keyId: string) =>
    runCommand((context) => revokeKey(context, accountId, keyId)),
  );
keys
  .command('list <accountId>')
  .description("List an account's keys (never the keys themselves).")
  .action((accountId: string) => runCommand((context) => listKeys(context, accountId)));

program
  .command('usage <accountId>')
  .description('Balance, totals per operation and the most recent ledger entries.')
  .option('--recent <count>', 'ledger entries to list, newest first', integer(0), 20)
  .action((accountId: string, options: { recent: number }) =>
    runCommand((context) => usage(context, accountId, options.recent)),
  );

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
  .action(() => runStandalone((config) => migrateEmbeddedDynamo(config)));

await program.parseAsync().catch(reportFailure);
