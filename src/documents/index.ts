/** The document layer of certificates: signing identities, PDF signing and inspection, transcripts. */
export { DocumentError, type DocumentErrorReason } from './document-error.js';
export {
  createSigningIdentity,
  generateSigningIdentity,
  loadSigningIdentity,
  openSigningIdentity,
  type OpenedSigningIdentity,
  type GeneratedSigningBundle,
  type SigningIdentityBundle,
  type SigningIdentityMetadata,
  type SigningIdentityOptions,
} from './signing-identity.js';
export { prepareSigner, PreparedSigner } from './prepared-signer.js';
export { exportKeyMaterial, importKeyMaterial, type ExportedKeyMaterial } from './key-material.js';
export type { SigningKeyMaterial } from './pkcs12.js';
export { signPdf, type SignatureDetails } from './pdf-signer.js';
export { sealPlacement, type SealPlacement } from './seal-placement.js';
export { inspectSignedPdf, type SignatureInspection, type SignatureReport } from './signature-inspector.js';
export { DocumentWorkers } from './document-workers.js';
export { WorkerJobError } from './worker-pool.js';
export type { IssuanceDocumentsInput, PreviewFormat } from './document-jobs.js';
export type { CredentialReference } from './source-pdf.js';
export { renderTranscript } from './transcript.js';
export type { TranscriptData, TranscriptModule, TranscriptModuleGroup } from './transcript-content.js';
export type { DocumentDesign } from './document-design.js';
export type { Layout, LayoutDrawing, LayoutElement, LayoutFile } from './layout-drawing.js';
