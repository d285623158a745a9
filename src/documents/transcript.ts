import { PageSizes, PDFDocument, type PDFImage, type PDFPage } from 'pdf-lib';
import { palette, type Palette } from './document-design.js';
// pdf-lib's stream compression through Node's zlib (see pdf-deflate.ts).
import './pdf-deflate.js';
import { embedLogo } from './document-logo.js';
import { qrModules } from './qr-code.js';
import { drawQrCode, QR_QUIET_MODULES } from './qr-drawing.js';
import { stampCredential } from './source-pdf.js';
import {
  formatAmount,
  formatGrade,
  formatTranscriptDate,
  sum,
  transcriptLabels,
  transcriptSections,
  type TranscriptData,
  type TranscriptModule,
  type TranscriptSection,
} from './transcript-content.js';
import { drawRule, ellipsize, fillBox, fit, paginate, wrap, type Block } from './transcript-typesetting.js';
import { Typeface, type TextStyle } from './typeface.js';

const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4;
const MARGIN = 48;
const RIGHT = PAGE_WIDTH - MARGIN;
const CONTENT_WIDTH = RIGHT - MARGIN;
const BAND_HEIGHT = 10;
const FIRST_BODY_TOP = PAGE_HEIGHT - 44;
const RUNNING_HEAD_BASELINE = PAGE_HEIGHT - 34;
const LATER_BODY_TOP = PAGE_HEIGHT - 52;
const LOGO_BOX = 64;
const BOX_PADDING = 12;
const LABEL_WIDTH = 96;

const CELL = 6;
const CODE_X = MARGIN + CELL;
const CODE_WIDTH = 72;
const NAME_X = CODE_X + CODE_WIDTH + 8;
const CREDITS_RIGHT = RIGHT - CELL;
const HOURS_RIGHT = CREDITS_RIGHT - 56;
const NAME_WIDTH = HOURS_RIGHT - 40 - NAME_X;
const ROW_LINE = 12.5;

const FOOTER_SIZE = 7.5;
const FOOTER_LINE = 10;
const PAGE_LABEL_WIDTH = 70;
const QR_UNIT = 2.4;

/** What every part of the page needs: the fonts, the colours, the data. */
interface Layout {
  document: PDFDocument;
  typeface: Typeface;
  colors: Palette;
  data: TranscriptData;
  logo?: PDFImage;
}

/**
 * Renders the academic transcript PDF: A4, Unicode text in embedded font subsets (typeface.ts),
 * colours and logo from the template's design; byte-identical for identical data.
 */
export async function renderTranscript(data: TranscriptData): Promise<Uint8Array> {
  const document = await PDFDocument.create({ updateMetadata: false });
  const layout: Layout = {
    document,
    typeface: new Typeface(document.context),
    colors: palette(data.design?.colors),
    data,
    logo: await embedLogo(document, data.design?.logo),
  };

  const sections = transcriptSections(data);
  const tableHeader = moduleTableHeader(layout);
  const blocks = [
    headerBlock(layout),
    spacer(10),
    identityBlock(layout),
    spacer(12),
    { ...tableHeader, keepWithNext: 60 },
    ...tableBlocks(layout, sections),
    spacer(12),
    summaryBlock(layout),
    spacer(10),
    verificationBlock(layout),
  ];
  const footer = footerLines(layout);
  const bodyBottom = MARGIN + footer.length * FOOTER_LINE + 14;
  const pages = paginate(blocks, tableHeader, (index) => (index === 0 ? FIRST_BODY_TOP : LATER_BODY_TOP), bodyBottom);

  pages.forEach((placed, index) => {
    const page = document.addPage(PageSizes.A4);
    drawPageFrame(page, layout, index);
    for (const { block, top } of placed) block.draw(page, top);
    drawFooter(page, layout, footer, transcriptLabels(data).page(index + 1, pages.length));
  });
  await layout.typeface.flush();
  writeDocumentInfo(document, data);
  return document.save();
}

const style = (layout: Layout, weight: TextStyle['weight'], size: number, color = layout.colors.text): TextStyle => ({ weight, size, color });

const spacer = (height: number): Block => ({ height, draw: () => undefined });

