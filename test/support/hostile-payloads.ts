/**
 * Whole hostile requests for `npm run bench -- hostile` (and any test that wants them): the PDF bombs
 * of hostile-pdf.ts as uploadable files, relation cycles, deep JSON, text that cannot be stored.
 */
import { appendSignature, certificateBombCms, laboriousPdf, signWith, strangerKey, tinyObjectsBomb, xrefSizeBomb } from './hostile-pdf.js';

/** finding 1: 1,000 slow-key certificates (≈ 2.6 MB), none named by the signer. */
export function cpuBombPdf(copies = 1000): Buffer {
  const cms = certificateBombCms(copies, false);
  return appendSignature(laboriousPdf(1, 1), () => cms, cms.length);
}

/** finding 2: a cross-reference stream declaring two billion objects, signed so inspection reaches the parser. */
export const hugeXrefPdf = (): Buffer => appendSignature(xrefSizeBomb(), signWith(strangerKey()));

/** finding 2, the other way: 600,000 tiny objects in compressed object streams, signed likewise. */
export const manyObjectsPdf = (): Buffer => appendSignature(tinyObjectsBomb(60, 10_000), signWith(strangerKey()));

/** finding 3: relation cycles, each level multiplying the rows by the enrollments per student. */
export const CYCLIC_QUERY =
  '{ students(first: 100) { nodes { enrollments(first: 100) { nodes { student { enrollments(first: 100) { nodes { uuid } } } } } } } }';

/** finding 7: JSON nested far deeper than any document of this API. */
export const deepJson = (levels = 20_000) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** finding 7: text PostgreSQL cannot store (NUL) or JSON cannot represent faithfully (lone surrogates). */
export const UNSTORABLE_TEXT = ['a\u0000b', 'x\ud800y', '\udfff'];
