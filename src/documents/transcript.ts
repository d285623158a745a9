import { PageSizes, PDFDocument, StandardFonts, type PDFPage } from 'pdf-lib';
import { stampCredential } from './source-pdf.js';
import {
  formatAmount,
  formatTranscriptDate,
  formatGrade,
  sum,
  transcriptSections,
  type TranscriptData,
  type TranscriptModule,
  type TranscriptSection,
} from './transcript-content.js';
import { drawRule, drawText, paginate, printable, wrap, type Block, type TextStyle, type Typeface } from './transcript-typesetting.js';

const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4;
const MARGIN = 50;
const RIGHT = PAGE_WIDTH - MARGIN;
const CODE_X = MARGIN;
const CODE_WIDTH = 72;
const NAME_X = MARGIN + 80;
const HOURS_RIGHT = RIGHT - 60;
const NAME_WIDTH = HOURS_RIGHT - 50 - NAME_X;
const LABEL_WIDTH = 100;
const LINE = 13;
const FOOTER_LINE = 10;

/** Renders the academic transcript PDF: A4, standard fonts, byte-identical for identical data. */
export async function renderTranscript(data: TranscriptData): Promise<Uint8Array> {
  const document = await PDFDocument.create({ updateMetadata: false });
  const regular = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const typeface: Typeface = { regular, bold, supported: new Set(regular.getCharacterSet()) };

  const sections = transcriptSections(data);
  const blocks = [...headerBlocks(typeface, data), moduleTableHeader(typeface), ...tableBlocks(typeface, sections), ...summaryBlocks(typeface, data)];
  const footer = footerLines(typeface, data);
  const bodyBottom = MARGIN + footer.length * FOOTER_LINE + 16;
  const pages = paginate(blocks, moduleTableHeader(typeface), PAGE_HEIGHT - MARGIN, bodyBottom);

  pages.forEach((placed, index) => {
    const page = document.addPage(PageSizes.A4);
    for (const { block, top } of placed) block.draw(page, top);
    drawFooter(page, typeface, footer, `Page ${index + 1} of ${pages.length}`);
  });
  writeDocumentInfo(document, data);
  return document.save();
}

function headerBlocks(typeface: Typeface, data: TranscriptData): Block[] {
  const details: Array<[string, string | undefined]> = [
    ['Student', data.student.name],
    ['Date of birth', formatTranscriptDate(data.student.dateOfBirth)],
    ['Course', data.course.name],
    ['Course code', data.course.code ?? undefined],
  ];
  return [
    paragraph(typeface, data.institutionName, { font: typeface.bold, size: 13 }, 17),
    paragraph(typeface, 'Academic transcript', { font: typeface.bold, size: 20 }, 30),
    spacer(6),
    ...labelled(typeface, details),
    spacer(14),
  ];
}

function tableBlocks(typeface: Typeface, sections: TranscriptSection[]): Block[] {
  const blocks: Block[] = [];
  for (const section of sections) {
    const rows = section.modules.map((module) => moduleRow(typeface, module));
    const heading = paragraph(typeface, section.title, { font: typeface.bold, size: 10.5 }, 20);
    blocks.push({ ...heading, inTable: true, keepWithNext: rows[0]?.height });
    blocks.push(...rows, amountsRow(typeface, 'Subtotal', section.workload, section.credits, false));
  }
  const modules = sections.flatMap((section) => section.modules);
  blocks.push(amountsRow(typeface, 'Course total', sum(modules, 'workload'), sum(modules, 'credits'), true));
  return blocks;
}

function summaryBlocks(typeface: Typeface, data: TranscriptData): Block[] {
  const summary: Array<[string, string | undefined]> = [
    ['Final grade', withScale(formatGrade(data.enrollment?.grade))],
    ['Completed on', formatTranscriptDate(data.enrollment?.completedAt) ?? 'not recorded'],
    ['Issued on', formatTranscriptDate(data.certificate.issuedAt)],
  ];
  const rows = labelled(typeface, summary);
  const height = rows.reduce((total, row) => total + row.height, 0);
  const draw = (page: PDFPage, top: number) => {
    for (const row of rows) {
      row.draw(page, top);
      top -= row.height;
    }
  };
  return [spacer(18), { height, draw }];
}

const withScale = (grade: string | undefined) => (grade ? `${grade} (scale 0 to 10)` : 'not recorded');

function moduleTableHeader(typeface: Typeface): Block {
  const style = { font: typeface.bold, size: 9.5 };
  return {
    height: 20,
    draw(page, top) {
      const baseline = top - LINE + 2;
      drawText(page, 'Code', { x: CODE_X, baseline }, style);
      drawText(page, 'Module', { x: NAME_X, baseline }, style);
      drawText(page, 'Hours', { x: HOURS_RIGHT, baseline, alignRight: true }, style);
      drawText(page, 'Credits', { x: RIGHT, baseline, alignRight: true }, style);
      drawRule(page, MARGIN, RIGHT, top - LINE - 3, 0.8);
    },
  };
}

