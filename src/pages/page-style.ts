import { createHash } from 'node:crypto';

// One constant stylesheet for every public page, inline, so its hash can stand in the CSP instead of
// 'unsafe-inline' and a saved or printed page keeps its look. Colours meet WCAG AA contrast.
export const PAGE_STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7; color: #1d2330; }
main { max-width: 44rem; margin: 2rem auto; background: #fff; border-radius: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.08); overflow: hidden; }
main > header { padding: 2rem 2rem 1.5rem; border-bottom: 1px solid #e7e9ee; }
.issuer { text-transform: uppercase; letter-spacing: .08em; font-size: .8rem; color: #545d6e; margin: 0 0 .75rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 .25rem; overflow-wrap: anywhere; }
h2 { font-size: 1.05rem; margin: 0 0 .75rem; }
h3 { font-size: 1rem; margin: 0; overflow-wrap: anywhere; }
p { overflow-wrap: anywhere; }
.lede { font-size: 1.15rem; margin: 0; overflow-wrap: anywhere; }
.bio { margin: .75rem 0 0; color: #3a4252; white-space: pre-line; }
.state { margin: 1.5rem 2rem; padding: 1rem 1.25rem; border-radius: 8px; }
.state p { margin: .25rem 0 0; }
.badge { display: inline-block; font-weight: 700; font-size: .85rem; padding: .1rem .6rem; border-radius: 999px; border: 1px solid currentColor; }
.state .badge { font-size: 1.05rem; }
.tone-good { background: #e6f4ea; color: #14532d; }
.tone-bad { background: #fdeaea; color: #8f1717; }
.tone-warn { background: #fff4e0; color: #6e4700; }
.tone-neutral { background: #eef0f4; color: #333b4a; }
dl { margin: 0 2rem 1.5rem; }
dl.flush { margin: 0 0 1rem; }
.row { display: flex; gap: 1rem; padding: .5rem 0; border-bottom: 1px solid #f0f1f4; }
dt { width: 11rem; flex: none; color: #545d6e; }
dd { margin: 0; overflow-wrap: anywhere; }
section { padding: 0 2rem 1.75rem; }
ul.plain { list-style: none; margin: 0; padding: 0; }
ul.plain li { margin: 0 0 .5rem; }
a { color: #1f4fd1; }
.button { display: inline-block; padding: .55rem 1rem; border-radius: 6px; background: #0a66c2; color: #fff; text-decoration: none; font-weight: 600; border: 0; font: inherit; cursor: pointer; }
.button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid #f2b600; outline-offset: 2px; }
.share { display: flex; gap: 1.5rem; align-items: center; flex-wrap: wrap; }
.qr { margin: 0; text-align: center; font-size: .85rem; color: #545d6e; }
.qr svg { display: block; width: 9rem; height: 9rem; margin: 0 auto .25rem; }
form { display: grid; gap: .6rem; max-width: 28rem; }
label { font-weight: 600; }
input[type=file] { font: inherit; padding: .4rem; border: 1px solid #8a93a3; border-radius: 6px; background: #fff; }
.hint { font-size: .85rem; color: #545d6e; margin: 0; }
.upload { border-top: 1px solid #e7e9ee; padding-top: 1.5rem; }
.items { list-style: none; margin: 0; padding: 0; display: grid; gap: 1rem; }
.item { display: flex; gap: 1rem; padding: 1rem; border: 1px solid #e7e9ee; border-radius: 10px; }
.item img { width: 4rem; height: 4rem; flex: none; object-fit: contain; }
.item p { margin: .2rem 0; }
.item .meta { color: #545d6e; font-size: .9rem; }
.site { max-width: 44rem; margin: 0 auto 2rem; padding: 0 1rem; color: #545d6e; font-size: .85rem; display: flex; justify-content: space-between; gap: 1rem; flex-wrap: wrap; }
.site nav a { margin-left: .75rem; }
.site nav a:first-child { margin-left: 0; }
.credentials { padding-top: 1.5rem; }
.credentials > .hint { margin-top: 1rem; }
.site nav a[aria-current] { font-weight: 700; color: #1d2330; text-decoration: none; }
.url { word-break: break-all; }
main > header.with-image { display: flex; gap: 1.25rem; align-items: center; }
.credential-image { width: 6rem; height: 6rem; flex: none; object-fit: contain; }
.description { white-space: pre-line; margin: 0 0 1rem; }
.subheading { margin: .5rem 0; }
.modules { margin: 0; padding-left: 1.25rem; }
.modules li { margin: 0 0 .35rem; }
.modules .meta { color: #545d6e; font-size: .9rem; margin-left: .5rem; }
.checks { margin: 0; padding-left: 1.25rem; }
.checks li { margin: 0 0 .5rem; }
ul.plain.networks li { display: inline-block; margin: 0 1.25rem .5rem 0; }
.copy { display: grid; gap: .35rem; margin: 1rem 0 0; }
.copy input, .copy textarea { font: .9rem ui-monospace, SFMono-Regular, Menlo, monospace; padding: .45rem; border: 1px solid #8a93a3; border-radius: 6px; width: 100%; color: #1d2330; background: #fff; resize: vertical; }
@media (max-width: 600px) {
  main { margin: 0 0 1rem; border-radius: 0; }
  main > header, section { padding-left: 1rem; padding-right: 1rem; }
  .state { margin: 1rem; }
  dl { margin: 0 1rem 1rem; }
  .row { flex-direction: column; gap: 0; }
  main > header.with-image { flex-direction: column; align-items: flex-start; }
  dt { width: auto; font-size: .85rem; }
}
@media print {
  body { background: #fff; font-size: 11pt; }
  main { box-shadow: none; margin: 0; max-width: none; border-radius: 0; }
  .upload, .site nav, .linkedin, .button, .networks, .copy { display: none; }
  .state { border: 1px solid currentColor; }
  a { color: inherit; text-decoration: none; }
  .downloads a::after { content: " (" attr(href) ")"; font-size: .8em; word-break: break-all; }
  .qr svg { width: 3.5cm; height: 3.5cm; }
}
`;

/** The CSP source that admits the pages' inline stylesheet and nothing else. */
export const PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`;
