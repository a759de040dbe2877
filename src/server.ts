import type { Server } from 'node:http';
import { join } from 'node:path';
import { createApp } from './app';
import { listen } from './http/server';
import { loadConfig } from './config';
import { openDatabase } from './db/connect';
import { resolveJwtSecret } from './auth/secrets';
import { createDemoOrganization } from '../seeds/demo';
import { startMailer } from './mail/mailer';
import { startWebhookWorker } from './webhooks/worker';

/**
 * Process entry: database (embedded unless DATABASE_URL), migrations, demo organization on a new
 * embedded database, HTTP server, graceful shutdown.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const jwtSecret = resolveJwtSecret(config.jwtSecret, config.dataDir);

  let demo: Awaited<ReturnType<typeof createDemoOrganization>> | undefined;
  if (database.embedded && !(await database.db('organizations').first('id'))) {
    demo = await createDemoOrganization(database.db);
  }

  const app = await createApp({ db: database.db, config, jwtSecret });
  const server: Server = await listen(app, config.port);
  // Registration e-mails wait in the outbox until an SMTP server is configured.
  const stopMailer = config.smtpUrl ? startMailer(database.db, config.smtpUrl) : undefined;
  // Webhook deliveries (src/webhooks/worker.ts): every instance runs a worker; they share the work.
  const webhooks = await startWebhookWorker({ db: database.db, connectionString: database.url });
  const base = `http://localhost:${config.port}`;
  console.log(`Procurement API listening on ${base} (${database.embedded ? 'embedded PostgreSQL in ' + join(config.dataDir, 'postgres') : 'DATABASE_URL'}); docs at ${base}/docs`);
  if (demo) {
    // Printed once, when the demo organization is created: the secrets are not stored in clear.
    console.log(
      [
        '',
        `Demo organization "${demo.organization.name}" created (${demo.organization.id}).`,
        `  Base URL:            ${base}`,
        `  API key:             ${demo.apiKey}`,
        `  OAuth client id:     ${demo.oauthClient.clientId}`,
        `  OAuth client secret: ${demo.oauthClient.clientSecret}`,
        `  Try it:              curl -s ${base}/tax-codes -H "Authorization: Bearer ${demo.apiKey}"`,
        `  Get a token:         curl -s -X POST ${base}/oauth2/token -d grant_type=client_credentials -d client_id=${demo.oauthClient.clientId} -d client_secret=${demo.oauthClient.clientSecret}`,
        'These credentials are shown only now; `npm run admin -- client create --org <id>` issues new ones.',
        '',
      ].join('\n'),
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    stopMailer?.();
    server.close();
    server.closeAllConnections?.();
    await webhooks.stop().catch((err) => console.error('webhooks: stopping:', err));
    await database.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error('Failed to start:', err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
