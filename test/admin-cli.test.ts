import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { harness } from './support/harness';
import { Client, expectStatus, problemOf } from './support/client';
import { ROOT } from '../src/paths';

const CLI = join(ROOT, 'dist', 'src', 'admin', 'cli.js');

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: harness().databaseUrl } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as unknown as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('admin CLI', function () {
  this.timeout(60_000);
  // The CLI writes to DATABASE_URL (harness().databaseUrl): the service's own database, in process
  // and through API_BASE_URL alike (the harness requires DATABASE_URL to name the database the
  // server at API_BASE_URL uses, as `npm run proxy-check` does), so these run through the proxy too.

  it('org create prints the organization, its admin user, an API key and an OAuth client', async () => {
    const { code, stdout } = await admin('org', 'create', '--name', 'Granite Peak Builders', '--admin-email', 'lena.ortiz@granitepeak.example');
    expect(code).to.equal(0);
    const out = JSON.parse(stdout);
    expect(Object.keys(out)).to.have.members(['organization', 'user', 'apiKey', 'oauthClient']);
    expect(out.organization.name).to.equal('Granite Peak Builders');
    expect(out.user.email).to.equal('lena.ortiz@granitepeak.example');
    expect(Object.keys(out.oauthClient)).to.have.members(['clientId', 'clientSecret']);
    expectStatus(await new Client(out.apiKey).get('/tax-codes'), 200);

    const client = JSON.parse((await admin('client', 'create', '--org', out.organization.id)).stdout);
    expect(client.clientId).to.be.a('string');
    expect(client.clientSecret).to.be.a('string');

    const rotated = JSON.parse((await admin('api-key', 'rotate', '--org', out.organization.id)).stdout);
    problemOf(await new Client(out.apiKey).get('/tax-codes'), 401);
    expectStatus(await new Client(rotated.apiKey).get('/tax-codes'), 200);

    expect((await admin('client', 'delete', '--client', client.clientId)).code).to.equal(0);

    const demo = await admin('demo-data', '--org', out.organization.id);
    expect(demo.code, demo.stderr).to.equal(0);
    const codes = expectStatus(await new Client(rotated.apiKey).get('/tax-codes'), 200).body.map((t: { code: string }) => t.code);
    expect(codes).to.include('TX-CA');
    const again = await admin('demo-data', '--org', out.organization.id);
    expect(again.code).to.not.equal(0);
    expect(again.stderr).to.match(/already loaded/);
  });

  it('fails clearly on bad arguments', async () => {
    for (const args of [
      [],
      ['org', 'create', '--name', 'X'],
      ['org', 'create', '--name', 'X', '--admin-email', 'not-an-email'],
      ['client', 'create', '--org', 'nope'],
      ['client', 'delete', '--client', 'cl_none'],
      ['frobnicate'],
      ['api-key', 'rotate', '--org'],
    ]) {
      const { code, stdout, stderr } = await admin(...args);
      expect(code, args.join(' ')).to.not.equal(0);
      expect(stdout).to.equal('');
      expect(stderr).to.match(/^error: /);
    }
  });

  it('answers --help for every command, on stdout with exit code 0, naming each option', async () => {
    const general = await admin('--help');
    expect(general.code).to.equal(0);
    const commands = general.stdout
      .split('Commands:\n')[1]
      .split('\n\n')[0]
      .split('\n')
      .map((line) => /^ {2}(\S+(?: [a-z-]+)?)\s{2,}/.exec(line)?.[1])
      .filter((c): c is string => !!c);
    expect(commands).to.include.members([
      'org create',
      'org list',
      'org show',
      'org setting',
      'client create',
      'client delete',
      'api-key rotate',
      'demo-data',
      'demo create',
      'vendor link',
    ]);
    for (const command of commands) {
      const help = await admin(...command.split(' '), '--help');
      expect(help.code, command).to.equal(0);
      expect(help.stdout, command).to.match(new RegExp(`^Usage: npm run admin -- ${command}`));
      for (const option of help.stdout.match(/--[a-z-]+ </g) ?? []) expect(help.stdout).to.contain(`\n  ${option}`);
    }
    expect((await admin('help', 'org', 'show')).stdout).to.match(/^Usage: npm run admin -- org show --org <organizationId>/);
  });

  it('a command group with --help lists its commands (exit 0); a group without a command is an error listing them (exit 2)', async () => {
    const general = (await admin('--help')).stdout;
    const groups = new Map<string, string[]>();
    for (const [, name] of general.matchAll(/^ {2}([a-z-]+ [a-z-]+)\s{2,}/gm)) {
      const group = name.split(' ')[0];
      groups.set(group, [...(groups.get(group) ?? []), name]);
    }
    expect([...groups.keys()]).to.include.members(['org', 'client', 'api-key', 'demo', 'vendor']);
    for (const [group, commands] of groups) {
      const help = await admin(group, '--help');
      expect(help.code, `${group} --help: ${help.stderr}`).to.equal(0);
      expect(help.stdout).to.match(new RegExp(`^Usage: npm run admin -- ${group} <command>`));
      const listed = [...help.stdout.matchAll(/^ {2}([a-z-]+ [a-z-]+)\s{2,}/gm)].map((m) => m[1]);
      expect(listed, group).to.deep.equal(commands);
      expect((await admin(group, '-h')).stdout).to.equal(help.stdout);
      expect((await admin('help', group)).stdout).to.equal(help.stdout);
      const bare = await admin(group);
      expect(bare.code, group).to.equal(2);
      expect(bare.stdout).to.equal('');
      expect(bare.stderr).to.equal(`error: ${group} needs a command\n\n${help.stdout}`);
    }
    const unknown = await admin('org', 'frobnicate');
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.match(/^error: unknown command org frobnicate\n\nUsage: npm run admin -- org <command>/);
  });

  it("org setting prints one object, the organization's settings after the change, however many settings it is given", async () => {
    const created = JSON.parse((await admin('org', 'create', '--name', 'Cobalt Creek Builders', '--admin-email', 'ines.ward@cobaltcreek.example')).stdout);
    const id: string = created.organization.id;
    const settings = async (...args: string[]) => {
      const { code, stdout, stderr } = await admin('org', 'setting', '--org', id, ...args);
      expect(code, stderr).to.equal(0);
      expect(stdout.trim().split('\n'), 'one line of JSON').to.have.length(1);
      return JSON.parse(stdout);
    };
    expect(await settings('--po-counter', 'on', '--rate-limit-burst', '50', '--rate-limit-hourly', '20000')).to.deep.equal({
      organization: { id },
      poCounter: 'on',
      rateLimits: { burst: 50, hourly: 20000 },
      loopbackWebhooks: 'off',
    });
    expect(await settings('--rate-limit-hourly', 'default', '--loopback-webhooks', 'on')).to.deep.equal({
      organization: { id },
      poCounter: 'on',
      rateLimits: { burst: 50, hourly: 'default' },
      loopbackWebhooks: 'on',
    });
    expect(await settings('--po-counter', 'off', '--loopback-webhooks', 'off')).to.deep.equal({
      organization: { id },
      poCounter: 'off',
      rateLimits: { burst: 50, hourly: 'default' },
      loopbackWebhooks: 'off',
    });
    const row = await harness().db('organizations').where({ id }).first('po_counter_enabled', 'rate_limit_burst', 'rate_limit_hourly');
    expect(row).to.deep.equal({ po_counter_enabled: false, rate_limit_burst: 50, rate_limit_hourly: null });

    // A bad value among them changes nothing.
    const bad = await admin('org', 'setting', '--org', id, '--po-counter', 'on', '--rate-limit-burst', '0');
    expect(bad.code).to.equal(2);
    expect(bad.stdout).to.equal('');
    expect(await harness().db('organizations').where({ id }).first('po_counter_enabled')).to.deep.equal({ po_counter_enabled: false });
    const missing = await admin('org', 'setting', '--org', '00000000-0000-4000-8000-000000000000', '--po-counter', 'on', '--rate-limit-burst', '5');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/^error: organization .* does not exist\n$/);
  });

  it("api-key rotate and client create take a credential's own --rate-limit-burst/--rate-limit-hourly (in --help); org show lists each credential's limits", async () => {
    for (const command of [
      ['api-key', 'rotate'],
      ['client', 'create'],
    ]) {
      const help = (await admin(...command, '--help')).stdout;
      expect(help, command.join(' ')).to.contain('\n  --rate-limit-burst <n>');
      expect(help, command.join(' ')).to.contain('\n  --rate-limit-hourly <n>');
      expect(help, command.join(' ')).to.match(/besides the organization's/);
    }
    const created = JSON.parse((await admin('org', 'create', '--name', 'Granite Span Builders', '--admin-email', 'li.wei@granitespan.example')).stdout);
    const org = created.organization.id;
    const key = await admin('api-key', 'rotate', '--org', org, '--rate-limit-burst', '3', '--rate-limit-hourly', '500');
    expect(key.code, key.stderr).to.equal(0);
    expect(JSON.parse(key.stdout).rateLimits).to.deep.equal({ burst: 3, hourly: 500 });
    const client = JSON.parse((await admin('client', 'create', '--org', org, '--rate-limit-hourly', '900')).stdout);
    expect(client.rateLimits).to.deep.equal({ burst: 'organization', hourly: 900 });
    const bad = await admin('client', 'create', '--org', org, '--rate-limit-burst', '-1');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/--rate-limit-burst must be a positive integer/);

    const shown = JSON.parse((await admin('org', 'show', '--org', org)).stdout);
    const live = shown.apiKeys.find((k: { revoked: boolean }) => !k.revoked);
    expect(live.rateLimits).to.deep.equal({ burst: 3, hourly: 500 });
    expect(shown.apiKeys.find((k: { revoked: boolean }) => k.revoked).rateLimits).to.deep.equal({ burst: 'organization', hourly: 'organization' });
    const limitsOf = (id: string) => shown.oauthClients.find((c: { clientId: string }) => c.clientId === id).rateLimits;
    expect(limitsOf(client.clientId)).to.deep.equal({ burst: 'organization', hourly: 900 });
    expect(limitsOf(created.oauthClient.clientId)).to.deep.equal({ burst: 'organization', hourly: 'organization' });
  });

  it("org list shows every organization (id, name, created) and org show its credentials' ids, never a secret", async () => {
    const created = JSON.parse((await admin('org', 'create', '--name', 'Basalt Ridge Contractors', '--admin-email', 'ana.silva@basaltridge.example')).stdout);
    const client = JSON.parse((await admin('client', 'create', '--org', created.organization.id)).stdout);
    const list = await admin('org', 'list');
    expect(list.code, list.stderr).to.equal(0);
    const row = (JSON.parse(list.stdout) as { id: string; name: string; createdAt: string }[]).find((o) => o.id === created.organization.id);
    expect(row).to.include({ name: 'Basalt Ridge Contractors' });
    expect(row!.createdAt).to.match(/^\d{4}-\d\d-\d\dT.*Z$/);

    const show = await admin('org', 'show', '--org', created.organization.id);
    expect(show.code, show.stderr).to.equal(0);
    const shown = JSON.parse(show.stdout);
    expect(shown.organization).to.include({ id: created.organization.id, name: 'Basalt Ridge Contractors', demoData: false });
    expect(shown.apiKeys).to.have.length(1);
    expect(shown.apiKeys[0]).to.have.keys(['id', 'createdAt', 'revoked', 'rateLimits', 'apiVersion']);
    expect(shown.apiKeys[0].rateLimits).to.deep.equal({ burst: 'organization', hourly: 'organization' });
    expect(shown.oauthClients.map((c: { clientId: string }) => c.clientId)).to.have.members([created.oauthClient.clientId, client.clientId]);
    for (const secret of [created.apiKey, created.oauthClient.clientSecret, client.clientSecret]) expect(show.stdout).to.not.contain(secret);
    expect(show.stdout).to.not.match(/hash/i);

    for (const args of [
      ['org', 'show', '--org', '00000000-0000-4000-8000-000000000000'],
      ['org', 'show', '--org', 'nope'],
    ]) {
      const missing = await admin(...args);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.match(/^error: organization .* does not exist\n$/);
    }
  });
});
