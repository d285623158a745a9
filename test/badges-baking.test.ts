import { qrPng } from './support/qr-png.js';
import { recipientIdentity } from '../src/badges/open-badges.js';
import { BakingError, bakePng, extractFromPng } from '../src/badges/png-baking.js';
import { bakeSvg, extractFromSvg } from '../src/badges/svg-baking.js';
import { encodePng, iTXtChunk, isOpenBadgesText, pngChunks, svgAssertion } from './support/open-badges.js';

const ID = 'https://credentials.example/ob/v2/assertions/0190f5c4-0000-7000-8000-000000000000';

describe('the recipient identity hash', () => {
  it('matches the specification’s example (SHA-256 of "mayze", unsalted) and lower-cases the email', () => {
    expect(recipientIdentity('mayze', '')).toBe('sha256$7a1a1b3f7d40552e4299180e346e3add12bf9a751a43d9c4ca4518febc2c60c6');
    expect(recipientIdentity(' MAYZE', '')).toBe(recipientIdentity('mayze', ''));
    expect(recipientIdentity('mayze', 'deadsea')).not.toBe(recipientIdentity('mayze', ''));
  });
});

describe('PNG baking', () => {
  it('reads back what it baked, and a re-bake leaves one chunk holding the new text', async () => {
    const image = await qrPng('unit');
    const once = bakePng(image, '{"id":"first","name":"Ünïcode ✓"}');
    expect(extractFromPng(once)).toEqual({ json: '{"id":"first","name":"Ünïcode ✓"}' });
    const twice = bakePng(once, '{"id":"second"}');
    expect(pngChunks(twice).filter(isOpenBadgesText)).toHaveLength(1);
    expect(extractFromPng(twice)).toEqual({ json: '{"id":"second"}' });
    // Everything but the badge chunk is the original image, chunk for chunk.
    expect(pngChunks(twice).filter((chunk) => !isOpenBadgesText(chunk))).toEqual(pngChunks(image));
  });

  it('refuses forged lengths, bad CRCs, truncation and compressed text', async () => {
    const image = await qrPng('hostile');
    const forged = Buffer.from(image);
    forged.writeUInt32BE(0x7fffffff, 8);
    expect(() => extractFromPng(forged)).toThrow(BakingError);
    const badCrc = Buffer.from(image);
    badCrc[29] = badCrc[29]! ^ 0xff;
    expect(() => extractFromPng(badCrc)).toThrow(BakingError);
    expect(() => extractFromPng(image.subarray(0, image.length - 12))).toThrow(BakingError);
    const chunks = pngChunks(image);
    const compressed = iTXtChunk('x');
    compressed.data[11] = 1;
    expect(() => extractFromPng(encodePng([...chunks.slice(0, -1), compressed, chunks.at(-1)!]))).toThrow(/compressed/);
    expect(extractFromPng(image)).toBeNull();
  });
});

describe('SVG baking', () => {
  const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>\n';

  it('keeps a `]]>` inside the JSON from ending the CDATA section', () => {
    const json = JSON.stringify({ id: ID, name: 'a ]]> b & <c>' });
    const baked = bakeSvg(svg, ID, json);
    const read = svgAssertion(baked);
    expect(JSON.parse(read.json)).toEqual(JSON.parse(json));
    expect(JSON.parse((extractFromSvg(baked) as { json: string }).json)).toEqual(JSON.parse(json));
  });

  it('bakes a self-closing root, does not repeat a declared namespace, and replaces an earlier assertion', () => {
    const empty = bakeSvg('<svg xmlns="http://www.w3.org/2000/svg"/>', ID, '{"id":"one"}');
    expect(svgAssertion(empty)).toMatchObject({ namespace: 'http://openbadges.org', count: 1, firstInRoot: true, json: '{"id":"one"}' });
    const rebaked = bakeSvg(empty, ID, '{"id":"two"}');
    expect(rebaked.match(/xmlns:openbadges=/g)).toHaveLength(1);
    expect(svgAssertion(rebaked)).toMatchObject({ count: 1, json: '{"id":"two"}' });
  });

  it('reads a hosted URL from a body-less element, and refuses what is not well-formed SVG', () => {
    const byUrl = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org"><openbadges:assertion verify="${ID}"/></svg>`;
    expect(extractFromSvg(byUrl)).toEqual({ url: ID });
    expect(extractFromSvg(svg)).toBeNull();
    expect(() => bakeSvg('<svg><g></svg>', ID, '{}')).toThrow(BakingError);
    expect(() => bakeSvg('<html/>', ID, '{}')).toThrow(BakingError);
    expect(() => extractFromSvg('<!DOCTYPE svg [<!ENTITY x "boom">]><svg>&x;</svg>')).toThrow(BakingError);
  });
});
