export * from './base64url-token.js';
export * from './base64url-token-schema.js';
export * from './content-id.js';
export * from './content-id-schema.js';
export * from './detector-config.js';
export * from './lms-paths.js';
export * from './lti-custom-fields.js';
export * from './oauth-scopes.js';
