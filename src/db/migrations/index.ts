import { Migration20261121015830_foundation } from './Migration20261121015830_foundation.js';

/** Applied in this order; add new migrations at the end. */
export const migrations = [Migration20261121015830_foundation];
