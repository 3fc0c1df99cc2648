import type { Logger } from 'pino';
import type { AppConfig } from './config.js';
import type { Database } from './db/orm.js';
import type { ShellRenderer } from './http/shell.js';
import type { OneTimeStore } from './security/one-time-store.js';
import type { ToolKey } from './security/tool-keys.js';

/**
 * Everything a route group or service needs, built once at start and passed explicitly (no globals), so tests can
 * build the same graph against their own database and configuration.
 */
export interface AppContext {
  config: AppConfig;
  logger: Logger;
  db: Database;
  oneTimeStore: OneTimeStore;
  toolKeys: ToolKey[];
  shell: ShellRenderer;
}
