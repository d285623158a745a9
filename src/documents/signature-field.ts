import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, type PDFPage } from 'pdf-lib';
import { DocumentError } from './document-error.js';
import type { PdfRevision } from './pdf-update.js';
import { freeSpot, paintedBoxes } from './page-ink.js';
import { SEAL_MARGIN, type SealPlacement } from './seal-placement.js';
import { registerStampAppearance, type StampText } from './signature-stamp.js';

// Annotation flags Print (4) and Locked (128).
const WIDGET_FLAGS = 132;
// AcroForm SigFlags: SignaturesExist (1) and AppendOnly (2).
const SIG_FLAGS = 3;

/**
 * Refuses a certified PDF whose author allowed no changes at all (DocMDP P=1): any signature added
 * to it invalidates the certification, so issuing from it would hand out a broken document.
 */
export function refuseLockedCertification(revision: PdfRevision): void {
  const { catalog } = revision.document;
  const perms = catalog.lookup(PDFName.of('Perms'));
  const certification = perms instanceof PDFDict ? perms.lookup(PDFName.of('DocMDP')) : undefined;
  if (!(certification instanceof PDFDict)) return;
  const references = certification.lookup(PDFName.of('Reference'));
  if (!(references instanceof PDFArray)) return;
  for (let i = 0; i < references.size(); i++) {
    const reference = references.lookup(i);
    if (!(reference instanceof PDFDict) || reference.lookup(PDFName.of('TransformMethod')) !== PDFName.of('DocMDP')) continue;
    const params = reference.lookup(PDFName.of('TransformParams'));
    const permission = params instanceof PDFDict ? params.lookup(PDFName.of('P')) : undefined;
    if (permission instanceof PDFNumber && permission.asNumber() === 1) {
      throw new DocumentError(
        'PDF_CERTIFIED_NO_CHANGES',
        'The PDF is certified by its author with no changes allowed (DocMDP P=1): a signature added to it would void that certification. Upload a version that is not certified, or one certified with form filling and signing allowed.',
      );
    }
  }
}

export interface SignatureWidget {
  /** The signature dictionary the field's value points to (written by the caller). */
  signature: PDFRef;
  /** Visible stamp placement; undefined for an invisible signature. */
  placement?: SealPlacement;
  text: StampText;
}

/**
 * Adds a signature field merged with its widget annotation to the AcroForm and to a page, marking
 * every object it touches as changed in the revision.
 */
export async function addSignatureField(revision: PdfRevision, widget: SignatureWidget): Promise<void> {
  const { document } = revision;
  const { context } = document;
  const catalogRef = context.trailerInfo.Root as PDFRef;
  const acroForm = ensureAcroForm(revision, catalogRef);
  const pages = document.getPages();
  const page = widget.placement?.page === 'last' ? pages[pages.length - 1]! : pages[0]!;
  const rect = widget.placement ? placeOn(page, widget.placement) : [0, 0, 0, 0];
  const field = context.obj({
    Type: 'Annot',
    Subtype: 'Widget',
    FT: 'Sig',
    T: PDFString.of(uniqueFieldName(acroForm.form)),
    V: widget.signature,
    F: WIDGET_FLAGS,
    P: page.ref,
    Rect: rect,
  });
  if (widget.placement) {
    const appearance = await registerStampAppearance(context, { width: rect[2]! - rect[0]!, height: rect[3]! - rect[1]! }, widget.text);
    field.set(PDFName.of('AP'), context.obj({ N: appearance }));
  }
  const fieldRef = context.register(field);
  arrayIn(revision, acroForm.ref, acroForm.form, 'Fields').push(fieldRef);
  acroForm.form.set(PDFName.of('SigFlags'), PDFNumber.of(SIG_FLAGS));
  arrayIn(revision, page.ref, page.node, 'Annots').push(fieldRef);
}

function ensureAcroForm(revision: PdfRevision, catalogRef: PDFRef): { ref: PDFRef; form: PDFDict } {
  const { catalog, context } = revision.document;
  const entry = catalog.get(PDFName.of('AcroForm'));
  if (entry instanceof PDFRef && context.lookup(entry) instanceof PDFDict) {
    revision.changedObject(entry);
    return { ref: entry, form: context.lookup(entry) as PDFDict };
  }
  if (entry instanceof PDFDict) {
    revision.changedObject(catalogRef);
    return { ref: catalogRef, form: entry };
  }
  const form = context.obj({ Fields: [] });
  const ref = context.register(form);
  catalog.set(PDFName.of('AcroForm'), ref);
  revision.changedObject(catalogRef);
  return { ref, form };
}

/** The array under `key`, created when missing or not an array; whoever holds it is marked changed. */
function arrayIn(revision: PdfRevision, holderRef: PDFRef, holder: PDFDict, key: string): PDFArray {
  const existing = revision.editableArray(holderRef, holder, PDFName.of(key));
  if (existing) return existing;
  const created = revision.document.context.obj([]);
  holder.set(PDFName.of(key), created);
  revision.changedObject(holderRef);
  return created;
}

function uniqueFieldName(form: PDFDict): string {
  const fields = form.lookup(PDFName.of('Fields'));
  const taken = new Set<string>();
  if (fields instanceof PDFArray) {
    for (let i = 0; i < fields.size(); i++) {
      const field = fields.lookup(i);
      const name = field instanceof PDFDict ? field.lookup(PDFName.of('T')) : undefined;
      if (name instanceof PDFString || name instanceof PDFHexString) taken.add(name.decodeText());
    }
  }
  let n = 1;
  while (taken.has(`Signature${n}`)) n++;
  return `Signature${n}`;
}

/**
 * The widget rectangle on the page's visible area, kept inside it whatever the template asks for.
 * Without a position from the template, the stamp goes where the page paints nothing (page-ink.ts),
 * and to the bottom-right corner when no such spot exists or the page cannot be read.
 */
function placeOn(page: PDFPage, placement: SealPlacement): number[] {
  const box = page.getCropBox();
  const width = Math.min(placement.width, box.width);
  const height = Math.min(placement.height, box.height);
  const free = placement.x === undefined && placement.y === undefined ? freeSpotOn(page, { width, height }) : undefined;
  const x = Math.min(Math.max(0, free?.x ?? placement.x ?? box.width - width - SEAL_MARGIN), box.width - width);
  const y = Math.min(Math.max(0, free?.y ?? placement.y ?? SEAL_MARGIN), box.height - height);
  return [box.x + x, box.y + y, box.x + x + width, box.y + y + height];
}

function freeSpotOn(page: PDFPage, size: { width: number; height: number }): { x: number; y: number } | undefined {
  try {
    const boxes = paintedBoxes(page);
    return boxes && freeSpot(boxes, page.getCropBox(), size, SEAL_MARGIN);
  } catch {
    // An upload's malformed resources: the stamp keeps its corner rather than failing the signature.
    return undefined;
  }
}
