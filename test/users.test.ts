import { expect } from 'chai';
import { expectStatus, newOrg, problemOf, TestOrg } from './support/client';
import { harness } from './support/harness';
import { expectForeignLikeMissing, MISSING_ID } from './support/tenancy';
import { deliverPending } from '../src/mail/mailer';
import { itDirect, PRISM } from './support/proxy';
import { startSmtp } from './support/smtp';

// The test SMTP server's certificate is self-signed.
const TEST_TLS = { rejectUnauthorized: false };

type User = {
  id: string;
  email: string;
  displayName: string;
  firstName: string;
  lastName: string;
  admin: boolean;
  avatarUrl: string | null;
  phone: string | null;
  role: string;
};

describe('users', () => {
  let org: TestOrg;
  let other: TestOrg;
  before(async () => {
    org = await newOrg();
    other = await newOrg();
    for (const [first, last, role] of [
      ['Maria', 'Chen', 'Field'],
      ['Dev', 'Patel', 'FieldOrdering'],
      ['Lena', 'Okafor', 'Warehouse'],
    ] as const) {
      expectStatus(
        await org.api.post('/users', { email: `${first.toLowerCase()}.${last.toLowerCase()}@summitridge.example`, firstName: first, lastName: last, role }),
        201,
      );
    }
  });

  it('creates a user with defaults and a display name from the names', async () => {
    const u = expectStatus(
      await org.api.post('/users', { email: 'Sam.Rivera@SummitRidge.example', firstName: 'Sam', lastName: 'Rivera', role: 'BackOffice' }),
      201,
    ).body as User;
    expect(u).to.include({
      email: 'Sam.Rivera@SummitRidge.example',
      firstName: 'Sam',
      lastName: 'Rivera',
      displayName: 'Sam Rivera',
      role: 'BackOffice',
      admin: false,
      avatarUrl: null,
      phone: null,
    });
    const full = expectStatus(
      await org.api.post('/users', {
        email: 'jo.kim@summitridge.example',
        firstName: 'Jo',
        lastName: 'Kim',
        role: 'Procurement',
        admin: true,
        avatarUrl: 'https://files.example/jo.png',
        phone: '+1 916 555 0199',
      }),
      201,
    ).body as User;
    expect(full).to.include({ admin: true, avatarUrl: 'https://files.example/jo.png', phone: '+1 916 555 0199' });
  });

  itDirect('validates required fields and the role enum', PRISM.invalidRequest('an invalid email, an unlisted role, no firstName or lastName'), async () => {
    const p = problemOf(await org.api.unchecked.post('/users', { email: 'not-an-email', role: 'Boss' }), 400);
    expect(p.errors.map((e) => e.field)).to.include.members(['body.email', 'body.firstName', 'body.lastName', 'body.role']);
  });

  it('rejects a duplicate e-mail regardless of case with 409 naming body.email', async () => {
    const p = problemOf(await org.api.post('/users', { email: 'MARIA.CHEN@summitridge.example', firstName: 'M', lastName: 'C', role: 'Field' }), 409);
    expect(p.errors[0]).to.include({ field: 'body.email', rule: 'unique' });
    // Another organization may use the same address.
    expectStatus(await other.api.post('/users', { email: 'maria.chen@summitridge.example', firstName: 'Maria', lastName: 'Chen', role: 'Field' }), 201);
  });

  it('reads a user by id or by e-mail in any case', async () => {
    const byEmail = expectStatus(await org.api.get('/users/DEV.PATEL@summitridge.example'), 200).body as User;
    expect(byEmail).to.include({ displayName: 'Dev Patel', role: 'FieldOrdering' });
    expect(expectStatus(await org.api.get(`/users/${byEmail.id}`), 200).body).to.deep.equal(byEmail);
    problemOf(await org.api.get('/users/nobody@summitridge.example'), 404);
  });

  it('lists users with the allowed orderBy and filter fields', async () => {
    const byName = expectStatus(await org.api.get('/users?orderBy=displayName'), 200).body as User[];
    const names = byName.map((u) => u.displayName);
    expect(names).to.deep.equal([...names].sort());
    const warehouse = expectStatus(await org.api.get('/users?filter[email_starts_with]=lena'), 200).body as User[];
    expect(warehouse.map((u) => u.displayName)).to.deep.equal(['Lena Okafor']);
    const admins = expectStatus(await org.api.get('/users?filter[admin]=true'), 200).body as User[];
    expect(admins.length).to.be.greaterThan(0);
    expect(admins.every((u) => u.admin)).to.equal(true);
    const withPhone = expectStatus(await org.api.get('/users?filter[phone]=%2B1%20916%20555%200199'), 200).body as User[];
    expect(withPhone.map((u) => u.displayName)).to.deep.equal(['Jo Kim']);
    problemOf(await org.api.get('/users?filter[role]=Field'), 400);
  });

  itDirect('rejects an orderBy the contract does not list', PRISM.invalidRequest('orderBy=lastName'), async () => {
    problemOf(await org.api.get('/users?orderBy=lastName'), 400);
  });

  it("answers another organization's user like a missing one", async () => {
    const u = expectStatus(await org.api.get('/users/maria.chen@summitridge.example'), 200).body as User;
    await expectForeignLikeMissing(other, 'GET', `/users/${u.id}`, `/users/${MISSING_ID}`);
    const theirs = expectStatus(await other.api.get('/users'), 200).body as User[];
    expect(theirs.map((x) => x.id)).not.to.include(u.id);
  });

  describe('registration e-mail', () => {
    it('is queued in the outbox with the user', async () => {
      const u = expectStatus(
        await org.api.post('/users', { email: 'pat.nguyen@summitridge.example', firstName: 'Pat', lastName: 'Nguyen', role: 'Field' }),
        201,
      ).body as User;
      const rows = await harness().db('outbox_emails').where({ organization_id: org.id }).whereRaw('to_address LIKE ?', ['%pat.nguyen@summitridge.example%']);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ kind: 'registration', sent_at: null, attempts: 0 });
      expect(rows[0].subject).to.match(/Welcome/);
      expect(rows[0].body).to.include('Hello Pat').and.include(u.email);
    });

    it('is not queued when the user is not created', async () => {
      const before = await harness().db('outbox_emails').where({ organization_id: org.id }).count('* as n');
      problemOf(await org.api.post('/users', { email: 'maria.chen@summitridge.example', firstName: 'M', lastName: 'C', role: 'Field' }), 409);
      const after = await harness().db('outbox_emails').where({ organization_id: org.id }).count('* as n');
      expect(after[0].n).to.equal(before[0].n);
    });

    it('is delivered through SMTP with STARTTLS and authentication, as one well-formed MIME message', async () => {
      const mailOrg = await newOrg();
      expectStatus(
        await mailOrg.api.post('/users', { email: 'riley.brooks@summitridge.example', firstName: 'Riley', lastName: 'Brooks', role: 'Warehouse' }),
        201,
      );
      const smtp = await startSmtp();
      try {
        const url = `smtp://mailer:s3cret@127.0.0.1:${smtp.port}?from=no-reply@summitridge.example`;
        const result = await deliverPending(harness().db, url, { organizationId: mailOrg.id, tls: TEST_TLS });
        expect(result).to.deep.equal({ sent: 1, failed: 0 });
        // Sent mail is not sent again.
        expect(await deliverPending(harness().db, url, { organizationId: mailOrg.id, tls: TEST_TLS })).to.deep.equal({ sent: 0, failed: 0 });
      } finally {
        await smtp.close();
      }
      expect(smtp.auths).to.deep.equal([{ username: 'mailer', password: 's3cret', secure: true }]);
      expect(smtp.messages).to.have.length(1);
      const [message] = smtp.messages;
      expect(message).to.include({ from: 'no-reply@summitridge.example', secure: true });
      expect(message.to).to.deep.equal(['riley.brooks@summitridge.example']);
      expect(message.raw)
        .to.match(/^Subject: Welcome to /m)
        .and.match(/^MIME-Version: 1\.0$/m)
        .and.match(/^Content-Type: text\/plain; charset=utf-8$/m);
      expect(message.raw).to.include('Hello Riley');
      // RFC 5322 2.1.1: no line longer than 998 characters.
      expect(Math.max(...message.raw.split('\r\n').map((l) => l.length))).to.be.at.most(998);
      const row = await harness().db('outbox_emails').where({ organization_id: mailOrg.id }).first();
      expect(row.sent_at).to.be.instanceOf(Date);
      expect(row.attempts).to.equal(1);
      expect(row.claimed_at).to.equal(null);
    });

    it('a stopping run sends no further message and gives the others back at once, due for the next run', async () => {
      const mailOrg = await newOrg();
      for (const name of ['Ada', 'Bo', 'Cy'])
        expectStatus(
          await mailOrg.api.post('/users', { email: `${name.toLowerCase()}.stop@summitridge.example`, firstName: name, lastName: 'Stop', role: 'Field' }),
          201,
        );
      const smtp = await startSmtp();
      try {
        const url = `smtp://mailer:s3cret@127.0.0.1:${smtp.port}?from=no-reply@summitridge.example`;
        // Stopping once the first message is out.
        let looks = 0;
        const stopping = () => ++looks > 1;
        expect(await deliverPending(harness().db, url, { organizationId: mailOrg.id, tls: TEST_TLS, stopping })).to.deep.equal({ sent: 1, failed: 0 });
        const rows = await harness()
          .db('outbox_emails')
          .where({ organization_id: mailOrg.id })
          .orderBy('created_at')
          .select('sent_at', 'claimed_at', 'attempts');
        expect(rows.filter((r) => r.sent_at)).to.have.length(1);
        expect(rows.filter((r) => !r.sent_at).map((r) => [r.claimed_at, r.attempts])).to.deep.equal([
          [null, 0],
          [null, 0],
        ]);
        expect(await deliverPending(harness().db, url, { organizationId: mailOrg.id, tls: TEST_TLS })).to.deep.equal({ sent: 2, failed: 0 });
      } finally {
        await smtp.close();
      }
      expect(smtp.messages).to.have.length(3);
    });

    it("goes to the user's address alone, whatever the name holds (an address list, a line break and a header)", async () => {
      const mailOrg = await newOrg();
      expectStatus(
        await mailOrg.api.post('/users', {
          email: 'sam.ortiz@summitridge.example',
          firstName: 'x <evil@attacker.example>, "y\\',
          lastName: 'Ortiz\r\nBcc: evil2@attacker.example',
          role: 'Field',
        }),
        201,
      );
      const smtp = await startSmtp();
      try {
        const url = `smtp://mailer:s3cret@127.0.0.1:${smtp.port}?from=no-reply@summitridge.example`;
        expect(await deliverPending(harness().db, url, { organizationId: mailOrg.id, tls: TEST_TLS })).to.deep.equal({ sent: 1, failed: 0 });
      } finally {
        await smtp.close();
      }
      expect(smtp.messages).to.have.length(1);
      expect(smtp.messages[0].to).to.deep.equal(['sam.ortiz@summitridge.example']);
      // Headers unfolded (RFC 5322 2.2.3): one To with the name quoted, no Bcc.
      const headers = smtp.messages[0].raw.split('\r\n\r\n')[0].replace(/\r\n[ \t]+/g, ' ');
      expect(headers).not.to.match(/^Bcc:/im);
      expect(headers.match(/^To: .*$/gm)).to.deep.equal([
        'To: "x <evil@attacker.example>, \\"y\\\\ Ortiz Bcc: evil2@attacker.example" <sam.ortiz@summitridge.example>',
      ]);
    });

    it('never sends credentials in clear: a server without STARTTLS is a recorded failure, no AUTH sent', async () => {
      const mailOrg = await newOrg();
      expectStatus(await mailOrg.api.post('/users', { email: 'drew.park@summitridge.example', firstName: 'Drew', lastName: 'Park', role: 'Field' }), 201);
      const plain = await startSmtp({ hideSTARTTLS: true, disabledCommands: ['STARTTLS'] });
      try {
        const result = await deliverPending(harness().db, `smtp://mailer:s3cret@127.0.0.1:${plain.port}`, { organizationId: mailOrg.id, timeoutMs: 5000 });
        expect(result).to.deep.equal({ sent: 0, failed: 1 });
      } finally {
        await plain.close();
      }
      expect(plain.auths).to.deep.equal([]);
      expect(plain.messages).to.deep.equal([]);
      const row = await harness().db('outbox_emails').where({ organization_id: mailOrg.id }).first();
      expect(row.last_error).to.match(/STARTTLS/);
      expect(row.claimed_at).to.equal(null);
    });

    it('holds no row lock while sending: the row is claimed and committed before the SMTP conversation', async () => {
      const mailOrg = await newOrg();
      expectStatus(await mailOrg.api.post('/users', { email: 'quinn.hale@summitridge.example', firstName: 'Quinn', lastName: 'Hale', role: 'Field' }), 201);
      const smtp = await startSmtp();
      let seen: { claimed_at: Date | null } | undefined;
      smtp.onMessage = async () => {
        // Mid-send, another session can lock the row at once (NOWAIT fails on a held lock).
        seen = await harness().db.transaction(
          async (tx) =>
            (await tx('outbox_emails').where({ organization_id: mailOrg.id }).forUpdate().noWait().first('claimed_at')) as { claimed_at: Date | null },
        );
      };
      try {
        const result = await deliverPending(harness().db, `smtp://127.0.0.1:${smtp.port}`, { organizationId: mailOrg.id, tls: TEST_TLS });
        expect(result).to.deep.equal({ sent: 1, failed: 0 });
      } finally {
        await smtp.close();
      }
      expect(seen?.claimed_at).to.be.instanceOf(Date);
    });

    it('records the error when the mail server is unreachable, and the request still succeeds', async () => {
      const mailOrg = await newOrg();
      expectStatus(await mailOrg.api.post('/users', { email: 'casey.lee@summitridge.example', firstName: 'Casey', lastName: 'Lee', role: 'Field' }), 201);
      const closed = await startSmtp();
      const port = closed.port;
      await closed.close();
      const result = await deliverPending(harness().db, `smtp://127.0.0.1:${port}`, { organizationId: mailOrg.id, timeoutMs: 2000 });
      expect(result).to.deep.equal({ sent: 0, failed: 1 });
      const row = await harness().db('outbox_emails').where({ organization_id: mailOrg.id }).first();
      expect(row.sent_at).to.equal(null);
      expect(row.attempts).to.equal(1);
      expect(row.last_error).to.match(/ECONNREFUSED/);
    });
  });
});
