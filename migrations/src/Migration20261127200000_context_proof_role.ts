import { Migration } from '@mikro-orm/migrations';

/**
 * The role in which a context binding was proven: `instructor` or `student` for a course a launch of that role proved
 * with the user's own grant, `administrator` for a root account an administrator confirmed, or a course the grant of an
 * administrator of its account resolved. Only instructor and administrator proofs let the background verifier act with
 * the prover's stored grant; a binding from before this column has no role and never does.
 */
export class Migration20261127200000_context_proof_role extends Migration {
  override name = 'Migration20261127200000_context_proof_role';

  override up(): void {
    this.addSql(`
      alter table lti_context_binding add column proven_by_role text null
        constraint lti_context_binding_proven_by_role_check check (proven_by_role in ('instructor', 'student', 'administrator'));
    `);
  }

  override down(): void {
    this.addSql('alter table lti_context_binding drop column if exists proven_by_role;');
  }
}
