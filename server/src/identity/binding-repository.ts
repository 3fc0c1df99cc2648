import type { MikroORM } from '@mikro-orm/postgresql';

export type ContextKind = 'course' | 'account';

/** The signed identity a claimed LMS user id must be bound to. */
export interface SubjectRef {
  issuer: string;
  ltiSubject: string;
  lmsUserId: string;
}

/** A claimed numeric course or account id and the signed context it came with. */
export interface ContextRef {
  issuer: string;
  kind: ContextKind;
  ltiContextId: string;
  lmsId: string;
}

/**
 * Where user bindings are kept: the token record of each grant binds the user id to the `(issuer, sub)` whose
 * authorization proved it (`oauth/token-repository.ts`, written by the OAuth callback). Returns the bindings under the
 * subject's issuer that involve its user id or its subject.
 */
export interface UserBindingSource {
  userBindings(subject: SubjectRef): Promise<{ lmsUserId: string; ltiSubject: string }[]>;
}

/**
 * Who proved a context, and in which role: a course is proven by an instructor or a student with their own grant, or
 * by an administrator of its account with theirs; a root account by its administrator. The role decides whose grant
 * may later act for the course without them (`oauth/token-repository.ts`, `courseManagerHolder`).
 */
export interface ContextProver {
  lmsUserId: string;
  role: 'instructor' | 'student' | 'administrator';
}

/** What the stored context bindings say about a claimed course or account id. */
export interface ContextCheck {
  /** The claimed course or account id is bound to another context, or the context to another id. */
  contextConflict: boolean;
  /** The claimed context id is proven (bound to exactly this id). */
  contextProven: boolean;
}

/**
 * The context bindings' storage, rows of `lti_context_binding` (`Migration20261124000000_identity_binding`). A binding,
 * once written, never changes, which is what lets the service cache proven ones.
 */
export class BindingRepository {
  constructor(private readonly orm: MikroORM) {}

  /** Both directions of a claimed context in one round trip: the context's bound id, and the id's bound context. */
  async checkContext(context: ContextRef): Promise<ContextCheck> {
    const rows = await this.orm.em.getConnection().execute<{ lms_id: string; ref: string }[]>(
      `select lms_id, lti_context_id as ref from lti_context_binding
         where issuer = ? and context_kind = ? and (lti_context_id = ? or lms_id = ?)`,
      [context.issuer, context.kind, context.ltiContextId, context.lmsId],
    );
    const proven = (row: { lms_id: string; ref: string }) => row.lms_id === context.lmsId && row.ref === context.ltiContextId;
    return { contextConflict: rows.some((row) => !proven(row)), contextProven: rows.some(proven) };
  }

  /** The id bound to a signed context, or `null` while none is proven. */
  async boundId(issuer: string, kind: ContextKind, ltiContextId: string): Promise<string | null> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ lms_id: string }[]>(
        'select lms_id from lti_context_binding where issuer = ? and context_kind = ? and lti_context_id = ?',
        [issuer, kind, ltiContextId],
      );
    return rows[0]?.lms_id ?? null;
  }

  /**
   * Makes an instructor of a proven course its prover of record when the binding names none: a student's proof, or one
   * from before the role was recorded. The binding itself (context and id) never changes; only whose grant the
   * background verifier may use does (`oauth/token-repository.ts`, `courseManagerHolder`).
   */
  async recordInstructor(context: ContextRef, lmsUserId: string): Promise<void> {
    await this.orm.em.getConnection().execute(
      `update lti_context_binding set proven_by_lms_user_id = ?, proven_by_role = 'instructor'
        where issuer = ? and context_kind = ? and lti_context_id = ? and lms_id = ?
          and proven_by_role is distinct from 'instructor' and proven_by_role is distinct from 'administrator'`,
      [lmsUserId, context.issuer, context.kind, context.ltiContextId, context.lmsId],
      'run',
    );
  }

  /**
   * Records a proven context binding. Returns whether the stored binding is exactly this one afterwards: `false` when
   * the context or the id was bound otherwise before (a proof never overwrites another).
   */
  async recordContext(context: ContextRef, provenBy: ContextProver): Promise<boolean> {
    const connection = this.orm.em.getConnection();
    await connection.execute(
      `insert into lti_context_binding (issuer, context_kind, lti_context_id, lms_id, proven_by_lms_user_id, proven_by_role)
       values (?, ?, ?, ?, ?, ?) on conflict do nothing`,
      [context.issuer, context.kind, context.ltiContextId, context.lmsId, provenBy.lmsUserId, provenBy.role],
      'run',
    );
    return (await this.boundId(context.issuer, context.kind, context.ltiContextId)) === context.lmsId;
  }
}
