import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { BitstringStatusList, createCredential } from '@digitalbazaar/vc-bitstring-status-list';
import { checkProofAndStatus, type ProofAndStatus } from './credential-proof.js';
import { signCredential } from './credential-signing.js';
import { CREDENTIAL_CONTEXT, dereferenceDid } from './document-loader.js';
import { didDocument } from './open-badge-credential.js';

const WARM_UP_DID = 'did:web:warm-up.invalid';
const WARM_UP_LIST = 'https://warm-up.invalid/status/1';

/**
 * Signs and checks a throwaway credential and its status list (both checks pass), so a fresh worker
 * has processed the JSON-LD contexts and compiled the hot paths before its first job: that job's
 * time limit then measures the job only.
 */
export async function warmUpCredentialChecks(): Promise<ProofAndStatus> {
  const key = await Ed25519Multikey.generate({ controller: WARM_UP_DID });
  const list = await createCredential({ id: WARM_UP_LIST, list: new BitstringStatusList({ length: 131_072 }), statusPurpose: 'revocation' });
  const statusList = await signCredential({ ...list, issuer: WARM_UP_DID, validFrom: '2020-01-01T00:00:00Z' }, key.signer());
  const credential = await signCredential(
    {
      '@context': CREDENTIAL_CONTEXT,
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      issuer: { id: WARM_UP_DID, type: ['Profile'], name: 'Warm-up' },
      validFrom: '2020-01-01T00:00:00Z',
      credentialSubject: {
        type: ['AchievementSubject'],
        achievement: { id: 'urn:uuid:00000000-0000-4000-8000-000000000000', type: ['Achievement'], name: 'Warm-up', criteria: { narrative: 'None.' } },
      },
      credentialStatus: {
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListIndex: '0',
        statusListCredential: WARM_UP_LIST,
      },
    },
    key.signer(),
  );
  const did = didDocument(WARM_UP_DID, [key]);
  const method = did.verificationMethod[0]!.id;
  const documents = new Map<string, object>([
    [WARM_UP_DID, did],
    [method, dereferenceDid(did, method)!],
    [WARM_UP_LIST, statusList],
  ]);
  return checkProofAndStatus({ credential, documents, now: new Date() });
}