function moduleRow(typeface: Typeface, module: TranscriptModule): Block {
  const style = { font: typeface.regular, size: 9.5 };
  const code = wrap(printable(typeface, module.code ?? ''), style, CODE_WIDTH);
  const name = wrap(printable(typeface, module.name), style, NAME_WIDTH);
  return {
    height: Math.max(code.length, name.length) * LINE + 3,
    inTable: true,
    draw(page, top) {
      const baseline = top - LINE + 2;
      code.forEach((line, i) => drawText(page, line, { x: CODE_X, baseline: baseline - i * LINE }, style));
      name.forEach((line, i) => drawText(page, line, { x: NAME_X, baseline: baseline - i * LINE }, style));
      drawText(page, formatAmount(module.workload), { x: HOURS_RIGHT, baseline, alignRight: true }, style);
      drawText(page, formatAmount(module.credits), { x: RIGHT, baseline, alignRight: true }, style);
    },
  };
}

function amountsRow(typeface: Typeface, label: string, workload: number, credits: number, total: boolean): Block {
  const style = { font: typeface.bold, size: total ? 10.5 : 9.5 };
  return {
    height: total ? 26 : 22,
    inTable: true,
    draw(page, top) {
      drawRule(page, total ? MARGIN : NAME_X, RIGHT, top - 2, total ? 0.8 : 0.4);
      const baseline = top - LINE - 1;
      drawText(page, label, { x: NAME_X, baseline }, style);
      drawText(page, String(workload), { x: HOURS_RIGHT, baseline, alignRight: true }, style);
      drawText(page, String(credits), { x: RIGHT, baseline, alignRight: true }, style);
    },
  };
}

function labelled(typeface: Typeface, pairs: Array<[string, string | undefined]>): Block[] {
  const labelStyle = { font: typeface.bold, size: 10 };
  const valueStyle = { font: typeface.regular, size: 10 };
  return pairs
    .filter((pair): pair is [string, string] => Boolean(pair[1]))
    .map(([label, value]) => {
      const lines = wrap(printable(typeface, value), valueStyle, RIGHT - MARGIN - LABEL_WIDTH);
      return {
        height: lines.length * 14 + 2,
        draw(page, top) {
          drawText(page, label, { x: MARGIN, baseline: top - 11 }, labelStyle);
          lines.forEach((line, i) => drawText(page, line, { x: MARGIN + LABEL_WIDTH, baseline: top - 11 - i * 14 }, valueStyle));
        },
      };
    });
}

function paragraph(typeface: Typeface, text: string, style: TextStyle, lineHeight: number): Block {
  const lines = wrap(printable(typeface, text), style, RIGHT - MARGIN);
  return {
    height: lines.length * lineHeight,
    draw: (page, top) => lines.forEach((line, i) => drawText(page, line, { x: MARGIN, baseline: top - lineHeight * (i + 1) + 5 }, style)),
  };
}

const spacer = (height: number): Block => ({ height, draw: () => undefined });

function footerLines(typeface: Typeface, data: TranscriptData): string[] {
  const style = { font: typeface.regular, size: 8 };
  const identity = printable(typeface, `Certificate ${data.certificate.uuid}`);
  const verification = printable(typeface, `Verify at ${data.certificate.verificationUrl}`);
  return [identity, ...wrap(verification, style, RIGHT - MARGIN)];
}

function drawFooter(page: PDFPage, typeface: Typeface, lines: string[], pageLabel: string): void {
  const style = { font: typeface.regular, size: 8, grey: true };
  const top = MARGIN + lines.length * FOOTER_LINE;
  drawRule(page, MARGIN, RIGHT, top + 6);
  lines.forEach((line, i) => drawText(page, line, { x: MARGIN, baseline: top - (i + 1) * FOOTER_LINE + 2 }, style));
  drawText(page, pageLabel, { x: RIGHT, baseline: top - FOOTER_LINE + 2, alignRight: true }, style);
}

function writeDocumentInfo(document: PDFDocument, data: TranscriptData): void {
  document.setTitle(`Academic transcript: ${data.student.name}`);
  document.setAuthor(data.institutionName);
  document.setCreator('credential-service');
  document.setProducer('pdf-lib');
  document.setLanguage('en');
  document.setCreationDate(data.certificate.issuedAt);
  document.setModificationDate(data.certificate.issuedAt);
  const { uuid, verificationUrl } = data.certificate;
  stampCredential(document, { credentialUuid: uuid, verificationUrl });
}
