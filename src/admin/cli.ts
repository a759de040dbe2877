import { parseScopes, type Scope } from '../auth/scopes';
import { loadConfig } from '../config';
import { openDatabase } from '../db/connect';
import { createDemoOrganization, loadDemoData } from './demo';
import { linkVendor } from './vendor-link';
import { ProvisionError, createClient, createOrganization, deleteClient, rotateApiKey, setOrganizationSetting } from './provision';
import { setRateLimits } from './rate-limits';

/**
 * The admin CLI: `npm run admin -- <command>`. Works against DATABASE_URL, or the embedded
 * PostgreSQL when it is unset. Prints JSON on stdout; errors go to stderr with a non-zero exit.
 */
const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  org create --name <name> --admin-email <email>   create an organization, its admin user, an API key and an OAuth client
  client create --org <organizationId> [--scopes read|read,write]
                                                   issue a new OAuth client (id and secret are printed once);
                                                   --scopes read: its tokens may only read (default: read,write)
  client delete --client <clientId>                delete an OAuth client; its tokens stop working at once
  api-key rotate --org <organizationId> [--scopes read|read,write]
                                                   issue a new API key; the previous one stops working at once
  demo-data --org <organizationId>                 load the demo dataset into an organization
  demo create                                      create a new organization holding the demo dataset
  org setting --org <organizationId> [--po-counter <on|off>] [--rate-limit-burst <n>] [--rate-limit-hourly <n>]
                                                   --po-counter: enable POST /jobs/{idOrCode}/nextPurchaseOrderNumber (support request)
                                                   --rate-limit-burst/--rate-limit-hourly: the organization's requests per
                                                   second / per hour (a positive integer, or "default" for RATE_LIMIT_*)
  vendor link --org <buyerOrgId> --vendor <vendorCode> --seller-org <sellerOrgId>
                                                   link a buyer's vendor to the seller organization it stands for
                                                   (the seller can then look up the buyer's orders to that vendor)
`;

class UsageError extends Error {}

function parseOptions(args: string[]): Record<string, string> {
  const opts: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument ${a}`);
    const [key, inline] = a.slice(2).split('=', 2);
    const value = inline ?? args[++i];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${key} needs a value`);
    opts[key] = value;
  }
  return opts;
}

function need(opts: Record<string, string>, ...keys: string[]): void {
  const allowed = new Set(keys);
  for (const k of Object.keys(opts)) if (!allowed.has(k)) throw new UsageError(`unknown option --${k}`);
  for (const k of keys) if (!opts[k]) throw new UsageError(`--${k} is required`);
}

async function run(argv: string[]): Promise<unknown> {
  const [group, action, ...rest] = argv;
  const command = [group, action].filter(Boolean).join(' ');
  const known = ['org create', 'client create', 'client delete', 'api-key rotate', 'demo create', 'org setting', 'vendor link'];
  const isDemoData = group === 'demo-data';
  if (!group || (!isDemoData && !known.includes(command))) throw new UsageError(group ? `unknown command ${command}` : 'a command is required');
  const opts = parseOptions(isDemoData ? argv.slice(1) : rest);
  // The one optional option: taken out before each command's required options are checked.
  const scopesOption = opts.scopes;
  delete opts.scopes;
  if (command === 'org create') need(opts, 'name', 'admin-email');
  else if (command === 'client create' || command === 'api-key rotate' || isDemoData) need(opts, 'org');
  else if (command === 'client delete') need(opts, 'client');
  else if (command === 'demo create') need(opts);
  else if (command === 'vendor link') need(opts, 'org', 'vendor', 'seller-org');
  else if (command === 'org setting') {
    const settings = ['po-counter', 'rate-limit-burst', 'rate-limit-hourly'].filter((k) => k in opts);
    need(opts, 'org', ...settings);
    if (!settings.length) throw new UsageError('org setting needs --po-counter, --rate-limit-burst or --rate-limit-hourly');
    if ('po-counter' in opts && !['on', 'off'].includes(opts['po-counter'])) throw new UsageError('--po-counter must be on or off');
    for (const k of ['rate-limit-burst', 'rate-limit-hourly']) {
      if (k in opts && opts[k] !== 'default' && !/^[1-9][0-9]{0,8}$/.test(opts[k])) throw new UsageError(`--${k} must be a positive integer or default`);
    }
  }

  let scopes: Scope[] | undefined;
  if (scopesOption !== undefined) {
    if (command !== 'client create' && command !== 'api-key rotate') throw new UsageError('--scopes applies to client create and api-key rotate');
    try {
      scopes = parseScopes(scopesOption);
    } catch (err) {
      throw new UsageError(`--scopes: ${(err as Error).message}`);
    }
  }

  const database = await openDatabase(loadConfig());
  try {
    const db = database.db;
    if (isDemoData) {
      await loadDemoData(db, opts.org);
      return { organization: { id: opts.org }, demoData: 'loaded' };
    }
    switch (command) {
      case 'org create':
        return await createOrganization(db, { name: opts.name, adminEmail: opts['admin-email'] });
      case 'client create':
        return await createClient(db, opts.org, scopes);
      case 'client delete':
        return await deleteClient(db, opts.client);
      case 'api-key rotate':
        return await rotateApiKey(db, opts.org, scopes);
      case 'demo create':
        return await createDemoOrganization(db);
      case 'org setting': {
        const limit = (k: string) => (k in opts ? (opts[k] === 'default' ? null : Number(opts[k])) : undefined);
        const burst = limit('rate-limit-burst');
        const hourly = limit('rate-limit-hourly');
        const rateLimits = burst !== undefined || hourly !== undefined ? await setRateLimits(db, opts.org, { burst, hourly }) : undefined;
        if (!('po-counter' in opts)) return rateLimits;
        const poCounter = await setOrganizationSetting(db, opts.org, 'po-counter', opts['po-counter'] === 'on');
        return rateLimits ? { ...poCounter, rateLimits: rateLimits.rateLimits } : poCounter;
      }
      case 'vendor link':
        return await linkVendor(db, opts.org, opts.vendor, opts['seller-org']);
    }
  } finally {
    await database.close();
  }
}

run(process.argv.slice(2)).then(
  (out) => {
    process.stdout.write(JSON.stringify(out) + '\n');
  },
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    const known = err instanceof ProvisionError || /does not exist|already loaded|has no user/.test(String(err?.message));
    process.stderr.write(`error: ${known ? err.message : 'unexpected failure: ' + (err?.message ?? err)}\n`);
    process.exit(1);
  },
);
