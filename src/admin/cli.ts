#!/usr/bin/env node
import type { Knex } from 'knex';
import { ConfigError, loadConfig, loadDotEnv } from '../config';
import { openDatabase } from '../db/connect';
import { parseScopes, type Scope } from '../auth/scopes';
import { createDemoOrganization, loadDemoData } from './demo';
import { linkVendor } from './vendor-link';
import { listOrganizations, showOrganization } from './organizations';
import { pinCredential } from './api-versions';
import { deprecatedUsage } from '../versions/usage';
import { isUuid } from '../db/columns';
import { ProvisionError, createClient, createOrganization, deleteClient, rotateApiKey } from './provision';
import { setOrganizationSettings } from './org-settings';

/**
 * The admin CLI: `npm run admin -- <command>` (compiled code: scripts/admin.mjs builds first only
 * when src/ changed since the last build). Works against DATABASE_URL, or the embedded PostgreSQL
 * when it is unset. Prints JSON on stdout; errors go to stderr with a non-zero exit.
 *
 * Each command is one entry of COMMANDS: its options (with the text `--help` shows) and what it
 * does. A new option is one line in `options` and its use in `run`.
 */
interface Option {
  /** How the value is shown in the help, e.g. `<organizationId>`. */
  value: string;
  help: string;
  required?: boolean;
  choices?: string[];
}
interface Command {
  summary: string;
  options: Record<string, Option>;
  /** For commands that need at least one of their optional options (`org setting`). */
  atLeastOne?: boolean;
  run(db: Knex, opts: Record<string, string>): Promise<unknown>;
}

const ORG: Option = { value: '<organizationId>', help: 'the organization (`org list` shows the ids)', required: true };
const SCOPES: Option = { value: '<read|read,write>', help: 'what its credentials may do: `read` only reads (default: read,write)' };
const RATE: Option = { value: '<n|default>', help: '' };
/** A credential's own limits: counted for it alone, besides its organization's (which always apply). */
const CREDENTIAL_LIMITS: Record<string, Option> = {
  'rate-limit-burst': { value: '<n>', help: "its own requests per second, besides the organization's (default: only the organization's)" },
  'rate-limit-hourly': { value: '<n>', help: "its own requests per hour, besides the organization's (default: only the organization's)" },
};
const credentialLimitsOf = (o: Record<string, string>) => ({ burst: limitOf(o, 'rate-limit-burst'), hourly: limitOf(o, 'rate-limit-hourly') });

/** `--scopes`: the scopes, or undefined for the default (full access). */
function scopesOf(text: string | undefined): Scope[] | undefined {
  if (text === undefined) return undefined;
  try {
    return parseScopes(text);
  } catch (err) {
    throw new UsageError(`--scopes: ${(err as Error).message}`);
  }
}

/** `--rate-limit-*`: a positive integer, `default` (null: back to RATE_LIMIT_*), or not given. */
function limitOf(opts: Record<string, string>, key: string): number | null | undefined {
  const v = opts[key];
  if (v === undefined) return undefined;
  if (v === 'default') return null;
  if (!/^[1-9][0-9]{0,8}$/.test(v)) throw new UsageError(`--${key} must be a positive integer or default`);
  return Number(v);
}

