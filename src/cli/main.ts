/**
 * Operator CLI: `npm run cli -- <command>` (`--help` anywhere). Reaches the same database as the
 * server with the same configuration: DATABASE_URL, or the embedded PostgreSQL in DATA_DIR (reusing
 * a running server's; a new one only with --init).
 */
import { readFile } from 'node:fs/promises';
import { Command, CommanderError } from 'commander';
import { pino } from 'pino';
import { ClientService } from '../auth/client.service.js';
import { rotateIssuerKey } from '../badges/v3/issuer-keys.js';
import { SigningIdentity } from '../certificates/signing-identity.entity.js';
import { installSigningIdentity } from '../certificates/signing-identity.service.js';
import { prepareSigningKeys, rewrapSigningKeys, type SigningKeys } from '../certificates/signing-keys.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { resolveDatabase } from '../db/database.js';
import { NoEmbeddedCluster } from '../db/embedded-postgres.js';
import { findOrFail } from '../db/lookup.js';
import { openServiceOrm, type Orm } from '../db/orm.js';
import { scopeToTenant } from '../db/tenant-scope.js';
import { DocumentError } from '../documents/document-error.js';
import { DomainError } from '../errors/domain-error.js';
import { Institution } from '../institutions/institution.entity.js';
import { createLogger, type Logger } from '../logger.js';
import { KeyEnvelopeError, localKeyWrapper } from '../security/key-envelope.js';
import { resolveKeyWrapper } from '../security/key-encryption-key.js';
import { TenantService } from '../tenants/tenant.service.js';
import { createRequestContext } from '../context/request-context.js';
import { DocumentWorkers } from '../documents/document-workers.js';
import { BadgeWorkers } from '../badges/badge-workers.js';
import { createFileRuntime } from '../files/file-runtime.js';
import { MigrationStopped, migrateFiles, type MigrationProgress } from '../files/file-migration.js';
import { PreviewCache } from '../templates/preview-cache.js';

/** What a command works with: the ORM (migrations applied) and the key ring opened under KEY_ENCRYPTION_KEY. */
interface CliContext {
  orm: Orm;
  signingKeys: SigningKeys;
  config: Config;
}

/** Mistakes of the operator, reported as one line; anything else is a bug and keeps its stack. */
const USER_ERRORS = [DomainError, KeyEnvelopeError, NoEmbeddedCluster, MigrationStopped];

function printCredentials(credentials: { clientId: string; clientSecret: string; tenant: string }): void {
  console.log(`tenant:         ${credentials.tenant}`);
  console.log(`client_id:      ${credentials.clientId}`);
  console.log(`client_secret:  ${credentials.clientSecret}`);
  console.log('The secret is shown only now; the service keeps only its hash.');
}

async function institutionOf(orm: Orm, tenantIdentifier: string, institutionUuid: string) {
  const tenant = await new TenantService(orm.em.fork()).findByIdentifier(tenantIdentifier);
  if (!tenant) throw new DomainError('NOT_FOUND', `No tenant "${tenantIdentifier}".`);
  const em = scopeToTenant(orm.em.fork(), tenant.uuid);
  return { em, institution: await findOrFail(em, Institution, institutionUuid, 'Institution') };
}

// Warnings go to stderr: stdout carries only what a command prints (credentials, lists), for scripts.
const logger: Logger = createLogger(process.env.LOG_LEVEL ?? 'warn', pino.destination(2));
let init = false;

/** Opens the database (migrating it, as a server start would) and the key ring, runs `work`, and closes both. */
async function withService(work: (ctx: CliContext) => Promise<void>, { verifyKeys = true } = {}): Promise<void> {
  const config = loadConfig();
  const database = await resolveDatabase(config, logger, { initialise: init });
  try {
    const wrapper = await resolveKeyWrapper(config, logger);
    const { orm, applied } = await openServiceOrm(database, logger);
    try {
      if (applied.length > 0) console.log(`migrations applied: ${applied.join(', ')}`);
      // keys:rewrap is how keys under another key-encryption key get fixed, so it must start anyway.
      const signingKeys = await prepareSigningKeys(orm, wrapper, logger, { verify: verifyKeys });
      await work({ orm, signingKeys, config });
    } finally {
      await orm.close();
    }
  } finally {
    await database.release();
  }
}

