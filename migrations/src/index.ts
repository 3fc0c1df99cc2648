import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_foundation } from './Migration20261121000000_foundation.js';

/**
 * Every checked-in migration, in order. The list is explicit (no file discovery) so the compiled service, the CLI and
 * the tests apply exactly the same set. Append new migrations at the end; never edit one that has shipped.
 */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261121000000_foundation', class: Migration20261121000000_foundation },
];
