import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Where a FeedFollower keeps its cursor: the position after the last entry handled. An
 * integrator's own store (a row in the ERP's database, written in the same transaction as what the
 * entries changed) implements these two methods.
 */
export interface CursorStore {
  /** The stored cursor; undefined before the first one. */
  get(): Promise<string | undefined> | string | undefined;
  set(cursor: string): Promise<void> | void;
}

/** A cursor kept in memory (lost with the process). */
export function memoryCursorStore(initial?: string): CursorStore {
  let cursor = initial;
  return {
    get: () => cursor,
    set: (next) => {
      cursor = next;
    },
  };
}

/**
 * A cursor kept in a file: written to a temporary file and renamed over the old one, so a crash
 * leaves either cursor whole, never a torn one.
 */
export function fileCursorStore(path: string): CursorStore {
  return {
    get() {
      try {
        return readFileSync(path, 'utf8').trim() || undefined;
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    set(cursor) {
      mkdirSync(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, cursor + '\n');
      renameSync(temporary, path);
    },
  };
}
