/**
 * 1EdTech's JSON-LD context of CLR 2.0, unchanged, as published at CLR_CONTEXT_URL (copied from
 * 1EdTech/digital-credentials-public-validator, inspector-vc/src/main/resources/contexts/clr-v2p0-2.0.1.json,
 * commit 38254719): no npm package ships it, and nothing is fetched (document-loader.ts).
 */
export const CLR_CONTEXT_URL = 'https://purl.imsglobal.org/spec/clr/v2p0/context-2.0.1.json';

export const CLR_CONTEXT = {
  '@context': {
    id: '@id',
    type: '@type',
    ClrCredential: {
      '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#ClrCredential',
      '@context': {
        id: '@id',
        type: '@type',
        partial: {
          '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#partial',
          '@type': 'xsd:boolean',
        },
      },
    },
    ClrSubject: {
      '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#ClrSubject',
      '@context': {
        id: '@id',
        type: '@type',
        cred: 'https://www.w3.org/2018/credentials#',
        obi: 'https://purl.imsglobal.org/spec/vc/ob/vocab.html#',
        achievement: {
          '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#achievement',
          '@type': 'obi:Achievement',
          '@container': '@set',
        },
        association: {
          '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#association',
          '@type': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#Association',
          '@container': '@set',
        },
        verifiableCredential: {
          '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#verifiableCredential',
          '@type': 'cred:verifiableCredential',
          '@container': '@set',
        },
        identifier: {
          '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#identifier-1',
          '@type': 'obi:Identifier',
          '@container': '@set',
        },
      },
    },
    Association: {
      '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#Association',
      '@context': {
        associationType: {
          '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#AssociationType',
        },
        sourceId: {
          '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#sourceId',
          '@type': 'xsd:anyURI',
        },
        targetId: {
          '@id': 'https://purl.imsglobal.org/spec/vc/clr/vocab.html#targetId',
          '@type': 'xsd:anyURI',
        },
      },
    },
  },
};
