/**
 * Names in every script, checked with Poppler as a reader would: pdftotext gives them back in
 * logical order, pdffonts finds every font embedded as a tagged subset, pdfsig finds the signature
 * valid, zbarimg reads the stamp's QR code.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDict, PDFDocument, PDFName, PDFRawStream, rgb, StandardFonts } from 'pdf-lib';
import { inflateSync } from 'node:zlib';
import { createSigningIdentity, renderTranscript, sealPlacement, signPdf, type GeneratedSigningBundle } from '../src/documents/index.js';
import { renderLayout } from '../src/documents/layout-renderer.js';
import { transcriptData } from './fixtures/documents.js';

const run = promisify(execFile);

async function withFile<T>(pdf: Uint8Array, work: (path: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'scripts-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    return await work(join(dir, 'in.pdf'), dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** pdftotext's text (physical layout: each line left to right, as printed) with its bidi embedding marks (U+202A–U+202E) dropped and whitespace collapsed. */
const pdftotext = (pdf: Uint8Array) =>
  withFile(pdf, async (path) =>
    (await run('pdftotext', ['-layout', '-enc', 'UTF-8', path, '-'])).stdout
      .replace(/[\u202a-\u202e]/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );

interface FontRow {
  name: string;
  embedded: boolean;
  subset: boolean;
  unicode: boolean;
}

const pdffonts = (pdf: Uint8Array) =>
  withFile(pdf, async (path) =>
    (await run('pdffonts', [path])).stdout
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((line): FontRow => {
        const [name, ...rest] = line.trim().split(/\s+/);
        const [emb, sub, uni] = rest.slice(-5, -2);
        return { name: name!, embedded: emb === 'yes', subset: sub === 'yes', unicode: uni === 'yes' };
      }),
  );

const pdfsig = (pdf: Uint8Array) => withFile(pdf, async (path) => (await run('pdfsig', [path]).catch((error: { stdout: string }) => error)).stdout);

const zbarimg = (pdf: Uint8Array) =>
  withFile(pdf, async (path, dir) => {
    await run('pdftoppm', ['-png', '-r', '200', '-singlefile', path, join(dir, 'page')]);
    return (await run('zbarimg', ['--quiet', '--raw', join(dir, 'page.png')])).stdout.trim();
  });

const NAMES = {
  Arabic: { person: 'محمد عبد الله', institution: 'جامعة القاهرة' },
  Hebrew: { person: 'דוד כהן', institution: 'האוניברסיטה העברית בירושלים' },
  Greek: { person: 'Αλέξανδρος Παπαδόπουλος', institution: 'Εθνικό Μετσόβιο Πολυτεχνείο' },
  CJK: { person: '李小龍', institution: '北京大学' },
  Vietnamese: { person: 'Nguyễn Thị Ánh Dương', institution: 'Đại học Quốc gia Hà Nội' },
};

const expectTaggedSubsets = (fonts: FontRow[]) => {
  expect(fonts.length).toBeGreaterThan(0);
  for (const font of fonts) expect(font).toEqual({ name: expect.stringMatching(/^[A-Z]{6}\+/), embedded: true, subset: true, unicode: true });
};

describe('transcripts in every script', () => {
  it.each(Object.entries(NAMES))('prints %s student and institution names in logical order, in tagged embedded subsets', async (_, names) => {
    const pdf = await renderTranscript(transcriptData(2, { institutionName: names.institution, student: { name: names.person, dateOfBirth: '2001-04-17' } }));
    const text = await pdftotext(pdf);
    expect(text).toContain(`Student ${names.person}`);
    expect(text).toContain(names.institution);
    expectTaggedSubsets(await pdffonts(pdf));
  });

  it('joins Arabic letters, shapes Devanagari and keeps emoji, all extractable', async () => {
    const modules = ['देवनागरी हिन्दी किताब', 'Robotics club 🤖 and 🎓', 'لا إله إلا', 'פיזיקה'];
    const pdf = await renderTranscript(transcriptData(0, { modules: modules.map((name, index) => ({ code: `M${index}`, name, workload: 30, credits: 2 })) }));
    const text = await pdftotext(pdf);
    for (const name of modules) expect(text).toContain(name);
    const fonts = await pdffonts(pdf);
    expectTaggedSubsets(fonts);
    expect(fonts.map((font) => font.name.slice(7))).toEqual(expect.arrayContaining(['NotoEmoji-Regular', 'NotoSansArabic-Regular', 'NotoSansHebrew-Regular']));
  });

  it('draws a character no font has as a visible placeholder, keeping it in the text layer', async () => {
    const pdf = await renderTranscript(transcriptData(0, { modules: [{ code: 'T', name: 'ภาษาไทย', workload: 1, credits: 1 }] }));
    expect(await pdftotext(pdf)).toContain('T ภาษาไทย');
    // Noto Sans's U+FFFD is drawn, not glyph 0 (.notdef, the empty box).
    const document = await PDFDocument.load(pdf);
    const contents = document.context
      .enumerateIndirectObjects()
      .flatMap(([, object]) => (object instanceof PDFRawStream ? [inflateSync(object.contents).toString('latin1')] : []))
      .filter((content) => content.includes(' TJ'));
    expect(contents.length).toBeGreaterThan(0);
    for (const content of contents) expect(content).not.toMatch(/<(?:[0-9a-f]{4})*0000/);
  });

  it('draws Arabic with contextual forms, not one isolated glyph per letter', async () => {
    // The same four letters apart and joined: joined, the initial and medial forms are narrower.
    const pdf = await renderTranscript(
      transcriptData(0, {
        modules: [
          { code: 'A', name: 'ب ب ب ب', workload: 1, credits: 1 },
          { code: 'B', name: 'بببب', workload: 1, credits: 1 },
        ],
      }),
    );
    const widths = await withFile(pdf, async (path) => {
      const { stdout } = await run('pdftotext', ['-bbox', '-enc', 'UTF-8', path, '-']);
      return Object.fromEntries(
        [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)].map((m) => [
          m[3]!,
          Number(m[2]) - Number(m[1]),
        ]),
      );
    });
    expect(widths['بببب']).toBeLessThan(4 * widths['ب']!);
  });
});

