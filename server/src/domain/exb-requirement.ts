/**
 * Whether an assessment requires the exam browser. The launch only needs the answer; the enforcement settings that
 * produce it belong to the enforcement domain, which provides the lookup.
 */
export interface ExbRequirementLookup {
  isRequired(assessment: { courseId: string; contentId: string }): Promise<boolean>;
}
