/** Bounds on every list and string, so hostile input costs little to reject and stored policies stay small. */
export const EXB_POLICY_LIMITS = {
  /** Characters of a URL, before and after normalization. */
  urlLength: 2048,
  /** Characters of a host name (DNS limit). */
  hostnameLength: 253,
  hostnameLabelLength: 63,
  /** Characters of a rule or tool id. */
  idLength: 64,
  ruleLabelLength: 120,
  toolLabelLength: 80,
  /** URL rules of one course default or one assessment. */
  urlRules: 100,
  /** Resource rules of one tool. */
  resourceRules: 25,
  /** Tools in a course catalog, school-managed ones included. */
  catalogTools: 50,
  /** Tools defined for a single assessment. */
  quizOnlyTools: 10,
  /** Characters of a start or exit password. */
  passwordLength: 128,
} as const;