describe('the signature stamp in every script', () => {
  let identity: GeneratedSigningBundle;
  beforeAll(() => {
    identity = createSigningIdentity({ institutionName: 'Test institution' });
  });

  /** A diploma-like page: a thick frame 30 pt in, a title, a signature line near the bottom left. */
  async function diploma(): Promise<{ pdf: Uint8Array; signatureLine: { x1: number; x2: number; y1: number; y2: number } }> {
    const document = await PDFDocument.create();
    const page = document.addPage([842, 595]);
    const font = await document.embedFont(StandardFonts.Helvetica);
    page.drawRectangle({ x: 30, y: 30, width: 782, height: 535, borderColor: rgb(0.6, 0.5, 0.2), borderWidth: 6 });
    page.drawText('Certificate of completion', { x: 250, y: 400, size: 30, font });
    const line = 'Dean of the Faculty of Engineering and Applied Sciences';
    page.drawText(line, { x: 60, y: 60, size: 12, font });
    return { pdf: await document.save(), signatureLine: { x1: 60, x2: 60 + font.widthOfTextAtSize(line, 12), y1: 57, y2: 72 } };
  }

  const url = 'https://credentials.example.edu/verify/5f0c2a4e-8d1b-4c6e-9a7f-3b2d1e0f4a5c';

  it.each(Object.entries(NAMES))('signs for a %s institution: valid, its name readable, QR decodable, fonts embedded', async (_, names) => {
    const { pdf } = await diploma();
    const signed = await signPdf(pdf, identity, {
      reason: 'r',
      signerName: names.institution,
      credentialUuid: 'c-1',
      verificationUrl: url,
      seal: sealPlacement(null),
    });
    expect(await pdfsig(signed)).toContain('Signature is Valid.');
    expect(await pdftotext(signed)).toContain(`Digitally signed by ${names.institution}`);
    expect(await zbarimg(signed)).toBe(url);
    expectTaggedSubsets((await pdffonts(signed)).filter((font) => font.name !== 'Helvetica'));
  });

  it('never sets its text under 6 pt, even for a long name and URL', async () => {
    const { pdf } = await diploma();
    const name = 'Εθνικό και Καποδιστριακό Πανεπιστήμιο Αθηνών — Σχολή Θετικών Επιστημών, Τμήμα Πληροφορικής και Τηλεπικοινωνιών';
    const signed = await signPdf(pdf, identity, { reason: 'r', signerName: name, credentialUuid: 'c-1', verificationUrl: url, seal: sealPlacement(null) });
    const sizes = [...appearanceContent(await PDFDocument.load(signed)).matchAll(/([\d.]+) Tf/g)].map((m) => Number(m[1]));
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(6);
    expect(await pdftotext(signed)).toContain('Digitally signed by Εθνικό και Καποδιστριακό');
  });

  it('sits by default where the page paints nothing: inside the frame, clear of the text', async () => {
    const { pdf, signatureLine } = await diploma();
    const signed = await signPdf(pdf, identity, {
      reason: 'r',
      signerName: 'Instituto Técnico',
      credentialUuid: 'c-1',
      verificationUrl: url,
      seal: sealPlacement(null),
    });
    const [x1, y1, x2, y2] = widgetRect(await PDFDocument.load(signed));
    // The frame's stroke covers 27–33 pt from each edge.
    expect(x1).toBeGreaterThanOrEqual(33);
    expect(y1).toBeGreaterThanOrEqual(33);
    expect(x2).toBeLessThanOrEqual(842 - 33);
    expect(y2).toBeLessThanOrEqual(595 - 33);
    const overlaps = x1 < signatureLine.x2 && x2 > signatureLine.x1 && y1 < signatureLine.y2 && y2 > signatureLine.y1;
    expect(overlaps).toBe(false);
  });
});

