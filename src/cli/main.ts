/**
 * Operator CLI: `npm run cli -- <command>`. Reaches the same database as the server with the same
 * configuration: DATABASE_URL, or the embedded PostgreSQL in DATA_DIR (reusing a running server's).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { SigningIdentity } from '../certificates/signing-identity.entity.js';
import { installSigningIdentity } from '../certificates/signing-identity.service.js';
import { prepareSigningKeys, rewrapSigningKeys, type SigningKeys } from '../certificates/signing-keys.js';
import { resolveKeyWrapper } from '../security/key-encryption-key.js';
import { KeyEnvelopeError, localKeyWrapper } from '../security/key-envelope.js';
import { findOrFail } from '../db/lookup.js';
import { scopeToTenant } from '../db/tenant-scope.js';
import { DocumentError } from '../documents/index.js';
import { Institution } from '../institutions/institution.entity.js';
import { ClientService } from '../auth/client.service.js';
import { loadConfig } from '../config.js';
import { resolveDatabase } from '../db/database.js';
import { openServiceOrm, type Orm } from '../db/orm.js';
import { DomainError } from '../errors/domain-error.js';
import { createLogger } from '../logger.js';
import { TenantService } from '../tenants/tenant.service.js';

const USAGE = `usage: npm run cli -- <command>
  tenant:create <identifier> [--name "Display name"]
  tenant:link-hosts <identifier> [host ...]             the domains (with subdomains) a certificate's
                                                         public_verification_url may use; none: only this service
  client:create --tenant <identifier> [--name <label>]   prints client_id and client_secret once
  client:rotate <client_id>                              new pair; the old pair and its tokens stop working now
  client:list
  signing:install --tenant <identifier> --institution <uuid> --p12 <file> [--passphrase <p>]
                                                         the institution signs with this PKCS#12 from now on
                                                         (passphrase also from SIGNING_P12_PASSPHRASE)
  signing:show --tenant <identifier> --institution <uuid>
  keys:rewrap                                            re-wraps every signing key from KEY_ENCRYPTION_KEY to
                                                         NEW_KEY_ENCRYPTION_KEY (one transaction); then restart
                                                         the servers with the new key as KEY_ENCRYPTION_KEY`;

/** What a command works with: the ORM and the key ring opened under KEY_ENCRYPTION_KEY. */
interface CliContext {
  orm: Orm;
  signingKeys: SigningKeys;
}

type Command = (ctx: CliContext, positionals: string[], options: Record<string, string | undefined>) => Promise<void>;

function required(value: string | undefined, what: string): string {
  if (!value) throw new DomainError('BAD_USER_INPUT', `missing ${what}\n${USAGE}`);
  return value;
}

function printCredentials(credentials: { clientId: string; clientSecret: string; tenant: string }): void {
  console.log(`tenant:         ${credentials.tenant}`);
  console.log(`client_id:      ${credentials.clientId}`);
  console.log(`client_secret:  ${credentials.clientSecret}`);
  console.log('The secret is shown only now; the service keeps only its hash.');
}

async function institutionOf(orm: Orm, tenantIdentifier: string | undefined, institutionUuid: string | undefined) {
  const tenant = await new TenantService(orm.em.fork()).findByIdentifier(required(tenantIdentifier, '--tenant'));
  if (!tenant) throw new DomainError('NOT_FOUND', `No tenant "${tenantIdentifier}".`);
  const em = scopeToTenant(orm.em.fork(), tenant.uuid);
  return { em, institution: await findOrFail(em, Institution, required(institutionUuid, '--institution'), 'Institution') };
}

