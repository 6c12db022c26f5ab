/**
 * The offline model: an extractive planner and reader behind the AI SDK model interface, so the
 * agent loop never knows which model it has. This file is its only public face: nothing outside
 * `offline-model/` imports its internals (checked by dependency-cruiser in `npm test`).
 */
export { createOfflineModel, OfflineModel, type OfflineModelOptions } from './offline-model.ts';
export { entitiesIn } from './text/entities.ts';
