import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_foundation } from './Migration20261121000000_foundation.js';
import { Migration20261121100000_lms_oauth_token } from './Migration20261121100000_lms_oauth_token.js';
import { Migration20261121200000_admission_budget } from './Migration20261121200000_admission_budget.js';
import { Migration20261121300000_settings } from './Migration20261121300000_settings.js';
import { Migration20261122000000_exb_student } from './Migration20261122000000_exb_student.js';

/**
 * Every checked-in migration, in order. The list is explicit (no file discovery) so the compiled service, the CLI and
 * the tests apply exactly the same set. Append new migrations at the end; never edit one that has shipped.
 */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261121000000_foundation', class: Migration20261121000000_foundation },
  { name: 'Migration20261121100000_lms_oauth_token', class: Migration20261121100000_lms_oauth_token },
  { name: 'Migration20261121200000_admission_budget', class: Migration20261121200000_admission_budget },
  { name: 'Migration20261121300000_settings', class: Migration20261121300000_settings },
  { name: 'Migration20261122000000_exb_student', class: Migration20261122000000_exb_student },
];