const COMMANDS: Record<string, Command> = {
  'org create': {
    summary: 'create an organization, its admin user, an API key and an OAuth client (secrets are printed once)',
    options: {
      name: { value: '<name>', help: "the organization's name", required: true },
      'admin-email': { value: '<email>', help: "the admin user's e-mail address", required: true },
    },
    run: (db, o) => createOrganization(db, { name: o.name, adminEmail: o['admin-email'] }),
  },
  'org list': {
    summary: 'list the organizations: id, name, creation time',
    options: {},
    run: (db) => listOrganizations(db),
  },
  'org show': {
    summary: "show an organization and its credentials' ids and own rate limits (API keys, OAuth clients; never a secret)",
    options: { org: ORG },
    run: async (db, o) => (await showOrganization(db, o.org)) ?? Promise.reject(new ProvisionError(`organization ${o.org} does not exist`)),
  },
  'org setting': {
    summary: "change settings switched on by a support request (give at least one); prints all of the organization's settings",
    options: {
      org: ORG,
      'po-counter': { value: '<on|off>', help: 'enable POST /jobs/{jobIdOrCode}/nextPurchaseOrderNumber', choices: ['on', 'off'] },
      'rate-limit-burst': { ...RATE, help: "the organization's requests per second (`default`: RATE_LIMIT_BURST)" },
      'rate-limit-hourly': { ...RATE, help: "the organization's requests per hour (`default`: RATE_LIMIT_HOURLY)" },
      'loopback-webhooks': {
        value: '<on|off>',
        help: 'webhook receivers on this machine (localhost, 127.0.0.1, ::1), also plain http: for development',
        choices: ['on', 'off'],
      },
    },
    atLeastOne: true,
    // Every setting given, in one statement; prints the organization's settings after the change.
    run: (db, o) =>
      setOrganizationSettings(db, o.org, {
        poCounter: o['po-counter'] === undefined ? undefined : o['po-counter'] === 'on',
        rateLimitBurst: limitOf(o, 'rate-limit-burst'),
        rateLimitHourly: limitOf(o, 'rate-limit-hourly'),
        loopbackWebhooks: o['loopback-webhooks'] === undefined ? undefined : o['loopback-webhooks'] === 'on',
      }),
  },
  'client create': {
    summary: 'issue a new OAuth client (id and secret are printed once)',
    options: { org: ORG, scopes: SCOPES, ...CREDENTIAL_LIMITS },
    run: (db, o) => createClient(db, o.org, scopesOf(o.scopes), credentialLimitsOf(o)),
  },
  'client delete': {
    summary: 'delete an OAuth client; its tokens stop working at once',
    options: { client: { value: '<clientId>', help: 'the client id (`org show` lists them)', required: true } },
    run: (db, o) => deleteClient(db, o.client),
  },
  'api-key rotate': {
    summary: 'issue a new API key (printed once); the previous one stops working at once',
    options: { org: ORG, scopes: SCOPES, ...CREDENTIAL_LIMITS },
    run: (db, o) => rotateApiKey(db, o.org, scopesOf(o.scopes), credentialLimitsOf(o)),
  },
  'org deprecated-usage': {
    summary: "the organization's deprecated usage of the last 30 days (credential, API version, operation, what, count, last request id)",
    options: { org: ORG },
    run: async (db, o) => {
      if (!isUuid(o.org)) throw new ProvisionError(`organization ${o.org} does not exist`);
      return deprecatedUsage(db, o.org);
    },
  },
  'api-key version': {
    summary: 'move the API version an API key is pinned to (its requests without Api-Version run at it)',
    options: {
      key: { value: '<apiKeyId>', help: 'the API key id (`org show` lists them with their versions)', required: true },
      version: { value: '<YYYY-MM-DD>', help: 'a supported API version (GET /versions)', required: true },
    },
    run: (db, o) => pinCredential(db, { apiKey: o.key }, o.version),
  },
  'client version': {
    summary: 'move the API version an OAuth client is pinned to (its requests without Api-Version run at it)',
    options: {
      client: { value: '<clientId>', help: 'the client id (`org show` lists them with their versions)', required: true },
      version: { value: '<YYYY-MM-DD>', help: 'a supported API version (GET /versions)', required: true },
    },
    run: (db, o) => pinCredential(db, { client: o.client }, o.version),
  },
  'demo-data': {
    summary: 'load the demo dataset into an organization',
    options: { org: ORG },
    run: async (db, o) => {
      await loadDemoData(db, o.org);
      return { organization: { id: o.org }, demoData: 'loaded' };
    },
  },
  'demo create': {
    summary: 'create a new organization holding the demo dataset',
    options: {},
    run: (db) => createDemoOrganization(db),
  },
  'vendor link': {
    summary: "link a buyer's vendor to the seller organization it stands for (the seller can then look up the buyer's orders to that vendor)",
    options: {
      org: { ...ORG, value: '<buyerOrgId>', help: 'the buyer organization' },
      vendor: { value: '<vendorCode>', help: "the buyer's vendor code", required: true },
      'seller-org': { value: '<sellerOrgId>', help: 'the seller organization', required: true },
    },
    run: (db, o) => linkVendor(db, o.org, o.vendor, o['seller-org']),
  },
};

class UsageError extends Error {}

const usageOf = (name: string, c: Command) =>
  `npm run admin -- ${name}` +
  Object.entries(c.options)
    .map(([k, o]) => (o.required ? ` --${k} ${o.value}` : ` [--${k} ${o.value}]`))
    .join('');