const program = new Command('npm run cli --')
  .description('Operator commands of the credential service.')
  .option('--init', 'create the embedded PostgreSQL in DATA_DIR when there is none yet (a server start does this by itself)')
  .hook('preAction', (command) => {
    init = Boolean(command.opts().init);
  })
  .configureOutput({ outputError: (text, write) => write(`${text.trim().split('\n')[0]} (see --help)\n`) })
  .exitOverride();

program
  .command('migrate')
  .description('apply pending migrations and exit (deployments: migrate first, then roll the server processes)')
  .action(() =>
    withService(async () => {
      console.log('the database schema is current');
    }),
  );

program
  .command('doctor')
  .description('check configuration, database, migrations, signing identities, SMTP and disk; exit 1 when a check fails')
  .action(async () => {
    // Loaded by the commands that use them: every other command starts without them (a quarter of a CLI start's CPU).
    const { diagnose } = await import('./doctor.js');
    const findings = await diagnose(loadConfig(), logger);
    for (const { check, ok, detail } of findings) console.log(`${ok ? 'ok  ' : 'FAIL'}  ${check.padEnd(20)} ${detail}`);
    if (findings.some((finding) => !finding.ok)) process.exitCode = 1;
  });

program
  .command('tenant:create')
  .description('create a tenant; the identifier is what clients send as X-Tenant')
  .argument('<identifier>')
  .option('--name <name>', 'display name')
  .action((identifier: string, options: { name?: string }) =>
    withService(async ({ orm }) => {
      const tenant = await new TenantService(orm.em.fork()).create(identifier, options.name);
      console.log(`tenant "${tenant.identifier}" created`);
    }),
  );

program
  .command('tenant:list')
  .description('list tenants')
  .action(() =>
    withService(async ({ orm }) => {
      const tenants = await new TenantService(orm.em.fork()).list();
      if (tenants.length === 0) console.log('no tenants');
      for (const tenant of tenants) console.log(`${tenant.identifier}  name=${tenant.name}  created=${tenant.createdAt.toISOString()}`);
    }),
  );

program
  .command('tenant:link-hosts')
  .description("the domains (with subdomains) a certificate's public_verification_url may use; none: only this service")
  .argument('<identifier>')
  .argument('[hosts...]')
  .action((identifier: string, hosts: string[]) =>
    withService(async ({ orm }) => {
      const tenant = await new TenantService(orm.em.fork()).setLinkHosts(identifier, hosts);
      const allowed = tenant.allowedLinkHosts.length > 0 ? tenant.allowedLinkHosts.join(', ') : 'none (only this service)';
      console.log(`tenant "${tenant.identifier}" verification links may use: ${allowed}`);
    }),
  );

program
  .command('tenant:contact')
  .description("the e-mail address told about the tenant's integration problems (a disabled webhook endpoint); none: clears it")
  .argument('<identifier>')
  .argument('[email]')
  .action((identifier: string, email: string | undefined) =>
    withService(async ({ orm }) => {
      const tenant = await new TenantService(orm.em.fork()).setContactEmail(identifier, email ?? null);
      console.log(`tenant "${tenant.identifier}" contact: ${tenant.contactEmail ?? 'none (WEBHOOK_NOTICE_EMAIL, if set, is told instead)'}`);
    }),
  );

program
  .command('client:create')
  .description('a client pair for a tenant; the secret is printed once')
  .requiredOption('--tenant <identifier>', 'the tenant the client acts for')
  .option('--name <label>', 'a label for the client')
  .action((options: { tenant: string; name?: string }) =>
    withService(async ({ orm }) => printCredentials(await new ClientService(orm.em.fork()).create(options.tenant, options.name))),
  );

program
  .command('client:rotate')
  .description('a new pair for the same tenant; the old pair and every token it was issued stop working now')
  .argument('<client_id>')
  .action((clientId: string) =>
    withService(async ({ orm }) => {
      printCredentials(await new ClientService(orm.em.fork()).rotate(clientId));
      console.log(`${clientId} and every token it was issued are revoked.`);
    }),
  );

