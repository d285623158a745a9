import type * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import type { PublicContext } from '../../context/request-context.js';
import { acrossTenants } from '../../db/tenant-scope.js';
import { uuidv7 } from '../../db/uuid.js';
import type { Institution } from '../../institutions/institution.entity.js';
import { open, seal } from '../../security/key-envelope.js';
import { IssuerKey } from './issuer-key.entity.js';
import { insertFirstIssuerKey, type NewIssuerKeyRow } from './open-badges-v3.repository.js';

/** What key handling needs of a context: the EntityManager and the key ring's key-encryption key. */
export type IssuerKeyContext = Pick<PublicContext, 'em' | 'signingKeys'>;

/** A row's uuid is authenticated with its key: a sealed key copied onto another row does not open. */
const sealContext = (uuid: string) => `ob3_issuer_keys/${uuid}`;

/** The verification method id of a key of `did`: the DID URL with the public key as fragment. */
export const verificationMethodId = (did: string, publicKeyMultibase: string) => `${did}#${publicKeyMultibase}`;

export type IssuerSigner = ReturnType<Ed25519Multikey.Ed25519KeyPair['signer']>;

/** Ed25519 keys: loaded with the first issuer key made or opened. */
const ed25519 = (): Promise<typeof Ed25519Multikey> => import('@digitalbazaar/ed25519-multikey');

async function newKeyRow({ signingKeys }: IssuerKeyContext, institution: Institution): Promise<NewIssuerKeyRow> {
  const uuid = uuidv7();
  const pair = await (await ed25519()).generate();
  const exported = await pair.export({ publicKey: true, secretKey: true });
  const secret = Buffer.from(exported.secretKeyMultibase as string, 'utf8');
  return {
    uuid,
    institution: institution.uuid,
    tenant: institution.tenant.uuid,
    publicKeyMultibase: pair.publicKeyMultibase,
    sealedSecretKey: await seal(signingKeys.wrapper, secret, sealContext(uuid)),
  };
}

async function signerOf({ signingKeys }: IssuerKeyContext, key: IssuerKey, did: string): Promise<IssuerSigner> {
  const secretKeyMultibase = (await open(signingKeys.wrapper, key.sealedSecretKey, sealContext(key.uuid))).toString('utf8');
  const id = verificationMethodId(did, key.publicKeyMultibase);
  const pair = await (await ed25519()).from({ type: 'Multikey', id, controller: did, publicKeyMultibase: key.publicKeyMultibase, secretKeyMultibase });
  return pair.signer();
}

/**
 * The signer of an institution's active key, made on first use in the caller's transaction (no
 * second connection: concurrent issuances could otherwise exhaust the pool waiting for one).
 */
export async function activeIssuerSigner(ctx: IssuerKeyContext, institution: Institution, did: string): Promise<IssuerSigner> {
  const active = { institution: institution.uuid, retiredAt: null };
  const current = await ctx.em.findOne(IssuerKey, active, acrossTenants());
  if (current) return signerOf(ctx, current, did);
  const row = await newKeyRow(ctx, institution);
  await insertFirstIssuerKey(ctx.em, row);
  return signerOf(ctx, await ctx.em.findOneOrFail(IssuerKey, active, { refresh: true, ...acrossTenants('live', 'primary') }), did);
}

/** Retires the active key (it stays published) and makes a new one active; returns the new public key. */
export async function rotateIssuerKey(ctx: IssuerKeyContext, institution: Institution): Promise<{ publicKeyMultibase: string; retired: number }> {
  const row = await newKeyRow(ctx, institution);
  const retired = await ctx.em.fork().transactional(async (tx) => {
    const count = await tx.nativeUpdate(IssuerKey, { institution: institution.uuid, retiredAt: null }, { retiredAt: new Date() }, acrossTenants());
    tx.create(IssuerKey, row);
    return count;
  });
  return { publicKeyMultibase: row.publicKeyMultibase, retired };
}

/** Every key the institution ever signed with (active first), as its DID document publishes them. */
export async function publishedIssuerKeys({ em }: Pick<PublicContext, 'em'>, institutionUuid: string): Promise<IssuerKey[]> {
  const keys = await em.find(IssuerKey, { institution: institutionUuid }, { ...acrossTenants(), orderBy: { createdAt: 'desc' } });
  return keys.sort((a, b) => Number(Boolean(a.retiredAt)) - Number(Boolean(b.retiredAt)));
}