describe('template layouts in every script', () => {
  it('draws right-to-left and shaped text elements, extractable in logical order', async () => {
    const text = (value: string, y: number) => ({
      type: 'text' as const,
      text: value,
      x: 20,
      y,
      width: 257,
      fontSize: 24,
      minFontSize: 8,
      font: 'NotoSans' as const,
      color: '#000000',
      align: 'center' as const,
      shrinkToFit: true,
    });
    // One text per page: Poppler reads a page with right-to-left lines as a right-to-left page.
    for (const value of [NAMES.Arabic.person, NAMES.Hebrew.person, 'देवनागरी 🎓']) {
      const pdf = await renderLayout({
        layout: { page: { width: 297, height: 210 }, background: null, elements: [text(value, 40)] },
        files: {},
        verificationUrl: 'https://example.edu/v/1',
      });
      expect(await pdftotext(pdf)).toBe(value);
      expectTaggedSubsets(await pdffonts(pdf));
    }
  });
});

function widgetRect(document: PDFDocument): number[] {
  const annots = document.getPage(0).node.Annots();
  const widget = annots!.lookup(annots!.size() - 1, PDFDict);
  return widget.lookup(PDFName.of('Rect'))!.toString().replace(/[[\]]/g, '').trim().split(/\s+/).map(Number);
}

function appearanceContent(document: PDFDocument): string {
  const annots = document.getPage(0).node.Annots();
  const widget = annots!.lookup(annots!.size() - 1, PDFDict);
  const appearance = widget.lookup(PDFName.of('AP'), PDFDict).lookup(PDFName.of('N')) as PDFRawStream;
  return inflateSync(appearance.contents).toString('latin1');
}