/** The band across the top of every page; from the second page on, a running head says whose transcript it is. */
function drawPageFrame(page: PDFPage, layout: Layout, index: number): void {
  const { colors, typeface, data } = layout;
  fillBox(page, { x: 0, top: PAGE_HEIGHT, width: PAGE_WIDTH, height: BAND_HEIGHT }, colors.primary);
  drawRule(page, 0, PAGE_WIDTH, PAGE_HEIGHT - BAND_HEIGHT - 1, colors.accent, 1.5);
  if (index === 0) return;
  const headStyle = style(layout, 'regular', 8, colors.muted);
  const head = ellipsize(typeface, `${data.institutionName} · ${transcriptLabels(data).title} · ${data.student.name}`, headStyle, CONTENT_WIDTH);
  typeface.draw(page, head, { x: MARGIN, y: RUNNING_HEAD_BASELINE }, headStyle);
  drawRule(page, MARGIN, RIGHT, RUNNING_HEAD_BASELINE - 6, colors.tint, 0.8);
}

/** Logo, institution name and title, closed by an accent rule. */
function headerBlock(layout: Layout): Block {
  const { typeface, colors, logo, data } = layout;
  const logoSize = logo ? logo.scale(Math.min(LOGO_BOX / logo.width, LOGO_BOX / logo.height)) : undefined;
  const textX = logo ? MARGIN + LOGO_BOX + 14 : MARGIN;
  const textWidth = RIGHT - textX;
  const name = fit(typeface, data.institutionName, style(layout, 'bold', 15, colors.primary), textWidth, 2, 10);
  const nameLine = name.style.size * 1.3;
  const titleStyle = style(layout, 'bold', 22);
  const title = wrap(typeface, transcriptLabels(data).title, titleStyle, textWidth);
  const textHeight = name.lines.length * nameLine + 6 + title.length * 28;
  const height = Math.max(logoSize ? LOGO_BOX : 0, textHeight) + 12;
  return {
    height,
    draw(page, top) {
      if (logo && logoSize) {
        page.drawImage(logo, {
          x: MARGIN + (LOGO_BOX - logoSize.width) / 2,
          y: top - LOGO_BOX + (LOGO_BOX - logoSize.height) / 2,
          ...logoSize,
        });
      }
      let baseline = top + (logoSize && textHeight < LOGO_BOX ? -(LOGO_BOX - textHeight) / 2 : 0);
      for (const line of name.lines) {
        baseline -= nameLine;
        typeface.draw(page, line, { x: textX, y: baseline + nameLine * 0.25 }, name.style);
      }
      baseline -= 6;
      for (const line of title) {
        baseline -= 28;
        typeface.draw(page, line, { x: textX, y: baseline + 7 }, titleStyle);
      }
      drawRule(page, MARGIN, RIGHT, top - height, colors.accent, 1.2);
    },
  };
}

/** Label and value pairs on a tinted box: who the transcript is about (or, in the summary, the outcome). */
function labelledBox(layout: Layout, pairs: Array<[string, string | undefined, TextStyle?]>): Block {
  const { typeface, colors } = layout;
  const labelStyle = style(layout, 'bold', 9, colors.muted);
  const valueWidth = CONTENT_WIDTH - 2 * BOX_PADDING - LABEL_WIDTH;
  const rows = pairs
    .filter((pair): pair is [string, string, TextStyle?] => Boolean(pair[1]))
    .map(([label, value, valueStyle = style(layout, 'regular', 10.5)]) => {
      const fitted = fit(typeface, value, valueStyle, valueWidth, 3, 8);
      const line = fitted.style.size * 1.35;
      return { label, ...fitted, line, height: Math.max(fitted.lines.length * line, 14) + 4 };
    });
  const height = rows.reduce((total, row) => total + row.height, 0) + 2 * BOX_PADDING - 4;
  return {
    height,
    draw(page, top) {
      fillBox(page, { x: MARGIN, top, width: CONTENT_WIDTH, height }, colors.faintTint);
      fillBox(page, { x: MARGIN, top, width: 3, height }, colors.primary);
      let rowTop = top - BOX_PADDING;
      for (const row of rows) {
        const firstBaseline = rowTop - row.line + row.style.size * 0.35;
        typeface.draw(page, row.label, { x: MARGIN + BOX_PADDING, y: firstBaseline }, labelStyle);
        row.lines.forEach((text, i) => typeface.draw(page, text, { x: MARGIN + BOX_PADDING + LABEL_WIDTH, y: firstBaseline - i * row.line }, row.style));
        rowTop -= row.height;
      }
    },
  };
}

function identityBlock(layout: Layout): Block {
  const { data } = layout;
  const labels = transcriptLabels(data);
  return labelledBox(layout, [
    [labels.student, data.student.name, style(layout, 'bold', 13)],
    [labels.dateOfBirth, formatTranscriptDate(data.student.dateOfBirth)],
    [labels.course, data.course.name],
    [labels.courseCode, data.course.code ?? undefined],
  ]);
}

