import type { ErrorObject } from 'ajv';
import { badRequest, notFound, type ApiError, type ProblemItem, type Violation } from '../errors';

/**
 * ajv errors -> problem items that name the field and the rule, e.g.
 * `body.code: must be a string` (field body.code, rule type),
 * `query.filter: unknown key colour` (field query.filter.colour, rule additionalProperties).
 */
function fieldOf(err: ErrorObject): string {
  // openapi-backend validates {path, query, header, requestBody}; show `body` for the latter.
  const parts = err.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts[0] === 'requestBody') parts[0] = 'body';
  // Header names as the contract spells them (header.If-Match), the way every other check names
  // them; openapi-backend validates them lower-cased.
  if (parts[0] === 'header' && parts[1]) parts[1] = parts[1].replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
  return parts.length ? parts.join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]') : '';
}

function describe(err: ErrorObject): { field: string; message: string } {
  const base = fieldOf(err);
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required': {
      const missing = String(p.missingProperty);
      if (base === '' && missing === 'requestBody') return { field: 'body', message: 'a request body is required' };
      if (base === '') return { field: missing, message: 'is required' };
      return { field: `${base}.${missing}`, message: 'is required' };
    }
    case 'additionalProperties': {
      const extra = String(p.additionalProperty);
      const field = `${base}.${extra}`;
      if (base === 'query') return { field, message: `unknown query parameter ${extra}` };
      if (base === 'query.filter') return { field, message: `unknown filter field or operator ${extra}` };
      return { field, message: `unknown property ${extra}` };
    }
    case 'enum': {
      // The rejected value (ajv's `data`, with verbose on: backend.ts) and every allowed one.
      const given = 'data' in err ? ` (got ${JSON.stringify(err.data)?.slice(0, 100)})` : '';
      return { field: base, message: `must be one of ${(p.allowedValues as unknown[]).join(', ')}${given}` };
    }
    case 'pattern': {
      // A pattern that stands for a closed set says what the value is not (`x-pattern-message`).
      const own = (err.parentSchema as Record<string, unknown> | undefined)?.['x-pattern-message'];
      if (typeof own === 'string' && 'data' in err) return { field: base, message: `${String(err.data).slice(0, 100)} ${own}` };
      return { field: base, message: err.message ?? 'fails pattern' };
    }
    case 'type':
      return { field: base, message: `must be ${/^[aeiou]/.test(String(p.type)) ? 'an' : 'a'} ${p.type}` };
    case 'format':
      return { field: base, message: `must be a valid ${p.format}` };
    case 'minProperties':
      return { field: base, message: `must have at least ${p.limit} propert${p.limit === 1 ? 'y' : 'ies'}` };
    default:
      return { field: base || 'request', message: err.message ?? `fails ${err.keyword}` };
  }
}

/** Each ajv error as a violation (field, rule, message), duplicates dropped. */
function violationsOf(errors: ErrorObject[]): Violation[] {
  const seen = new Set<string>();
  const out: Violation[] = [];
  for (const err of errors) {
    // A parse error from openapi-backend (malformed JSON) has its own keyword.
    const rule = err.keyword === 'parse' ? 'json' : err.keyword;
    const { field, message } = err.keyword === 'parse' ? { field: 'body', message: 'is not valid JSON' } : describe(err);
    const key = `${field}|${rule}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, rule, message });
  }
  return out;
}

/**
 * The answer to a request that failed validation (the service's and the mock's alike): a path
 * parameter outside its closed set names nothing, a 404 (`GET /reconciliation/vendors`); anything
 * else is a 400 naming every problem.
 */
export function validationProblem(errors: ErrorObject[] | null | undefined): ApiError {
  const path = (errors ?? []).find((e) => e.keyword === 'enum' && e.instancePath.startsWith('/path/'));
  if (path) {
    const allowed = ((path.params as { allowedValues?: unknown[] }).allowedValues ?? []).join(', ');
    return notFound(`${fieldOf(path)}: ${String(path.data).slice(0, 100)} names nothing here (one of ${allowed}).`);
  }
  return badRequest(toProblemItems(errors));
}

export function toProblemItems(errors: ErrorObject[] | null | undefined): ProblemItem[] {
  const items = violationsOf(errors ?? []).map(({ field, rule, message }) => ({ message: `${field}: ${message}`, field, rule }));
  return items.length ? items : [{ message: 'request: is invalid' }];
}

/**
 * The errors of a request whose body holds a batch's list (`body.<list>`), split: those inside
 * an element, by position, each with its field inside the element (`name`, `defaultLocation.name`;
 * '' for the element itself, e.g. one that is not an object); and the request's own, as they are
 * (the list itself missing or not an array, another body property, a header).
 */
export function byElement(errors: ErrorObject[], list: string): { request: ErrorObject[]; elements: Map<number, Violation[]> } {
  const inElement = new RegExp(`^/requestBody/${list}/(\\d+)(?=/|$)`);
  const request: ErrorObject[] = [];
  const grouped = new Map<number, ErrorObject[]>();
  for (const err of errors) {
    const m = inElement.exec(err.instancePath);
    if (!m) {
      request.push(err);
      continue;
    }
    const position = Number(m[1]);
    const group = grouped.get(position) ?? [];
    group.push(err);
    grouped.set(position, group);
  }
  const elements = new Map<number, Violation[]>();
  for (const [position, errs] of grouped) {
    const prefix = `body.${list}[${position}]`;
    elements.set(
      position,
      violationsOf(errs).map((v) => ({ ...v, field: v.field.slice(prefix.length).replace(/^\./, '') })),
    );
  }
  return { request, elements };
}
