import type { Handlers, Schema } from '../../http/handler';
import { plainHandlers } from '../crud-handlers';
import { tags } from './queries';

export const tagHandlers: Handlers<'listTags'> = {
  listTags: plainHandlers<Schema<'Tag'>>(tags).list({ orderBy: 'createdAt' }),
};
