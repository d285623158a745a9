import { PDFDocument } from 'pdf-lib';
import { createSigningIdentity, inspectSignedPdf, renderTranscript, signPdf } from '../src/documents/index.js';
import { CREDENTIAL_UUID, pageTexts, transcriptData, VERIFICATION_URL } from './fixtures/documents.js';

const inOrder = (text: string, parts: string[]) => {
  expect({ missing: parts.filter((part) => !text.includes(part)), text }).toEqual({ missing: [], text });
  const positions = parts.map((part) => text.indexOf(part));
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
};

describe('academic transcripts', () => {
  it('prints the institution, student, course, grouped modules with totals, grade, dates and verification URL', async () => {
    const data = transcriptData(8);
    const [text, ...more] = await pageTexts(await renderTranscript(data));
    expect(more).toEqual([]);
    inOrder(text, [
      'Universidade Federal de Exemplo',
      'Academic transcript',
      'Student Maria da Silva',
      'Date of birth 2001-04-17',
      'Course Bachelor of Computer Science',
      'Course code BCS-01',
      'Code Module Hours Credits',
      // Core has order 1, electives 2; inside a group the module order (count - index) reverses input order.
      'Core modules',
      'MOD007 Module number 7 30 2',
      'MOD005 Module number 5 45 3',
      'MOD003 Module number 3 60 4',
      'MOD001 Module number 1 30 2',
      'Subtotal 165 11',
      'Elective modules',
      'MOD006 Module number 6 60 4',
      'MOD002 Module number 2 45 3',
      'Subtotal 105 7',
      'Other modules',
      'MOD008 Module number 8 45 3',
      'MOD004 Module number 4 30 2',
      'Subtotal 75 5',
      'Course total 345 23',
      'Final grade 8.50 (scale 0 to 10)',
      'Completed on 2025-06-30',
      'Issued on 2025-07-01',
      `Certificate ${CREDENTIAL_UUID}`,
      `Verify at ${VERIFICATION_URL}`,
      'Page 1 of 1',
    ]);
  });

  it('breaks 120 modules over several pages, each with the header row, footer and "Page n of N"', async () => {
    const texts = await pageTexts(await renderTranscript(transcriptData(120)));
    expect(texts.length).toBeGreaterThan(1);
    texts.forEach((text, index) => {
      expect(text).toContain(`Page ${index + 1} of ${texts.length}`);
      expect(text).toContain(`Certificate ${CREDENTIAL_UUID}`);
      expect(text).toContain(`Verify at ${VERIFICATION_URL}`);
      expect(text).toContain('Code Module Hours Credits');
    });
    const printed = texts.join(' ').match(/Module number \d+ /g) ?? [];
    expect(printed).toHaveLength(120);
    expect(new Set(printed).size).toBe(120);
    expect(texts.at(-1)).toContain('Final grade 8.50');
  });

  it('is byte-identical for identical input', async () => {
    const data = transcriptData(40);
    expect(Buffer.from(await renderTranscript(data)).equals(Buffer.from(await renderTranscript(data)))).toBe(true);
  });

  it('prints names outside Latin-1 by transliterating or substituting instead of failing', async () => {
    const data = transcriptData(2, {
      student: { name: 'Łukasz Żółć Дмитрий 李小龍', dateOfBirth: new Date('2000-02-29T00:00:00Z') },
      institutionName: 'Universitatea „Alexandru Ioan Cuza” din Iași',
    });
    const [text] = await pageTexts(await renderTranscript(data));
    expect(text).toContain('Lukasz Zólc Dmitriy ???');
    expect(text).toContain('Date of birth 2000-02-29');
    expect(text).toContain('Alexandru Ioan Cuza');
    expect(text).toContain('Iasi');
  });

  it('files modules of an unknown group under "Other modules" and prints a missing grade as not recorded', async () => {
    const data = transcriptData(0, {
      modules: [{ name: 'Orphan module', groupUuid: 'deleted-group', workload: null, credits: null }],
      enrollment: null,
    });
    const [text] = await pageTexts(await renderTranscript(data));
    inOrder(text, ['Other modules', 'Orphan module', 'Course total 0 0', 'Final grade not recorded', 'Completed on not recorded']);
    expect(text).not.toContain('Core modules');
  });

  it('refuses a grade outside 0 to 10', async () => {
    await expect(renderTranscript(transcriptData(1, { enrollment: { grade: 11 } }))).rejects.toMatchObject({
      name: 'DocumentError',
      reason: 'TRANSCRIPT_INVALID',
    });
  });

  it('is an A4 PDF that carries the credential reference and signs intact', async () => {
    const transcript = await renderTranscript(transcriptData(30));
    const document = await PDFDocument.load(transcript);
    expect(document.getPage(0).getSize()).toEqual({ width: 595.28, height: 841.89 });
    expect(document.getTitle()).toBe('Academic transcript: Maria da Silva');

    const identity = createSigningIdentity({ institutionName: 'Universidade Federal de Exemplo' });
    const signed = await signPdf(transcript, identity, { reason: 'Academic transcript', signerName: 'UFE' });
    expect(await inspectSignedPdf(signed)).toMatchObject({ intact: true, coversWholeFile: true, credentialUuid: CREDENTIAL_UUID });
  });

  it('measures rendering one transcript of 40 modules (reported, not asserted)', async () => {
    const data = transcriptData(40);
    await renderTranscript(data);
    const started = performance.now();
    for (let i = 0; i < 10; i++) await renderTranscript(data);
    console.log(`renderTranscript: ${((performance.now() - started) / 10).toFixed(2)} ms per transcript of 40 modules`);
  });
});
