import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { BakingError } from './png-baking.js';

/**
 * Badge baking in SVG (1EdTech Open Badges Baking 1.0): `xmlns:openbadges="http://openbadges.org"`
 * on the root and, directly after its start tag, `<openbadges:assertion verify="{id}">` holding the
 * assertion JSON in CDATA. The image is parsed with a conforming XML parser (saxes: no DTD entities,
 * nothing fetched) and edited at the offsets it reports, so the rest of the file stays byte for byte.
 */

/** Where and how a badge is baked: Open Badges 2.0 (an assertion) or 3.0 §5.3.2 (an OpenBadgeCredential). */
interface SvgBaking {
  namespace: string;
  element: string;
}
const ASSERTION: SvgBaking = { namespace: 'http://openbadges.org', element: 'openbadges:assertion' };
const CREDENTIAL: SvgBaking = { namespace: 'https://purl.imsglobal.org/ob/v3p0', element: 'openbadges:credential' };

interface Range {
  start: number;
  end: number;
}

/** What baking needs to know about an SVG, and what extraction reads from its first assertion element. */
interface SvgReading {
  /** Offset just past the root start tag's `>`. */
  rootTagEnd: number;
  rootSelfClosing: boolean;
  rootName: string;
  rootDeclaresNamespace: boolean;
  /** Every (outermost) openbadges:assertion element, as offsets. */
  assertions: Range[];
  /** The first one's `verify` attribute and text content. */
  first: { verify: string | null; body: string } | null;
}

function read(svg: string, element = ASSERTION.element): SvgReading {
  const parser = new SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true });
  const reading: SvgReading = { rootTagEnd: -1, rootSelfClosing: false, rootName: 'svg', rootDeclaresNamespace: false, assertions: [], first: null };
  let depth = 0;
  let inside: { depth: number; start: number; body: string[]; verify: string | null } | null = null;
  parser.on('opentagstart', (tag) => {
    if (!inside && tag.name === element) inside = { depth: depth + 1, start: svg.lastIndexOf('<', parser.position - 1), body: [], verify: null };
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    depth++;
    if (depth === 1) {
      if (tag.name !== 'svg' && !tag.name.endsWith(':svg')) throw new BakingError('The image is not an SVG document.');
      Object.assign(reading, {
        rootTagEnd: parser.position,
        rootSelfClosing: tag.isSelfClosing,
        rootName: tag.name,
        rootDeclaresNamespace: tag.attributes['xmlns:openbadges'] !== undefined,
      });
    }
    if (inside && depth === inside.depth) inside.verify = tag.attributes.verify ?? null;
  });
  const collect = (text: string) => inside?.body.push(text);
  parser.on('text', collect);
  parser.on('cdata', collect);
  parser.on('closetag', () => {
    if (inside && depth === inside.depth) {
      reading.assertions.push({ start: inside.start, end: parser.position });
      reading.first ??= { verify: inside.verify, body: inside.body.join('').trim() };
      inside = null;
    }
    depth--;
  });
  try {
    parser.write(svg).close();
  } catch (error) {
    throw error instanceof BakingError ? error : new BakingError(`Not a well-formed SVG: ${(error as Error).message}`);
  }
  if (reading.rootTagEnd < 0) throw new BakingError('The image is not an SVG document.');
  return reading;
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** `]]>` may only occur inside JSON strings, where `\u003e` reads back as the same `>`. */
const cdataSafe = (json: string) => json.replaceAll(']]>', ']]\\u003e');

function bake(svg: string, baking: SvgBaking, attributes: string, json: string): string {
  const reading = read(svg, baking.element);
  const element = `<${baking.element}${attributes}><![CDATA[${cdataSafe(json)}]]></${baking.element}>`;
  // Edits from the end of the file backwards, so earlier offsets stay valid.
  let baked = svg;
  for (const range of [...reading.assertions].reverse()) baked = baked.slice(0, range.start) + baked.slice(range.end);
  const namespace = reading.rootDeclaresNamespace ? '' : ` xmlns:openbadges="${baking.namespace}"`;
  const end = reading.rootTagEnd;
  if (reading.rootSelfClosing) return `${baked.slice(0, end - 2)}${namespace}>${element}</${reading.rootName}>${baked.slice(end)}`;
  return `${baked.slice(0, end - 1)}${namespace}>${element}${baked.slice(end)}`;
}

/** The SVG with the assertion baked in; an assertion element baked before is replaced. */
export function bakeSvg(svg: string, assertionId: string, assertionJson: string): string {
  return bake(svg, ASSERTION, ` verify="${escapeAttribute(assertionId)}"`, assertionJson);
}

/** The SVG with an OpenBadgeCredential (embedded proof: no `verify`) baked in. */
export function bakeSvgCredential(svg: string, credentialJson: string): string {
  return bake(svg, CREDENTIAL, '', credentialJson);
}

/** What a baked SVG carries: the assertion JSON (element body), or a hosted URL (`verify` alone); null when nothing is baked. */
export function extractFromSvg(svg: string): { json: string } | { url: string } | null {
  const first = read(svg).first;
  if (!first) return null;
  if (first.body) return { json: first.body };
  return first.verify ? { url: first.verify } : null;
}

/** The OpenBadgeCredential JSON baked into an SVG, or null. */
export function extractCredentialFromSvg(svg: string): string | null {
  return read(svg, CREDENTIAL.element).first?.body || null;
}
