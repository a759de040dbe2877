import type { DemoPart } from './context';

/** Users of every role. Inserted directly: demo addresses get no registration e-mail. */
export const seedUsers: DemoPart = async ({ db, orgId, remember }) => {
  const people: [string, string, string, boolean, string | null][] = [
    ['Maria', 'Chen', 'Field', false, '+1 916 555 0117'],
    ['Dev', 'Patel', 'FieldOrdering', false, '+1 916 555 0142'],
    ['Lena', 'Okafor', 'Warehouse', false, '+1 916 555 0168'],
    ['Sam', 'Rivera', 'BackOffice', false, null],
    ['Jordan', 'Kim', 'Procurement', false, '+1 916 555 0183'],
    ['Priya', 'Raman', 'Procurement', true, '+1 916 555 0101'],
  ];
  const rows = people.map(([first, last, role, admin, phone]) => ({
    organization_id: orgId,
    email: `${first.toLowerCase()}.${last.toLowerCase()}@summitridge.example`,
    first_name: first,
    last_name: last,
    display_name: `${first} ${last}`,
    role,
    admin,
    phone,
    avatar_url: first === 'Maria' ? 'https://files.procurement.dev/avatars/maria-chen.png' : null,
  }));
  const inserted = await db('users').insert(rows).returning(['id', 'email']);
  for (const r of inserted) remember('user', r.email, r.id);
};
