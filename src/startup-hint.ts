/**
 * One-line explanations of start failures the user can fix (a port taken or not allowed), so
 * they are not shown as a stack trace; undefined for anything else.
 */
export function startupHint(err: unknown, port: string | undefined): string[] | undefined {
  const e = err as { code?: string; port?: number };
  const which = `port ${e.port ?? port ?? 3000}`;
  if (e?.code === 'EADDRINUSE') return [`${which} is already in use (another server running?): stop it, or start with PORT=<a free port> (PORT=0 picks one)`];
  if (e?.code === 'EACCES') return [`${which} is not allowed for this user: start with PORT=<a port above 1023>`];
  return undefined;
}
