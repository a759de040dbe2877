import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { closeApp, createApp } from './app';
import { listen } from './http/server';
import { loadConfig } from './config';
import { openDatabase } from './db/connect';
import { resolveJwtSecret } from './auth/secrets';
import { ensureDemoOrganization } from './admin/demo';
import { checkFeedSettings } from './feed/settings';
import { startFeedRetention } from './feed/retention';
import { startMailer, watchOutboxBacklog } from './mail/mailer';
import { createLogger } from './ops/log';
import { Lifecycle } from './ops/lifecycle';
import { gracefulShutdown } from './ops/shutdown';
import { onShutdown } from './ops/stoppables';

/**
 * Process entry: database (embedded unless DATABASE_URL), migrations, demo organization on a new
 * embedded database, HTTP server, graceful shutdown.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const jwtSecret = resolveJwtSecret(config.jwtSecret, config.dataDir);

  await checkFeedSettings(database.db);
  const demo = database.embedded ? await ensureDemoOrganization(database.db) : undefined;

  const logger = createLogger(config.logLevel);
  const lifecycle = new Lifecycle();
  const app = await createApp({ db: database.db, config, jwtSecret, lifecycle, logger });
  const server: Server = await listen(app, config.port);
  // Registration e-mails wait in the outbox until an SMTP server is configured.
  // Stopped in reverse order after the HTTP server has drained, before the pool closes.
  onShutdown('credential cache', () => closeApp(app));
  onShutdown('change feed retention', startFeedRetention(database.db));
  if (config.smtpUrl) onShutdown('mailer', startMailer(database.db, config.smtpUrl));
  watchOutboxBacklog(database.db);
  const port = (server.address() as AddressInfo).port;
  const base = `http://localhost:${port}`;
  logger.info({ port }, 'listening');
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

  const shutdown = gracefulShutdown({
    server,
    lifecycle,
    logger,
    // Also stops the embedded PostgreSQL when this process started it.
    closeDatabase: () => database.close(),
    timeoutMs: config.shutdownTimeoutMs,
    exit: (code) => process.exit(code),
  });
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error('Failed to start:', err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
