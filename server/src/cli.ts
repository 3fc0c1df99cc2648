import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { loadConfig, type AppConfig } from './config/app-config.js';
import { openDatabase, type Database } from './db/orm.js';
import { createLogger } from './logger.js';
import { exitOnStartupError } from './main.js';
import { describeMigrationReport, migrateTokens } from './oauth/migrate-tokens.js';
import { SessionGenerations } from './security/session-generations.js';

interface CommandContext {
  config: AppConfig;
  db: Database;
  logger: Logger;
  /** The words after the command's name. */
  args: string[];
  print(line: string): void;
}

/** A command returns its exit status; nothing returned means success. */
type Command = { summary: string; run(ctx: CommandContext): Promise<number | void> };

/** Maintenance commands: `npm run cli -- <command>`. */
export const commands: Record<string, Command> = {
  migrate: {
    summary: 'apply every pending checked-in database migration',
    async run({ db, print }) {
      const applied = await db.migrate();
      print(applied.length === 0 ? 'Database is up to date.' : `Applied ${applied.length} migration(s): ${applied.join(', ')}`);
    },
  },
  'migrate-tokens': {
    summary: 'encrypt legacy plaintext LMS tokens and re-encrypt all under the active TOKEN_ENCRYPTION_KEYS key',
    async run({ config, db, logger, print }) {
      const report = await migrateTokens(config, db.orm, logger);
      for (const line of describeMigrationReport(report, config.secrets.tokenEncryptionKeys[0]!.kid)) print(line);
      // Rows no key opens need an operator's attention (a key dropped too early); a script must be able to tell.
      return report.unreadable > 0 ? 3 : 0;
    },
  },
  'end-sessions': {
    summary: 'end every session of one person: end-sessions <issuer> <subject> (the launch\'s iss and sub)',
    async run({ db, args, print }) {
      const [issuer, subject] = args;
      if (args.length !== 2 || !issuer || !subject) {
        print('Usage: npm run cli -- end-sessions <issuer> <subject>');
        return 2;
      }
      const generation = await new SessionGenerations(db.pool).endSessions({ issuer, subject });
      // Other instances refuse the ended sessions within their generation cache's few seconds.
      print(`Ended the sessions of ${subject} (${issuer}); their next launch starts session generation ${generation}.`);
    },
  },
  'migrations:pending': {
    summary: 'list checked-in migrations not yet applied',
    async run({ db, print }) {
      const pending = await db.pendingMigrations();
      print(pending.length === 0 ? 'No pending migrations.' : pending.join('\n'));
    },
  },
};

function usage(): string {
  return ['Usage: npm run cli -- <command>', '', 'Commands:', ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(22)}${c.summary}`)].join('\n');
}

export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env, print = (line: string) => process.stdout.write(`${line}\n`)): Promise<number> {
  const name = argv[0];
  const command = name ? commands[name] : undefined;
  if (!command) {
    print(usage());
    return name && name !== 'help' && name !== '--help' ? 2 : 0;
  }
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, poolSize: 2 });
  try {
    return (await command.run({ config, db, logger, args: argv.slice(1), print })) ?? 0;
  } finally {
    await db.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCli(process.argv.slice(2)).then((code) => process.exit(code), exitOnStartupError);
}
