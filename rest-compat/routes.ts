import type { RestRoute } from './route.js';

/** The route table: every REST path this service answers besides the token endpoint. */
export const routes: RestRoute[] = [
  {
    method: 'get',
    path: '/whoami',
    document: 'query Viewer { viewer { clientId tenant { identifier name } } }',
    field: 'viewer',
  },
];
