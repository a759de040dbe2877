import { harness } from './harness';
import type { TestOrg } from './client';

/**
 * Rows of the organization structure inserted directly, for suites whose resources hang off them
 * (phases and cost categories belong to jobs; tags are created by order operations).
 */
export async function insertJob(org: TestOrg, code: string, name = `Job ${code}`): Promise<{ id: string; code: string }> {
  const [row] = await harness().db('jobs').insert({ organization_id: org.id, code, name }).returning(['id', 'code']);
  return row;
}

export async function insertTag(org: TestOrg, tag: { title: string; type?: string; color?: string | null; createdAt?: Date }): Promise<{ id: string }> {
  const [row] = await harness()
    .db('tags')
    .insert({ organization_id: org.id, title: tag.title, type: tag.type ?? 'ORDER', color: tag.color ?? null, created_at: tag.createdAt ?? new Date() })
    .returning(['id']);
  return row;
}
