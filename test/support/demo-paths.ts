import { fillTemplate } from '../../src/http/contract';

/**
 * A concrete path for a nested list's template (`/jobs/{jobIdOrCode}/phases`), from objects of the
 * demo organization: `values` holds the id of a job, a phase (and `phaseJob`, its job, when it is
 * not `job`), an order, a bill of materials, a requisition, a warehouse request, a delivery receipt
 * and an invoice.
 */
export function demoListPath(path: string, values: Record<string, string>): string {
  return fillTemplate(path, (name) => {
    if (/phase/i.test(name)) return values.phase;
    if (path.startsWith('/jobs/')) return path.includes('{phaseIdOrCode}') ? (values.phaseJob ?? values.job) : values.job;
    if (/^\/orders?\//.test(path)) return values.order;
    if (path.startsWith('/billOfMaterials/')) return values.bom;
    if (path.startsWith('/requisitions/')) return values.requisition;
    if (/^\/warehouse[-R]/.test(path)) return values.warehouseRequest;
    if (path.startsWith('/deliveries/')) return values.delivery;
    if (path.startsWith('/invoices/')) return values.invoice;
    throw new Error(`no value for ${name} in ${path}`);
  });
}