function summaryBlock(layout: Layout): Block {
  const { data } = layout;
  const labels = transcriptLabels(data);
  const grade = formatGrade(data.enrollment?.grade);
  return labelledBox(layout, [
    [labels.finalGrade, grade ? labels.gradeOnScale(grade) : labels.notRecorded, style(layout, 'bold', 12)],
    [labels.completedOn, formatTranscriptDate(data.enrollment?.completedAt) ?? labels.notRecorded],
    [labels.issuedOn, formatTranscriptDate(data.certificate.issuedAt)],
  ]);
}

function moduleTableHeader(layout: Layout): Block {
  const { typeface, colors } = layout;
  const labels = transcriptLabels(layout.data);
  const headStyle = style(layout, 'bold', 9, colors.onPrimary);
  return {
    height: 22,
    draw(page, top) {
      fillBox(page, { x: MARGIN, top, width: CONTENT_WIDTH, height: 20 }, colors.primary);
      const y = top - 13.5;
      typeface.draw(page, labels.code, { x: CODE_X, y }, headStyle);
      typeface.draw(page, labels.module, { x: NAME_X, y }, headStyle);
      typeface.draw(page, labels.hours, { x: HOURS_RIGHT, y, alignRight: true }, headStyle);
      typeface.draw(page, labels.credits, { x: CREDITS_RIGHT, y, alignRight: true }, headStyle);
    },
  };
}

function tableBlocks(layout: Layout, sections: TranscriptSection[]): Block[] {
  const blocks: Block[] = [];
  for (const section of sections) {
    const rows = section.modules.map((module, index) => moduleRow(layout, module, index % 2 === 1));
    blocks.push({ ...groupHeading(layout, section.title), keepWithNext: rows[0]?.height });
    blocks.push(...rows, amountsRow(layout, transcriptLabels(layout.data).subtotal, section.workload, section.credits, false));
  }
  const modules = sections.flatMap((section) => section.modules);
  blocks.push(amountsRow(layout, transcriptLabels(layout.data).courseTotal, sum(modules, 'workload'), sum(modules, 'credits'), true));
  return blocks;
}

function groupHeading(layout: Layout, title: string): Block {
  const { typeface, colors } = layout;
  const headingStyle = style(layout, 'bold', 10.5, colors.primary);
  const lines = wrap(typeface, title, headingStyle, CONTENT_WIDTH - 2 * CELL);
  return {
    height: lines.length * 14 + 10,
    inTable: true,
    draw(page, top) {
      lines.forEach((line, i) => typeface.draw(page, line, { x: CODE_X, y: top - 17 - i * 14 }, headingStyle));
      drawRule(page, MARGIN, RIGHT, top - lines.length * 14 - 8, colors.accent, 0.8);
    },
  };
}

function moduleRow(layout: Layout, module: TranscriptModule, striped: boolean): Block {
  const { typeface, colors } = layout;
  const cellStyle = style(layout, 'regular', 9.5);
  const code = wrap(typeface, module.code ?? '', cellStyle, CODE_WIDTH);
  const name = wrap(typeface, module.name, cellStyle, NAME_WIDTH);
  const height = Math.max(code.length, name.length) * ROW_LINE + 5;
  return {
    height,
    inTable: true,
    draw(page, top) {
      if (striped) fillBox(page, { x: MARGIN, top, width: CONTENT_WIDTH, height }, colors.faintTint);
      const y = top - ROW_LINE + 0.5;
      code.forEach((line, i) => typeface.draw(page, line, { x: CODE_X, y: y - i * ROW_LINE }, cellStyle));
      name.forEach((line, i) => typeface.draw(page, line, { x: NAME_X, y: y - i * ROW_LINE }, cellStyle));
      typeface.draw(page, formatAmount(module.workload), { x: HOURS_RIGHT, y, alignRight: true }, cellStyle);
      typeface.draw(page, formatAmount(module.credits), { x: CREDITS_RIGHT, y, alignRight: true }, cellStyle);
    },
  };
}

function amountsRow(layout: Layout, label: string, workload: number, credits: number, total: boolean): Block {
  const { typeface, colors } = layout;
  const amountStyle = style(layout, 'bold', total ? 10.5 : 9.5, total ? colors.primary : colors.text);
  const height = total ? 26 : 22;
  return {
    height,
    inTable: true,
    draw(page, top) {
      if (total) fillBox(page, { x: MARGIN, top: top - 2, width: CONTENT_WIDTH, height: height - 2 }, colors.tint);
      else drawRule(page, NAME_X, RIGHT, top - 2, colors.muted, 0.4);
      const y = top - (total ? 17 : 15);
      typeface.draw(page, label, { x: NAME_X, y }, amountStyle);
      typeface.draw(page, String(workload), { x: HOURS_RIGHT, y, alignRight: true }, amountStyle);
      typeface.draw(page, String(credits), { x: CREDITS_RIGHT, y, alignRight: true }, amountStyle);
    },
  };
}

