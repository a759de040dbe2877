import http from 'node:http';
import { harness } from './harness';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/**
 * One request with its headers exactly as listed (flat name/value pairs, repeats kept), which
 * fetch cannot send: it joins a repeated header into one value.
 */
export function rawCall(method: string, path: string, headers: string[], body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, harness().baseUrl);
    // Given as a list, the headers are sent as they are: node adds no Host of its own.
    const flat = ['Host', url.host, ...headers, ...(body === undefined ? [] : ['Content-Length', String(Buffer.byteLength(body))])];
    const req = http.request(url, { method, headers: flat });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        if (/json/.test(res.headers['content-type'] ?? '') && text) parsed = JSON.parse(text);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
