/**
 * The `attachments` of a record as a JSON array of File objects (oldest first), as a correlated
 * subquery: `linkTable` joins the parent (`parentAlias`, through `parentColumn`) to `files`.
 */
export function attachedFilesSql(linkTable: string, parentColumn: string, parentAlias: string): string {
  return `(SELECT coalesce(json_agg(json_build_object(
      'id', f.id, 'name', f.name, 'url', f.url, 'createdAt', api_ts(f.created_at), 'updatedAt', api_ts(f.updated_at))
      ORDER BY a.created_at, a.id), '[]'::json)
    FROM ${linkTable} a JOIN files f ON f.organization_id = a.organization_id AND f.id = a.file_id
    WHERE a.organization_id = ${parentAlias}.organization_id AND a.${parentColumn} = ${parentAlias}.id)`;
}
