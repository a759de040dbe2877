/**
 * A JSON document built by PostgreSQL, carried as text straight to the response. The phantom type
 * says which contract type the SQL produces, so handlers stay typed from the contract; in test
 * mode every response is still parsed and validated against its schema.
 */
export type Json<T> = string & { readonly __jsonOf: T };

export const asJson = <T>(text: string): Json<T> => text as Json<T>;
export const jsonOf = <T>(value: T): Json<T> => JSON.stringify(value) as Json<T>;

/**
 * A large JSON document (a bulk page) sent in parts as PostgreSQL produces them, so the process
 * never holds a whole 2,500-row page: `head`, the elements joined by commas, `tail`. `close()`
 * gives the database connection back when the parts are not all read (the client went away).
 */
export class JsonStream<T> {
  declare readonly __jsonOf: T;
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
