import { Writable } from 'node:stream';

/** A pino destination that keeps every line (createLogger(level, capture().stream)). */
export function captureLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, any>) };
}
