import type { Knex } from 'knex';

/**
 * What each part of the demo dataset receives: the transaction, the organization, its admin user,
 * and a registry of the IDs earlier parts created (`ref('taxCode', 'TX-CA')`), so later parts can
 * point at them.
 */
export interface DemoContext {
  db: Knex.Transaction;
  orgId: string;
  userId: string;
  remember(kind: string, key: string, id: string): void;
  ref(kind: string, key: string): string;
}

export type DemoPart = (ctx: DemoContext) => Promise<void>;

export function demoContext(db: Knex.Transaction, orgId: string, userId: string): DemoContext {
  const ids = new Map<string, string>();
  return {
    db,
    orgId,
    userId,
    remember: (kind, key, id) => void ids.set(`${kind}:${key}`, id),
    ref: (kind, key) => {
      const id = ids.get(`${kind}:${key}`);
      if (!id) throw new Error(`demo data: no ${kind} ${key} was created before it was referenced`);
      return id;
    },
  };
}
