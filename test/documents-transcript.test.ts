import { PDFDocument, PDFName } from 'pdf-lib';
import { createSigningIdentity, inspectSignedPdf, renderTranscript, signPdf } from '../src/documents/index.js';
import { CREDENTIAL_UUID, pageTexts, transcriptData, VERIFICATION_URL } from './fixtures/documents.js';
import { imagesOf, pdftotextPages, qpdfCheck, renderPage, solidPng, wordBoxes, type WordBox } from './support/poppler.js';
import { qrOnPage } from './support/qr.js';
import { svgBytes } from './support/files.js';

const inOrder = (text: string, parts: string[]) => {
  expect({ missing: parts.filter((part) => !text.includes(part)), text }).toEqual({ missing: [], text });
  const positions = parts.map((part) => text.indexOf(part));
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
};

describe('academic transcripts', () => {
  it('prints the institution, student, course, grouped modules with totals, grade, dates and verification URL', async () => {
    const data = transcriptData(8);
    const texts = await pageTexts(await renderTranscript(data));
    const text = texts.join(' ');
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
      'Verify this transcript',
    ]);
    inOrder(text.slice(text.indexOf('Verify this transcript')), ['Verify this transcript', `Verify at ${VERIFICATION_URL}`, `Certificate ${CREDENTIAL_UUID}`]);
    texts.forEach((page, index) =>
      inOrder(page.slice(page.lastIndexOf(`Certificate ${CREDENTIAL_UUID}`)), [
        `Certificate ${CREDENTIAL_UUID}`,
        `Verify at ${VERIFICATION_URL}`,
        `Page ${index + 1} of ${texts.length}`,
      ]),
    );
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

  it('prints Greek, Cyrillic, Vietnamese and CJK names exactly as stored (pdftotext), in a file qpdf finds clean', async () => {
    const names = {
      student: 'Nguyễn Thị Ánh Dương',
      institution: 'Εθνικό και Καποδιστριακό Πανεπιστήμιο Αθηνών',
      course: 'Прикладная математика и информатика',
      modules: [
        'Αλέξανδρος Παπαδόπουλος',
        'Дмитрий Иванович Соколов',
        '李小龍 数据结构与算法',
        '山田 花子 やまだ カタカナ',
        '김민준 한국어',
        'Łukasz Żółć, Iași, Ærøskøbing',
      ],
    };
    const data = transcriptData(0, {
      institutionName: names.institution,
      student: { name: names.student, dateOfBirth: '2000-02-29' },
      course: { name: names.course, code: 'ПМИ-1' },
      modules: names.modules.map((name, index) => ({ code: `M${index}`, name, workload: 30, credits: 2 })),
    });
    const pdf = await renderTranscript(data);
    const text = (await pdftotextPages(pdf)).join('\n');
    for (const expected of [names.student, names.institution, names.course, 'ПМИ-1', ...names.modules]) expect(text).toContain(expected);
    expect(text).not.toContain('?');
    expect(await qpdfCheck(pdf)).toEqual({ ok: true, output: expect.stringContaining('No syntax or stream encoding errors') });
  });

  it('embeds a CJK font only when the text needs one', async () => {
    const fontsOf = async (name: string) => {
      const document = await PDFDocument.load(await renderTranscript(transcriptData(3, { student: { name, dateOfBirth: '2001-04-17' } })));
      const names = document.context
        .enumerateIndirectObjects()
        .map(([, object]) => String((object as { get?: (key: unknown) => unknown }).get?.(PDFName.of('BaseFont')) ?? ''))
        .filter(Boolean);
      // Subset fonts carry a six-letter tag (ISO 32000-1 §9.6.4).
      expect(names.filter((font) => !/^\/[A-Z]{6}\+/.test(font))).toEqual([]);
      return [...new Set(names.map((font) => font.replace(/^\/[A-Z]{6}\+/, '')))].sort();
    };
    expect(await fontsOf('Maria da Silva')).toEqual(['NotoSans-Bold', 'NotoSans-Regular']);
    expect(await fontsOf('李小龍')).toEqual(['NotoSans-Bold', 'NotoSans-Regular', 'NotoSansSC-Bold']);
    expect(await fontsOf('김민준')).toEqual(['NotoSans-Bold', 'NotoSans-Regular', 'NotoSansKR-Bold']);
  });

  it('carries a QR code that decodes to the verification URL', async () => {
    const pdf = await renderTranscript(transcriptData(8));
    const pages = await pdftotextPages(pdf);
    const withBlock = pages.findIndex((page) => page.includes('Verify this transcript')) + 1;
    expect(withBlock).toBeGreaterThan(0);
    expect(await qrOnPage(pdf, withBlock)).toBe(VERIFICATION_URL);
  });

  it('fits 120 modules and a 200-character name: every module printed, pages numbered, no text outside the page or overlapping', async () => {
    const name = `${'Maximiliano Alejandro de la Santísima Trinidad '.repeat(5)}`.slice(0, 199) + 'Z';
    expect(name).toHaveLength(200);
    const data = transcriptData(120, {
      student: { name, dateOfBirth: '2001-04-17' },
      institutionName: `Universidade Federal de Exemplo ${'e Instituto Tecnológico '.repeat(6)}`.trim(),
    });
    const pdf = await renderTranscript(data);
    const pages = await pdftotextPages(pdf);
    expect(pages.length).toBeGreaterThan(2);
    pages.forEach((page, index) => expect(page).toContain(`Page ${index + 1} of ${pages.length}`));
    const all = pages.join('\n');
    for (let number = 1; number <= 120; number++) expect(all).toMatch(new RegExp(`MOD${String(number).padStart(3, '0')}\\s+Module number ${number}\\b`));
    expect(all.replace(/\s+/g, ' ')).toContain(name);

    const { pages: sizes, words } = await wordBoxes(pdf);
    const outside = words.filter(
      (word) => word.xMin < 36 || word.yMin < 20 || word.xMax > sizes[word.page].width - 36 || word.yMax > sizes[word.page].height - 20,
    );
    expect(outside).toEqual([]);
    expect(overlapping(words)).toEqual([]);
    expect(await qpdfCheck(pdf)).toMatchObject({ ok: true });
  });

  it('draws the template colours and the institution logo; an SVG or broken logo is left out', async () => {
    const logo = solidPng(120, 60, [200, 30, 40]);
    const designed = await renderTranscript(transcriptData(3, { design: { colors: { primary: '#0b7a3b' }, logo } }));
    expect(await imagesOf(designed)).toEqual([{ page: 1, width: 120, height: 60 }]);
    const page = await renderPage(designed, 1, 72);
    expect(page.pixel(300, 3)).toEqual([0x0b, 0x7a, 0x3b]);
    // The logo box is 64 pt at the top left margin (48 pt); the image keeps its 2:1 shape, centred.
    expect(page.pixel(48 + 32, 44 + 32)).toEqual([200, 30, 40]);

    const plain = await renderTranscript(transcriptData(3, { design: { logo: svgBytes() } }));
    expect(await imagesOf(plain)).toEqual([]);
    expect((await renderPage(plain, 1, 72)).pixel(300, 3)).toEqual([0x1d, 0x35, 0x57]);
    const truncated = await renderTranscript(transcriptData(3, { design: { logo: logo.subarray(0, 40) } }));
    expect(await imagesOf(truncated)).toEqual([]);
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
});

/** Pairs of words on one page whose boxes share more than a sliver (1 pt either way: line boxes touch). */
function overlapping(words: WordBox[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) {
      const [a, b] = [words[i]!, words[j]!];
      if (a.page !== b.page) continue;
      const width = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
      const height = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
      if (width > 1 && height > 1) found.push(`page ${a.page + 1}: "${a.text}" / "${b.text}"`);
    }
  }
  return found;
}
