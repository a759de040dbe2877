import type { Server } from 'node:http';
import { join } from 'node:path';
import { createApp } from './app';
import { listen } from './http/server';
import { ConfigError, loadConfig, loadDotEnv } from './config';
import { openDatabase } from './db/connect';
import { startupHint } from './startup-hint';
import { demoOrganizationId } from './admin/organizations';
import { resolveJwtSecret } from './auth/secrets';
import { createDemoOrganization } from '../seeds/demo';
import { startMailer } from './mail/mailer';

/**
 * Process entry: database (embedded unless DATABASE_URL), migrations, demo organization on a new
 * embedded database, HTTP server, graceful shutdown.
 */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const database = await openDatabase(config, (line) => console.log(line));
  const jwtSecret = resolveJwtSecret(config.jwtSecret, config.dataDir);

  let demo: Awaited<ReturnType<typeof createDemoOrganization>> | undefined;
  if (database.embedded && !(await database.db('organizations').first('id'))) {
    console.log('Loading the demo organization and its data…');
    demo = await createDemoOrganization(database.db);
  }

  const app = await createApp({ db: database.db, config, jwtSecret });
  const server: Server = await listen(app, config.port);
  // Registration e-mails wait in the outbox until an SMTP server is configured.
  const stopMailer = config.smtpUrl ? startMailer(database.db, config.smtpUrl) : undefined;
  const address = server.address();
  const base = `http://localhost:${typeof address === 'object' && address ? address.port : config.port}`;
  console.log(`Procurement API listening on ${base} (${database.embedded ? 'embedded PostgreSQL in ' + join(config.dataDir, 'postgres') : 'DATABASE_URL'})`);
  console.log(`  Docs:              ${base}/docs  (contract: ${base}/openapi.json)`);
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

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    stopMailer?.();
    server.close();
    server.closeAllConnections?.();
    await database.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  // Problems a user can fix (configuration, a taken port) are one line each, not a stack trace.
  const hint = err instanceof ConfigError ? err.problems : startupHint(err, process.env.PORT);
  if (hint) for (const line of hint) console.error(`Failed to start: ${line}`);
  else console.error('Failed to start:', err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
