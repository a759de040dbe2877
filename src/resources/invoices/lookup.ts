import { notFound } from '../../errors';

/** An invoice named in a path (its own operations', and its items'). */
export const missingInvoice = (id: string) => notFound(`No invoice matches ${id}.`);
