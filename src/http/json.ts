// Json and JsonStream live in src/db/json.ts (built by PostgreSQL); kept here so existing imports stay valid.
export * from '../db/json';
