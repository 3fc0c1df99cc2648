import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_foundation } from './Migration20261121000000_foundation.js';
import { Migration20261121100000_lms_oauth_token } from './Migration20261121100000_lms_oauth_token.js';
import { Migration20261121200000_admission_budget } from './Migration20261121200000_admission_budget.js';
import { Migration20261121300000_settings } from './Migration20261121300000_settings.js';
import { Migration20261122000000_exb_student } from './Migration20261122000000_exb_student.js';
import { Migration20261124000000_identity_binding } from './Migration20261124000000_identity_binding.js';
import { Migration20261125000000_admin_courses } from './Migration20261125000000_admin_courses.js';
import { Migration20261125050000_audit_entry } from './Migration20261125050000_audit_entry.js';
import { Migration20261125100000_tool_presets } from './Migration20261125100000_tool_presets.js';
import { Migration20261125200000_course_reset_receipt } from './Migration20261125200000_course_reset_receipt.js';
import { Migration20261125300000_access_code_verification } from './Migration20261125300000_access_code_verification.js';
import { Migration20261125400000_assessment_activity } from './Migration20261125400000_assessment_activity.js';
import { Migration20261127000000_course_reset_journal } from './Migration20261127000000_course_reset_journal.js';
import { Migration20261127100000_session_start_token } from './Migration20261127100000_session_start_token.js';
import { Migration20261127200000_context_proof_role } from './Migration20261127200000_context_proof_role.js';
import { Migration20261127300000_session_generation } from './Migration20261127300000_session_generation.js';
import { Migration20261127400000_audit_pending } from './Migration20261127400000_audit_pending.js';
import { Migration20261128400000_unmanaged_access_code } from './Migration20261128400000_unmanaged_access_code.js';
import { Migration20261129000000_exam_day_student } from './Migration20261129000000_exam_day_student.js';
import { Migration20261129100000_student_token_owner } from './Migration20261129100000_student_token_owner.js';
import { Migration20261129200000_exam_day_lms_reads } from './Migration20261129200000_exam_day_lms_reads.js';
import { Migration20261129300000_exam_day_notify } from './Migration20261129300000_exam_day_notify.js';
import { Migration20261129400000_exam_day_exemption } from './Migration20261129400000_exam_day_exemption.js';
import { Migration20261129500000_pre_exam_sweep } from './Migration20261129500000_pre_exam_sweep.js';
import { Migration20261130000000_exam_day_change_order } from './Migration20261130000000_exam_day_change_order.js';
import { Migration20261130100000_assessment_override_starts } from './Migration20261130100000_assessment_override_starts.js';

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
  { name: 'Migration20261124000000_identity_binding', class: Migration20261124000000_identity_binding },
  { name: 'Migration20261125000000_admin_courses', class: Migration20261125000000_admin_courses },
  { name: 'Migration20261125050000_audit_entry', class: Migration20261125050000_audit_entry },
  { name: 'Migration20261125100000_tool_presets', class: Migration20261125100000_tool_presets },
  { name: 'Migration20261125200000_course_reset_receipt', class: Migration20261125200000_course_reset_receipt },
  { name: 'Migration20261125300000_access_code_verification', class: Migration20261125300000_access_code_verification },
  { name: 'Migration20261125400000_assessment_activity', class: Migration20261125400000_assessment_activity },
  { name: 'Migration20261127000000_course_reset_journal', class: Migration20261127000000_course_reset_journal },
  { name: 'Migration20261127100000_session_start_token', class: Migration20261127100000_session_start_token },
  { name: 'Migration20261127200000_context_proof_role', class: Migration20261127200000_context_proof_role },
  { name: 'Migration20261127300000_session_generation', class: Migration20261127300000_session_generation },
  { name: 'Migration20261127400000_audit_pending', class: Migration20261127400000_audit_pending },
  { name: 'Migration20261128400000_unmanaged_access_code', class: Migration20261128400000_unmanaged_access_code },
  { name: 'Migration20261129000000_exam_day_student', class: Migration20261129000000_exam_day_student },
  { name: 'Migration20261129100000_student_token_owner', class: Migration20261129100000_student_token_owner },
  { name: 'Migration20261129200000_exam_day_lms_reads', class: Migration20261129200000_exam_day_lms_reads },
  { name: 'Migration20261129300000_exam_day_notify', class: Migration20261129300000_exam_day_notify },
  { name: 'Migration20261129400000_exam_day_exemption', class: Migration20261129400000_exam_day_exemption },
  { name: 'Migration20261129500000_pre_exam_sweep', class: Migration20261129500000_pre_exam_sweep },
  { name: 'Migration20261130000000_exam_day_change_order', class: Migration20261130000000_exam_day_change_order },
  { name: 'Migration20261130100000_assessment_override_starts', class: Migration20261130100000_assessment_override_starts },
];