/** QR code of the verification URL beside the URL, the certificate id and what they are for. */
function verificationBlock(layout: Layout): Block {
  const { typeface, colors, data } = layout;
  const { uuid, verificationUrl } = data.certificate;
  const labels = transcriptLabels(data);
  const qr = qrModules(verificationUrl);
  const qrSize = qr.size * QR_UNIT;
  const quiet = QR_QUIET_MODULES * QR_UNIT;
  const textX = MARGIN + quiet + qrSize + quiet + 4;
  const textWidth = RIGHT - BOX_PADDING - textX;
  const headingStyle = style(layout, 'bold', 11, colors.primary);
  const bodyStyle = style(layout, 'regular', 8.5);
  const noteStyle = style(layout, 'regular', 8, colors.muted);
  const paragraphs = [
    { lines: wrap(typeface, labels.verifyHeading, headingStyle, textWidth), style: headingStyle, line: 15, after: 4 },
    { lines: wrap(typeface, labels.verifyAt(verificationUrl), bodyStyle, textWidth), style: bodyStyle, line: 12, after: 0 },
    { lines: wrap(typeface, labels.certificate(uuid), bodyStyle, textWidth), style: bodyStyle, line: 12, after: 6 },
    {
      lines: wrap(typeface, labels.verifyText(data.institutionName), noteStyle, textWidth),
      style: noteStyle,
      line: 10.5,
      after: 0,
    },
  ];
  const textHeight = paragraphs.reduce((total, paragraph) => total + paragraph.lines.length * paragraph.line + paragraph.after, 0);
  const height = Math.max(qrSize + 2 * quiet, textHeight + 2 * BOX_PADDING);
  return {
    height,
    draw(page, top) {
      page.drawRectangle({ x: MARGIN, y: top - height, width: CONTENT_WIDTH, height, borderColor: colors.accent, borderWidth: 1 });
      drawQrCode(layout.document, page, qr, { x: MARGIN + quiet, top: top - (height - qrSize) / 2, size: qrSize }, colors.text);
      let baseline = top - BOX_PADDING;
      for (const paragraph of paragraphs) {
        for (const line of paragraph.lines) {
          baseline -= paragraph.line;
          typeface.draw(page, line, { x: textX, y: baseline + paragraph.line * 0.25 }, paragraph.style);
        }
        baseline -= paragraph.after;
      }
    },
  };
}

function footerLines(layout: Layout): string[] {
  const { typeface, data } = layout;
  const footerStyle = style(layout, 'regular', FOOTER_SIZE);
  const width = CONTENT_WIDTH - PAGE_LABEL_WIDTH;
  return [
    ...wrap(typeface, transcriptLabels(data).certificate(data.certificate.uuid), footerStyle, width),
    ...wrap(typeface, transcriptLabels(data).verifyAt(data.certificate.verificationUrl), footerStyle, width),
  ];
}

function drawFooter(page: PDFPage, layout: Layout, lines: string[], pageLabel: string): void {
  const { typeface, colors } = layout;
  const footerStyle = style(layout, 'regular', FOOTER_SIZE, colors.muted);
  const top = MARGIN + lines.length * FOOTER_LINE;
  drawRule(page, MARGIN, RIGHT, top + 6, colors.accent, 0.6);
  lines.forEach((line, i) => typeface.draw(page, line, { x: MARGIN, y: top - (i + 1) * FOOTER_LINE + 2 }, footerStyle));
  typeface.draw(page, pageLabel, { x: RIGHT, y: top - FOOTER_LINE + 2, alignRight: true }, footerStyle);
}

function writeDocumentInfo(document: PDFDocument, data: TranscriptData): void {
  document.setTitle(transcriptLabels(data).documentTitle(data.student.name));
  document.setAuthor(data.institutionName);
  document.setCreator('credential-service');
  document.setProducer('pdf-lib');
  document.setLanguage(data.locale ?? 'en');
  document.setCreationDate(data.certificate.issuedAt);
  document.setModificationDate(data.certificate.issuedAt);
  const { uuid, verificationUrl } = data.certificate;
  stampCredential(document, { credentialUuid: uuid, verificationUrl });
}
