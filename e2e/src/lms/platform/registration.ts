import { buildRegistrationDocument } from '@exb/server/domain/lti-registration.js';
import { z } from 'zod';

export interface PlacementConfig {
  placement: string;
  messageType: 'LtiResourceLinkRequest' | 'LtiDeepLinkingRequest';
  targetLinkUri: string;
  text: string;
  customFields: Record<string, string>;
  visibility: 'admins' | 'members' | 'public' | undefined;
  requiredPermissions: string[];
  rootAccountOnly: boolean;
  enabled: boolean;
}

/** The tool's LTI configuration as installed in the LMS (a developer key's JSON configuration). */
export interface ToolRegistration {
  title: string;
  oidcInitiationUrl: string;
  targetLinkUri: string;
  customFields: Record<string, string>;
  privacyLevel: 'anonymous' | 'name_only' | 'email_only' | 'public';
  placements: Map<string, PlacementConfig>;
}

const customFieldsSchema = z
  .union([z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])), z.string()])
  .optional()
  .transform((value): Record<string, string> => {
    if (value === undefined) return {};
    // The legacy string form: one `key=value` per line.
    if (typeof value === 'string') {
      return Object.fromEntries(
        value
          .split(/\r?\n/)
          .map((line) => line.split('='))
          .filter((parts) => parts.length >= 2 && parts[0]!.trim())
          .map(([key, ...rest]) => [key!.trim(), rest.join('=').trim()]),
      );
    }
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, String(entry)]));
  });

const placementSchema = z.looseObject({
  placement: z.string().min(1),
  message_type: z.enum(['LtiResourceLinkRequest', 'LtiDeepLinkingRequest']).default('LtiResourceLinkRequest'),
  target_link_uri: z.string().optional(),
  url: z.string().optional(),
  text: z.string().optional(),
  custom_fields: customFieldsSchema,
  visibility: z.enum(['admins', 'members', 'public']).optional(),
  required_permissions: z.string().optional(),
  root_account_only: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
  enabled: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
});

const registrationSchema = z.looseObject({
  title: z.string().min(1),
  oidc_initiation_url: z.url(),
  target_link_uri: z.url(),
  custom_fields: customFieldsSchema,
  extensions: z
    .array(
      z.looseObject({
        platform: z.string(),
        privacy_level: z.enum(['anonymous', 'name_only', 'email_only', 'public']).default('anonymous'),
        settings: z.looseObject({ text: z.string().optional(), placements: z.array(placementSchema).default([]) }).optional(),
      }),
    )
    .default([]),
});

/** The registration document the service serves at `/lti/config`, built by the service's own code. */
export function defaultRegistrationDocument(toolBaseUrl: string): Record<string, unknown> {
  return buildRegistrationDocument({ baseUrl: toolBaseUrl, lmsPlatform: 'canvas.instructure.com', courseNavigationVisibleToStudents: true });
}

/**
 * Reads a registration document the way the LMS imports it. The LMS keeps the first extension (its own platform's);
 * placements without their own launch URL use the tool's.
 */
export function parseRegistration(document: unknown): ToolRegistration {
  const parsed = registrationSchema.safeParse(document);
  if (!parsed.success) throw new Error(`Invalid LTI registration document:\n${z.prettifyError(parsed.error)}`);
  const doc = parsed.data;
  const extension = doc.extensions[0];
  const placements = new Map<string, PlacementConfig>();
  for (const placement of extension?.settings?.placements ?? []) {
    placements.set(placement.placement, {
      placement: placement.placement,
      messageType: placement.message_type,
      targetLinkUri: placement.target_link_uri ?? placement.url ?? doc.target_link_uri,
      text: placement.text ?? extension?.settings?.text ?? doc.title,
      customFields: placement.custom_fields,
      visibility: placement.visibility,
      requiredPermissions: (placement.required_permissions ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
      rootAccountOnly: placement.root_account_only === true || placement.root_account_only === 'true',
      enabled: placement.enabled !== false && placement.enabled !== 'false',
    });
  }
  return {
    title: doc.title,
    oidcInitiationUrl: doc.oidc_initiation_url,
    targetLinkUri: doc.target_link_uri,
    customFields: doc.custom_fields,
    privacyLevel: extension?.privacy_level ?? 'anonymous',
    placements,
  };
}
