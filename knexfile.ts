// Configuration for the knex CLI (`npx knex --knexfile dist/knexfile.js migrate:status`).
// The service itself migrates on start (src/server.ts) and needs no knexfile.
import type { Knex } from 'knex';
import { join } from 'node:path';

const config: Knex.Config = {
  client: 'pg',
  connection: process.env.DATABASE_URL,
  migrations: { directory: join(__dirname, 'migrations'), loadExtensions: ['.js'] },
  seeds: { directory: join(__dirname, 'seeds'), loadExtensions: ['.js'] },
};

export default config;
