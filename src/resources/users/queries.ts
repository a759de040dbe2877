import type { Db, Queryable } from '../../db/knex';
import { col, idCol, isUuid, tsCol } from '../../db/columns';
import { ResourceDef, oneByIdJson, oneJson, scoped } from '../../db/resource';
import { conflict } from '../../errors';
import type { Schema } from '../../http/handler';
import type { Json } from '../../db/json';
import { enqueueEmail, mailbox } from '../../mail/outbox';

/** Users: the column map every resource that returns User objects shares. */
export const users: ResourceDef = {
  table: 'users',
  alias: 'usr',
  columns: {
    id: idCol('usr.id'),
    admin: col('usr.admin'),
    avatarUrl: col('usr.avatar_url'),
    displayName: col('usr.display_name'),
    email: col('usr.email'),
    firstName: col('usr.first_name'),
    lastName: col('usr.last_name'),
    phone: col('usr.phone'),
    role: col('usr.role'),
    createdAt: tsCol('usr.created_at'),
    updatedAt: tsCol('usr.updated_at'),
  },
};

// --- the Users resource (GET/POST /users, GET /users/{userIdOrEmail}) ---

type User = Schema<'User'>;

/** By ID, or by e-mail address regardless of case. */
export function getUser(db: Queryable, orgId: string, idOrEmail: string): Promise<Json<User> | undefined> {
  const q = scoped(db, users, orgId);
  if (isUuid(idOrEmail))
    q.where((w) => w.where('usr.id', idOrEmail).orWhereRaw('lower(usr.email) = lower(?)', [idOrEmail])).orderByRaw('(usr.id = ?) DESC', [idOrEmail]);
  else q.whereRaw('lower(usr.email) = lower(?)', [idOrEmail]);
  return oneJson<User>(db, users, q);
}

export interface NewUser {
  email: string;
  firstName: string;
  lastName: string;
  role: User['role'];
  admin?: boolean;
  avatarUrl?: string | null;
  phone?: string | null;
}

/** Creates the user and queues its registration e-mail in the same transaction. */
export async function createUser(db: Db, orgId: string, input: NewUser): Promise<Json<User>> {
  return db.transaction(async (tx) => {
    const taken = await tx('users').where({ organization_id: orgId }).whereRaw('lower(email) = lower(?)', [input.email]).first('id');
    if (taken) throw conflict('body.email', `${input.email} is already used by another user`);
    const displayName = `${input.firstName} ${input.lastName}`;
    const [row] = await tx('users')
      .insert({
        organization_id: orgId,
        email: input.email,
        first_name: input.firstName,
        last_name: input.lastName,
        display_name: displayName,
        role: input.role,
        admin: input.admin ?? false,
        avatar_url: input.avatarUrl ?? null,
        phone: input.phone ?? null,
      })
      .returning('id');
    const org = await tx('organizations').where({ id: orgId }).first('name');
    await enqueueEmail(tx, { organizationId: orgId, kind: 'registration', ...registrationEmail(input, displayName, org.name) });
    return (await oneByIdJson<User>(tx, users, orgId, row.id))!;
  });
}

function registrationEmail(input: NewUser, displayName: string, organization: string): { to: string; subject: string; body: string } {
  return {
    to: mailbox(displayName, input.email),
    subject: `Welcome to ${organization} on Procurement`,
    body: [
      `Hello ${input.firstName},`,
      '',
      `an account has been created for you in ${organization} (role: ${input.role}).`,
      `Sign in with this e-mail address, ${input.email}, to set your password and start working.`,
      '',
      'If you did not expect this e-mail, you can ignore it.',
    ].join('\n'),
  };
}
