/**
 * A JSON document built by PostgreSQL, carried as text straight to the response. The phantom type
 * says which contract type the SQL produces, so handlers stay typed from the contract; in test
 * mode every response is still parsed and validated against its schema.
 */
export type Json<T> = string & { readonly __jsonOf: T };

export const asJson = <T>(text: string): Json<T> => text as Json<T>;
export const jsonOf = <T>(value: T): Json<T> => JSON.stringify(value) as Json<T>;

/** SQL: the rows of the subquery aliased `x`, in its order, as one JSON array text (`[]` for none). */
export const ROWS_OF_X_AS_JSON_ARRAY = "coalesce('[' || string_agg(row_to_json(x)::text, ',') || ']', '[]')";

/**
 * A large JSON document (a bulk page) sent in parts as PostgreSQL produces them, so the process
 * never holds a whole 2,500-row page: `head`, the elements joined by commas, `tail`. `close()`
 * gives the database connection back when the parts are not all read (the client went away).
 */
export class JsonStream<T> {
  declare readonly __jsonOf: T;
  /** A bulk page's `meta`, known before its rows stream (the page's `Link`, src/http/links.ts). */
  page?: { total: number; limit: number; offset: number; nextCursor?: string | null };
  constructor(
    private readonly head: string,
    private readonly elements: AsyncIterator<string, void>,
    private readonly tail: string,
  ) {}

  async *parts(): AsyncGenerator<string, void> {
    // Stopped at any yield (even the first), the elements are closed.
    try {
      yield this.head;
      let separator = '';
      for (let next = await this.elements.next(); !next.done; next = await this.elements.next()) {
        yield separator + next.value;
        separator = ',';
      }
    } finally {
      await this.close();
    }
    yield this.tail;
  }

  async close(): Promise<void> {
    await this.elements.return?.();
  }

  /** The whole document (test mode validates it before anything is sent). */
  async text(): Promise<string> {
    let text = '';
    for await (const part of this.parts()) text += part;
    return text;
  }
}

/**
 * The size a part of a JSON document is cut at (UTF-8 bytes; a part ends with the first object
 * that reaches it). V8 puts a string of 128 KiB or more (64 Ki characters of text beyond Latin-1)
 * in its large-object space, which only a full collection empties: under concurrent list pages of
 * a hundred kilobytes and more, such strings piled up in the process's memory between full
 * collections (bench/results, the peak RSS row). Parts this size are young-generation strings,
 * freed by the next scavenge once sent.
 */
export const PART_BYTES = 32 * 1024;

/**
 * A JSON document held whole in memory as a sequence of strings, each under V8's large-object
 * size (see PART_BYTES): written to the socket as they are, with their total length, never joined
 * into one string (except in test mode, which validates the whole document).
 */
export class JsonParts<T> {
  declare readonly __jsonOf: T;
  /** A list page's number of objects, counted by who built it (the page's `Link`, src/http/links.ts). */
  elementCount?: number;
  /** The page size it was built with, when the list holds the client's `limit` to less (change orders: 10). */
  pageLimit?: number;
  /**
   * For a list that pages by a cursor of its own (the change feed's `after`): the query parameters
   * of the next page, or null on the last one; the page's length then says nothing.
   */
  nextQuery?: Record<string, string> | null;
  /**
   * The texts it was gathered from, when its maker keeps them (gather's `keep`: a feed page): an
   * older API version moves each entry and sends the text of those it leaves as they are
   * (VersionMoves.partsDown), instead of parsing and writing the whole page again.
   */
  elements?: { head: string; items: readonly string[]; tail: string };
  constructor(readonly parts: readonly string[]) {}

  /** `head`, the comma-joined parts of elements, `tail`: e.g. `[`, parts, `]`. */
  static of<T>(head: string, elements: readonly string[], tail: string): JsonParts<T> {
    const parts = [head];
    for (const [i, part] of elements.entries()) {
      if (i > 0) parts.push(',');
      parts.push(part);
    }
    parts.push(tail);
    return new JsonParts<T>(parts);
  }

  /** Elements (JSON texts) gathered into comma-joined parts of about PART_BYTES characters each; `keep`: the elements are kept too (JsonParts.elements). */
  static gather<T>(head: string, elements: readonly string[], tail: string, keep = false): JsonParts<T> {
    const parts: string[] = [];
    let current: string[] = [];
    let size = 0;
    for (const element of elements) {
      current.push(element);
      size += element.length;
      if (size >= PART_BYTES) {
        parts.push(current.join(','));
        current = [];
        size = 0;
      }
    }
    if (current.length) parts.push(current.join(','));
    const gathered = JsonParts.of<T>(head, parts, tail);
    if (keep) gathered.elements = { head, items: elements, tail };
    return gathered;
  }

  /** The whole document. */
  text(): Json<T> {
    return this.parts.join('') as Json<T>;
  }
}

/** A reply body as the JSON text sent (empty for none): a value, JSON text, parts or a stream. */
export async function jsonText(body: unknown): Promise<string> {
  if (body === undefined) return '';
  if (typeof body === 'string') return body;
  if (body instanceof JsonStream || body instanceof JsonParts) return body.text();
  return JSON.stringify(body);
}
