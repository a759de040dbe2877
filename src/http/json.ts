/**
 * A JSON document built by PostgreSQL, carried as text straight to the response. The phantom type
 * says which contract type the SQL produces, so handlers stay typed from the contract; in test
 * mode every response is still parsed and validated against its schema.
 */
export type Json<T> = string & { readonly __jsonOf: T };

export const asJson = <T>(text: string): Json<T> => text as Json<T>;
export const jsonOf = <T>(value: T): Json<T> => JSON.stringify(value) as Json<T>;
