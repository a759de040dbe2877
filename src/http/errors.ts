// ApiError and the problem helpers live in src/errors.ts (shared by every layer); kept here so existing imports stay valid.
export * from '../errors';
