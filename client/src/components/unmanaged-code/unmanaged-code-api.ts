import type { TRPCClient } from '@trpc/client';
import type { AppRouter, RouterOutputs } from '../../lib/trpc';
import type { StudentActionScope } from '../exam-day/StudentActionDialog';

/** Where the choices act: the teacher's own course, or a connected course of the administrator's account. */
export type UnmanagedCodeScope = StudentActionScope;

export type AdoptCandidate = RouterOutputs['admin']['assessments']['adoptCandidates']['candidates'][number];

/** The choices for a quiz with a code this tool does not manage, through the procedures of the scope's role. */
export interface UnmanagedCodeApi {
  clear(): Promise<unknown>;
  /** Requires the exam browser, which puts this tool's own code in the LMS. */
  adopt(): Promise<unknown>;
  candidates(): Promise<readonly AdoptCandidate[]>;
  adoptOriginal(source: AdoptCandidate): Promise<unknown>;
}

export function unmanagedCodeApi(client: TRPCClient<AppRouter>, scope: UnmanagedCodeScope, assessmentId: string): UnmanagedCodeApi {
  const source = (candidate: AdoptCandidate) => ({ sourceCourseId: candidate.courseId, sourceContentId: candidate.contentId });
  if (scope.kind === 'teacher') {
    const input = { courseId: scope.courseId, quizId: assessmentId };
    const procedures = client.instructor.enforcement;
    return {
      clear: () => procedures.clearLmsCode.mutate(input),
      adopt: () => procedures.enable.mutate(input),
      candidates: async () => (await procedures.adoptCandidates.query(input)).candidates,
      adoptOriginal: (candidate) => procedures.adoptOriginal.mutate({ ...input, ...source(candidate) }),
    };
  }
  const input = { courseId: scope.courseId, assessmentId };
  const procedures = client.admin.assessments;
  return {
    clear: () => procedures.clearLmsCode.mutate(input),
    adopt: () => procedures.setRequired.mutate({ ...input, required: true }),
    candidates: async () => (await procedures.adoptCandidates.query(input)).candidates,
    adoptOriginal: (candidate) => procedures.adoptOriginal.mutate({ ...input, ...source(candidate) }),
  };
}
