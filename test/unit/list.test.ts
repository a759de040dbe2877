import { expect } from 'chai';
import knexFactory from 'knex';
import { applyFilter, applyOrder, splitFilterKey } from '../../src/db/list';
import { col, idCol } from '../../src/db/columns';
import { parseQuery } from '../../src/http/query';

const knex = knexFactory({ client: 'pg' });
const columns = { id: idCol('t.id'), code: col('t.code'), createdAt: col('t.created_at') };
const sql = (filter: Record<string, unknown>) => {
  const q = knex('t');
  applyFilter(q, columns, filter);
  return q.toSQL().toNative();
};

describe('unit: list mechanics', () => {
  it('splits filter keys into field and operator', () => {
    expect(splitFilterKey('code')).to.deep.equal(['code', 'eq']);
    expect(splitFilterKey('code_not_in')).to.deep.equal(['code', 'not_in']);
    expect(splitFilterKey('code_in')).to.deep.equal(['code', 'in']);
    expect(splitFilterKey('updatedAt_gte')).to.deep.equal(['updatedAt', 'gte']);
    expect(splitFilterKey('name_starts_with')).to.deep.equal(['name', 'starts_with']);
    expect(splitFilterKey('integrationState_in')).to.deep.equal(['integrationState', 'in']);
  });

  it('turns operators into parameterized SQL', () => {
    expect(sql({ code: 'A' })).to.deep.equal({ sql: 'select * from "t" where t.code = $1', bindings: ['A'] });
    expect(sql({ code_not: 'A' }).sql).to.match(/IS DISTINCT FROM \$1/);
    // A list is one array parameter, whatever its length (one statement shape).
    expect(sql({ code_in: ['A', 'B'] })).to.deep.equal({ sql: 'select * from "t" where t.code = ANY($1)', bindings: [['A', 'B']] });
    expect(sql({ code_in: ['A', 'B', 'C'] }).sql).to.equal(sql({ code_in: ['A'] }).sql);
    expect(sql({ code_not_in: ['A', 'B'] }).sql).to.equal('select * from "t" where (t.code <> ALL($1) OR t.code IS NULL)');
    expect(sql({ code_contains: '50%_off' }).bindings).to.deep.equal(['%50\\%\\_off%']);
    expect(sql({ code_starts_with: 'J-' }).bindings).to.deep.equal(['J-%']);
    expect(sql({ code_ends_with: '-9' }).bindings).to.deep.equal(['%-9']);
    expect(sql({ createdAt_gt: '2026-01-01T00:00:00Z' }).sql).to.match(/t\.created_at > \$1/);
  });

  it('matches nothing for an id that is not an ID, instead of failing in PostgreSQL', () => {
    expect(sql({ id: 'J-1042' }).sql).to.match(/where false/);
    expect(sql({ id_in: ['x', '7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42'] }).bindings).to.deep.equal([['7d1c2f5e-4b8a-4c1e-9f3d-2a6b8c0e1f42']]);
  });

  it('orders by the field, then by id for stable pages', () => {
    const q = knex('t');
    applyOrder(q, columns, 'code', 'DESC', 't.id');
    expect(q.toSQL().sql).to.equal('select * from "t" order by t.code DESC, t.id DESC');
  });

  it('parses both filter query forms and comma lists', () => {
    expect(parseQuery('filter[code_in][]=A&filter[code_in][]=B')).to.deep.equal({ filter: { code_in: ['A', 'B'] } });
    expect(parseQuery('filter.code_in=A,B')).to.deep.equal({ filter: { code_in: ['A', 'B'] } });
    expect(parseQuery('filter[code]=A,B')).to.deep.equal({ filter: { code: 'A,B' } });
    expect(parseQuery('filter[name_in][]=Smith, John')).to.deep.equal({ filter: { name_in: ['Smith, John'] } });
    const many = Array.from({ length: 50 }, (_, i) => `filter[id_in][]=${i}`).join('&');
    expect((parseQuery(many).filter as { id_in: string[] }).id_in).to.have.length(50);
  });
});
