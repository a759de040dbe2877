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
    for (const args of [[], ['org', 'create', '--name', 'X'], ['org', 'create', '--name', 'X', '--admin-email', 'not-an-email'], ['client', 'create', '--org', 'nope'], ['client', 'delete', '--client', 'cl_none'], ['frobnicate'], ['api-key', 'rotate', '--org']]) {
      const { code, stdout, stderr } = await admin(...args);
      expect(code, args.join(' ')).to.not.equal(0);
      expect(stdout).to.equal('');
      expect(stderr).to.match(/^error: /);
    }
  });
});