program
  .command('client:list')
  .description('clients with tenant and state')
  .action(() =>
    withService(async ({ orm }) => {
      const clients = await new ClientService(orm.em.fork()).list();
      if (clients.length === 0) console.log('no clients');
      for (const client of clients) {
        const state = client.revokedAt ? `revoked ${client.revokedAt.toISOString()}` : 'active';
        console.log(`${client.clientId}  tenant=${client.tenant}  name=${client.name}  created=${client.createdAt.toISOString()}  ${state}`);
      }
    }),
  );

program
  .command('signing:install')
  .description('the institution signs with this PKCS#12 from now on (passphrase also from SIGNING_P12_PASSPHRASE)')
  .requiredOption('--tenant <identifier>')
  .requiredOption('--institution <uuid>')
  .requiredOption('--p12 <file>', 'PKCS#12 bundle: private key, certificate and chain')
  .option('--passphrase <passphrase>')
  .action((options: { tenant: string; institution: string; p12: string; passphrase?: string }) =>
    withService(async ({ orm, signingKeys, config }) => {
      const { em, institution } = await institutionOf(orm, options.tenant, options.institution);
      const bundle = await readFile(options.p12).catch(() => {
        throw new DomainError('BAD_USER_INPUT', `cannot read ${options.p12}`);
      });
      const secret = options.passphrase ?? config.signingP12Passphrase ?? '';
      try {
        const installed = await installSigningIdentity({ em, signingKeys }, institution, bundle, secret);
        console.log(`${institution.name} now signs with certificate SHA-256 ${installed.fingerprintSha256}, valid until ${installed.notAfter.toISOString()}`);
      } catch (error) {
        if (error instanceof DocumentError) throw new DomainError('BAD_USER_INPUT', error.message, undefined, error.reason);
        throw error;
      }
    }),
  );

program
  .command('signing:show')
  .description("the institution's current signing certificate")
  .requiredOption('--tenant <identifier>')
  .requiredOption('--institution <uuid>')
  .action((options: { tenant: string; institution: string }) =>
    withService(async ({ orm }) => {
      const { em, institution } = await institutionOf(orm, options.tenant, options.institution);
      const identity = await em.findOne(SigningIdentity, { institution });
      if (!identity) console.log(`${institution.name} has no signing identity yet; one is generated at its first issuance.`);
      else
        console.log(
          `${institution.name}: ${identity.origin} certificate SHA-256 ${identity.fingerprintSha256}, valid until ${identity.notAfter.toISOString()}`,
        );
    }),
  );

program
  .command('badges:rotate-key')
  .description("a new Ed25519 key signs the institution's Open Badges 3.0 credentials; the old one stays in its DID document")
  .requiredOption('--tenant <identifier>')
  .requiredOption('--institution <uuid>')
  .action((options: { tenant: string; institution: string }) =>
    withService(async ({ orm, signingKeys }) => {
      const { em, institution } = await institutionOf(orm, options.tenant, options.institution);
      const rotated = await rotateIssuerKey({ em, signingKeys }, institution);
      console.log(
        `${institution.name} now signs Open Badges 3.0 credentials with ${rotated.publicKeyMultibase}; ${rotated.retired} earlier key(s) stay published.`,
      );
    }),
  );