function commandHelp(name: string): string {
  const c = COMMANDS[name];
  const width = Math.max(0, ...Object.entries(c.options).map(([k, o]) => k.length + o.value.length + 3));
  const options = Object.entries(c.options).map(([k, o]) => `  ${`--${k} ${o.value}`.padEnd(width)}  ${o.help}${o.required ? '' : ' (optional)'}`);
  return [`Usage: ${usageOf(name, c)}`, '', c.summary, ...(options.length ? ['', 'Options:', ...options] : [])].join('\n') + '\n';
}

/** The command groups: the first word of the commands of two words (`org`, `client`, ...). */
const GROUPS = new Set(
  Object.keys(COMMANDS)
    .filter((n) => n.includes(' '))
    .map((n) => n.split(' ')[0]),
);

/** A usage line, the commands named, and the closing note. */
function listHelp(usage: string, names: string[]): string {
  const width = Math.max(...names.map((n) => n.length));
  return (
    [
      `Usage: ${usage}`,
      '',
      'Commands:',
      ...names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`),
      '',
      'Works against DATABASE_URL, or the embedded PostgreSQL when it is unset. Prints JSON.',
    ].join('\n') + '\n'
  );
}

function generalHelp(): string {
  return listHelp('npm run admin -- <command> [options]   (`npm run admin -- <command> --help` for its options)', Object.keys(COMMANDS));
}

/** The commands of a group (`org --help`). */
function groupHelp(group: string): string {
  const names = Object.keys(COMMANDS).filter((n) => n.startsWith(group + ' '));
  return listHelp(`npm run admin -- ${group} <command> [options]   (\`npm run admin -- ${group} <command> --help\` for its options)`, names);
}

/** The help that fits the arguments: the command's, its group's, or the general one. */
function helpFor(argv: string[]): string {
  const named = findCommand(argv);
  if (named) return commandHelp(named.name);
  return GROUPS.has(argv[0]) ? groupHelp(argv[0]) : generalHelp();
}

function parseOptions(args: string[], command: Command): Record<string, string> {
  const opts: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument ${a}`);
    const [key, inline] = a.slice(2).split('=', 2);
    if (!(key in command.options)) throw new UsageError(`unknown option --${key}`);
    const value = inline ?? args[++i];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${key} needs a value`);
    const choices = command.options[key].choices;
    if (choices && !choices.includes(value)) throw new UsageError(`--${key} must be ${choices.join(' or ')}`);
    opts[key] = value;
  }
  for (const [key, o] of Object.entries(command.options)) if (o.required && !opts[key]) throw new UsageError(`--${key} is required`);
  const optional = Object.keys(command.options).filter((k) => !command.options[k].required);
  if (command.atLeastOne && !optional.some((k) => opts[k])) throw new UsageError(`give at least one of ${optional.map((k) => '--' + k).join(', ')}`);
  return opts;
}

/** The command named by the first one or two words, and the arguments after it. */
function findCommand(argv: string[]): { name: string; args: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    if (COMMANDS[name]) return { name, args: argv.slice(words) };
  }
  return undefined;
}

async function main(argv: string[]): Promise<string> {
  const wantsHelp = (args: string[]) => args.includes('--help') || args.includes('-h');
  if (argv.length === 0) throw new UsageError('a command is required');
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') return helpFor(argv.slice(1));
  const found = findCommand(argv);
  if (!found) {
    // A group with --help (`org --help`): its commands; without a command of it: an error with them.
    if (GROUPS.has(argv[0]) && wantsHelp(argv.slice(1))) return groupHelp(argv[0]);
    if (GROUPS.has(argv[0]) && (argv.length === 1 || argv[1].startsWith('-'))) throw new UsageError(`${argv[0]} needs a command`);
    throw new UsageError(
      `unknown command ${argv
        .filter((a) => !a.startsWith('-'))
        .slice(0, 2)
        .join(' ')}`,
    );
  }
  if (wantsHelp(found.args)) return commandHelp(found.name);
  const command = COMMANDS[found.name];
  const opts = parseOptions(found.args, command);

  loadDotEnv();
  const database = await openDatabase(loadConfig());
  try {
    return JSON.stringify(await command.run(database.db, opts)) + '\n';
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (out) => {
    process.stdout.write(out);
  },
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${helpFor(process.argv.slice(2))}`);
      process.exit(2);
    }
    if (err instanceof ConfigError) {
      process.stderr.write(err.problems.map((p) => `error: ${p}\n`).join(''));
      process.exit(1);
    }
    const known = err instanceof ProvisionError || /does not exist|already loaded|has no user/.test(String(err?.message));
    process.stderr.write(`error: ${known ? err.message : 'unexpected failure: ' + (err?.message ?? err)}\n`);
    process.exit(1);
  },
);
