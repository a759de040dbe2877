import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DATA_DIR, ROOT } from './paths';

/**
 * Everything the process reads from its environment, in one place, validated at start: a bad value
 * is one clear line naming the variable, never a stack trace from deep inside. README's
 * configuration table and .env.example list the same settings (test/config.test.ts checks both).
 */
const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);
const flag = z.enum(['0', '1'], { message: 'must be 1 or 0' }).transform((v) => v === '1');
const url = (...protocols: string[]) =>
  z
    .string()
    .refine((v) => URL.canParse(v) && protocols.includes(new URL(v).protocol), `must be a URL starting with ${protocols.map((p) => p + '//').join(' or ')}`);

// Adding a setting: one line here (config key: environment variable and schema with its default),
// one row in README's configuration table, one line in .env.example.
const SETTINGS = {
  port: { env: 'PORT', schema: integer(0, 65535).default(3000) },
  databaseUrl: { env: 'DATABASE_URL', schema: url('postgres:', 'postgresql:').optional() },
  jwtSecret: { env: 'JWT_SECRET', schema: z.string().optional() },
  mode: {
    env: 'NODE_ENV',
    schema: z.enum(['development', 'test', 'production'], { message: 'must be development, test or production' }).default('development'),
  },
  dbPoolMax: { env: 'DB_POOL_MAX', schema: integer(1, 1000).default(10) },
  smtpUrl: { env: 'SMTP_URL', schema: url('smtp:', 'smtps:').optional() },
  mailFrom: { env: 'MAIL_FROM', schema: z.string().optional() },
  logRequests: { env: 'LOG_REQUESTS', schema: flag.default(false) },
  dataDir: { env: 'DATA_DIR', schema: z.string().default(DATA_DIR) },
} satisfies Record<string, { env: string; schema: z.ZodType }>;

type Settings = typeof SETTINGS;
export type Config = { [K in keyof Settings]: z.output<Settings[K]['schema']> };

/** The environment variables the service reads (for .env.example and the README table). */
export const SETTING_NAMES: string[] = Object.values(SETTINGS).map((s) => s.env);

/** Bad configuration: one line per problem, naming the variable, the value and what it must be. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, { env: name, schema }] of Object.entries(SETTINGS)) {
    // An empty variable (`PORT=` in .env) means unset, as it always has.
    const raw = env[name] === '' ? undefined : env[name];
    const parsed = (schema as z.ZodType).safeParse(raw);
    if (parsed.success) config[key] = parsed.data;
    else problems.push(`${name}=${raw}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  if (problems.length) throw new ConfigError(problems);
  return config as Config;
}

/**
 * Reads `.env` in the project folder when there is one (the same format as node --env-file).
 * Variables already set in the environment win over the file.
 */
export function loadDotEnv(file = join(ROOT, '.env')): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
