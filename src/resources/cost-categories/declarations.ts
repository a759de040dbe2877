import type { ResourceDeclarations } from '../declarations';
import { one } from '../../feed/emit';
import { objectOfWrite } from '../../http/conditional';
import { costCategories } from './queries';

const globalCategory = objectOfWrite('cost_categories', 'getGlobalCategory');
const jobPhaseCategory = objectOfWrite('cost_categories', 'getJobPhaseCategory');
const jobCategory = objectOfWrite('cost_categories', 'getJobCategory');

/** What the resource says about its operations besides their handlers (src/resources/declarations.ts). */
export const costCategoriesDeclarations: ResourceDeclarations = {
  reconciled: { cost_category: costCategories },
  feed: {
    createGlobalCategory: one('cost_category', 'created'),
    updateGlobalCategory: one('cost_category', 'updated'),
    deleteGlobalCategory: one('cost_category', 'deleted'),
    createJobPhaseCategory: one('cost_category', 'created'),
    updateJobPhaseCategory: one('cost_category', 'updated'),
    deleteJobPhaseCategory: one('cost_category', 'deleted'),
    createJobCategory: one('cost_category', 'created'),
    updateJobCategory: one('cost_category', 'updated'),
    deleteJobCategory: one('cost_category', 'deleted'),
  },
  objects: {
    updateGlobalCategory: globalCategory,
    deleteGlobalCategory: globalCategory,
    updateJobPhaseCategory: jobPhaseCategory,
    deleteJobPhaseCategory: jobPhaseCategory,
    updateJobCategory: jobCategory,
    deleteJobCategory: jobCategory,
  },
};
