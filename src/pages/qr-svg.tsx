import { qrModules } from '../documents/qr-code.js';

const QUIET_ZONE = 4;

/** The dark modules as one SVG path: a 1×1 square per module, run together. */
function modulePath(text: string): { size: number; path: string } {
  const modules = qrModules(text);
  const squares: string[] = [];
  for (let row = 0; row < modules.size; row += 1)
    for (let column = 0; column < modules.size; column += 1)
      if (modules.isDark(row, column)) squares.push(`M${column + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`);
  return { size: modules.size + 2 * QUIET_ZONE, path: squares.join('') };
}

/** A QR code of `url`, drawn on the server as inline SVG (no script, no image request). */
export function QrCode({ url, label }: { url: string; label: string }) {
  const { size, path } = modulePath(url);
  return (
    <svg xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