program
  .command('certificates:import')
  .description(
    'create (and with finish=true issue) one certificate per CSV line, as the API does; results CSV with one row per line; exit 1 when a line failed',
  )
  .argument('<file.csv>', 'header line with the columns institution_uuid, course_uuid, student_uuid, file_uuid, ... (see docs/operations.md)')
  .requiredOption('--tenant <identifier>')
  .option('--results <file.csv>', 'where the results go (default: next to the input, <name>.results.csv)')
  .action((file: string, options: { tenant: string; results?: string }) =>
    withService(async ({ orm, signingKeys, config }) => {
      const tenant = await new TenantService(orm.em.fork()).findByIdentifier(options.tenant);
      if (!tenant) throw new DomainError('NOT_FOUND', `No tenant "${options.tenant}".`);
      const { defaultResultsPath, importCertificates } = await import('./certificate-import.js');
      const documents = new DocumentWorkers(config.pdfWorkers);
      // Never started by an import (no badge is verified); the runtime every context carries has it.
      const badgeWorkers = new BadgeWorkers(config.badgeWorkers);
      try {
        const principal = { clientId: 'cli', tenant: { uuid: tenant.uuid, identifier: tenant.identifier, name: tenant.name } };
        const runtime = { documents, badgeWorkers, files: createFileRuntime(config), signingKeys, previews: new PreviewCache(), webhooks: config.webhooks };
        const ctx = createRequestContext(orm.em, principal, 'cli-import', logger, config.publicBaseUrl, runtime);
        const results = options.results ?? defaultResultsPath(file);
        const { created, failed } = await importCertificates(ctx, file, results);
        console.log(`${created} certificate(s) created, ${failed} line(s) failed; results in ${results}`);
        if (failed > 0) process.exitCode = 1;
      } finally {
        await documents.close();
        await badgeWorkers.close();
      }
    }),
  );

program
  .command('files:migrate')
  .description("move every file's content to another storage driver, with progress; resumable: run it again after an interruption")
  .requiredOption('--to <driver>', 'postgres, filesystem or s3 (s3 needs S3_BUCKET and the other S3_* settings)')
  .option('--limit <files>', 'stop after moving this many files')
  .action((options: { to: string; limit?: string }) =>
    withService(async ({ orm, config }) => {
      if (!['postgres', 'filesystem', 's3'].includes(options.to))
        throw new DomainError('BAD_USER_INPUT', `--to must be postgres, filesystem or s3, got "${options.to}"`);
      if (options.to === 's3' && !config.s3) throw new DomainError('BAD_USER_INPUT', 'files:migrate --to s3 needs S3_BUCKET (and the other S3_* settings)');
      const limit = options.limit === undefined ? Infinity : Number(options.limit);
      if (!(limit >= 0)) throw new DomainError('BAD_USER_INPUT', `--limit must be a number, got "${options.limit}"`);
      const runtime = createFileRuntime(config);
      const line = ({ total, moved, bytes }: MigrationProgress) => `${moved}/${total} file(s) moved to ${options.to} (${(bytes / 1048576).toFixed(1)} MiB)`;
      let shown = Date.now();
      const result = await migrateFiles(orm, runtime, options.to, {
        limit,
        onProgress(progress) {
          // A line a second at most: millions of files must not mean millions of lines.
          if (Date.now() - shown < 1000 && progress.moved !== 1) return;
          shown = Date.now();
          console.log(line(progress));
        },
      });
      console.log(`done: ${line(result)}`);
      if (result.moved < result.total) console.log(`${result.total - result.moved} file(s) left on other drivers: run files:migrate again to move them`);
      if (config.fileStorage !== options.to)
        console.log(`new files still go to ${config.fileStorage}: set FILE_STORAGE=${options.to} and restart to change that`);
    }),
  );

program
  .command('keys:rewrap')
  .description('re-wrap every signing key from KEY_ENCRYPTION_KEY to NEW_KEY_ENCRYPTION_KEY (one transaction); then restart with the new key')
  .action(() =>
    withService(
      async ({ orm, config }) => {
        if (!config.newKeyEncryptionKey) throw new DomainError('BAD_USER_INPUT', 'NEW_KEY_ENCRYPTION_KEY is not set');
        const from = await resolveKeyWrapper(config, logger);
        const to = localKeyWrapper(config.newKeyEncryptionKey);
        const { rewrapped, unchanged } = await rewrapSigningKeys(orm, from, to);
        console.log(`${rewrapped} signing key(s) re-wrapped from ${from.id} to ${to.id}; ${unchanged} already under ${to.id}.`);
        console.log('Restart every server process with NEW_KEY_ENCRYPTION_KEY as KEY_ENCRYPTION_KEY.');
      },
      { verifyKeys: false },
    ),
  );

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version end here too, with code 0; usage mistakes were printed on one line above.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof ConfigError) {
    console.error(error.report());
    process.exitCode = 2;
  } else if (USER_ERRORS.some((type) => error instanceof type)) {
    console.error(`error: ${(error as Error).message}`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