const commands: Record<string, Command> = {
  'tenant:create': async ({ orm }, [identifier], { name }) => {
    const tenant = await new TenantService(orm.em.fork()).create(required(identifier, 'tenant identifier'), name);
    console.log(`tenant "${tenant.identifier}" created`);
  },
  'tenant:link-hosts': async ({ orm }, [identifier, ...hosts]) => {
    const tenant = await new TenantService(orm.em.fork()).setLinkHosts(required(identifier, 'tenant identifier'), hosts);
    const allowed = tenant.allowedLinkHosts.length > 0 ? tenant.allowedLinkHosts.join(', ') : 'none (only this service)';
    console.log(`tenant "${tenant.identifier}" verification links may use: ${allowed}`);
  },
  'client:create': async ({ orm }, _positionals, { tenant, name }) => {
    printCredentials(await new ClientService(orm.em.fork()).create(required(tenant, '--tenant'), name));
  },
  'client:rotate': async ({ orm }, [clientId]) => {
    printCredentials(await new ClientService(orm.em.fork()).rotate(required(clientId, 'client_id')));
    console.log(`${clientId} and every token it was issued are revoked.`);
  },
  'signing:install': async ({ orm, signingKeys }, _positionals, { tenant, institution: uuid, p12, passphrase }) => {
    const { em, institution } = await institutionOf(orm, tenant, uuid);
    const bundle = await readFile(required(p12, '--p12'));
    const secret = passphrase ?? process.env.SIGNING_P12_PASSPHRASE ?? '';
    try {
      const installed = await installSigningIdentity({ em, signingKeys }, institution, bundle, secret);
      console.log(`${institution.name} now signs with certificate SHA-256 ${installed.fingerprintSha256}, valid until ${installed.notAfter.toISOString()}`);
    } catch (error) {
      if (error instanceof DocumentError) throw new DomainError('BAD_USER_INPUT', error.message);
      throw error;
    }
  },
  'signing:show': async ({ orm }, _positionals, { tenant, institution: uuid }) => {
    const { em, institution } = await institutionOf(orm, tenant, uuid);
    const identity = await em.findOne(SigningIdentity, { institution });
    if (!identity) console.log(`${institution.name} has no signing identity yet; one is generated at its first issuance.`);
    else
      console.log(`${institution.name}: ${identity.origin} certificate SHA-256 ${identity.fingerprintSha256}, valid until ${identity.notAfter.toISOString()}`);
  },
  'keys:rewrap': async ({ orm }) => {
    if (!config.newKeyEncryptionKey) throw new DomainError('BAD_USER_INPUT', `NEW_KEY_ENCRYPTION_KEY is not set\n${USAGE}`);
    const to = localKeyWrapper(config.newKeyEncryptionKey);
    const { rewrapped, unchanged } = await rewrapSigningKeys(orm, wrapper, to);
    console.log(`${rewrapped} signing key(s) re-wrapped from ${wrapper.id} to ${to.id}; ${unchanged} already under ${to.id}.`);
    console.log('Restart every server process with NEW_KEY_ENCRYPTION_KEY as KEY_ENCRYPTION_KEY.');
  },
  'client:list': async ({ orm }) => {
    const clients = await new ClientService(orm.em.fork()).list();
    if (clients.length === 0) console.log('no clients');
    for (const client of clients) {
      const state = client.revokedAt ? `revoked ${client.revokedAt.toISOString()}` : 'active';
      console.log(`${client.clientId}  tenant=${client.tenant}  name=${client.name}  created=${client.createdAt.toISOString()}  ${state}`);
    }
  },
};

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { tenant: { type: 'string' }, name: { type: 'string' }, institution: { type: 'string' }, p12: { type: 'string' }, passphrase: { type: 'string' } },
});
const [name, ...rest] = positionals;
const command = name ? commands[name] : undefined;
if (!command) {
  console.error(USAGE);
  process.exit(2);
}

const config = loadConfig();
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
const wrapper = await resolveKeyWrapper(config, logger);
const database = await resolveDatabase(config, logger);
const { orm } = await openServiceOrm(database, logger);
try {
  // keys:rewrap is how keys under another key-encryption key get fixed, so it must start anyway.
  const signingKeys = await prepareSigningKeys(orm, wrapper, logger, { verify: name !== 'keys:rewrap' });
  await command({ orm, signingKeys }, rest, values);
} catch (error) {
  if (!(error instanceof DomainError || error instanceof KeyEnvelopeError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await orm.close();
  await database.release();
}
