import type { RequestContext } from '../context/request-context.js';
import { MAX_RELATION_SIZE } from '../graphql/connection.js';
import { CertificateDocument } from './certificate-document.entity.js';

/**
 * The request's loader of certificates' documents (signed PDF, transcript) by certificate uuid: the
 * GraphQL field reads through it, and issuance primes it with the documents it just wrote.
 */
export const certificateDocuments = (ctx: Pick<RequestContext, 'loaders'>) => ctx.loaders.manyBy(CertificateDocument, 'certificate', MAX_RELATION_SIZE);
