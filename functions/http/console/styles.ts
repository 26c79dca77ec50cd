/**
 * The console's one stylesheet, served as the static asset /console/assets/console.css (written
 * by scripts/build-console.mjs; the pages' CSP allows styles from the service only). Colours keep at least 4.5:1 contrast on their backgrounds.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #4a5361; --bg: #ffffff; --panel: #f4f6f8; --line: #d0d7de;
  --link: #0550ae; --ok: #116329; --bad: #a40e26; --warn: #7d4e00; --accent: #0550ae; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible,
svg .node:focus-visible { outline: 3px solid #bf5700; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--fg); color: #fff; padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: .5rem; }
header.top { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.25rem; background: #0d1117; color: #f0f3f6; flex-wrap: wrap; }
header.top .brand { font-weight: 700; color: #f0f3f6; text-decoration: none; }
header.top nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
header.top nav a { color: #c9d8f0; text-decoration: none; padding: .2rem .1rem; }
header.top nav a[aria-current="page"] { color: #fff; border-bottom: 2px solid #fff; }
header.top .who { margin-left: auto; display: flex; gap: .75rem; align-items: center; color: #c9d1d9; }
header.top .who button { background: transparent; color: #f0f3f6; border: 1px solid #8b949e; }
main { padding: 1.25rem; max-width: 1200px; margin: 0 auto; }
h1 { font-size: 1.5rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; color: var(--muted); padding-bottom: .4rem; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { background: var(--panel); font-weight: 600; }
tbody th { font-weight: 500; }
td code { overflow-wrap: anywhere; }
.table-scroll { overflow-x: auto; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--panel); border: 1px solid var(--line); padding: .75rem; overflow: auto; max-height: 32rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 1rem; font-size: .85em; border: 1px solid currentColor; white-space: nowrap; }
.badge.ok { color: var(--ok); } .badge.bad { color: var(--bad); } .badge.warn { color: var(--warn); } .badge.muted { color: var(--muted); }
.message { padding: .75rem 1rem; border-left: 4px solid var(--bad); background: #fff0f0; margin: 0 0 1rem; }
.message.info { border-color: var(--accent); background: #eef5ff; }
.empty { padding: 1.25rem; border: 1px dashed var(--line); background: var(--panel); }
.empty pre { background: #fff; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: .5rem 0 1rem; }
.actions form { display: flex; gap: .4rem; align-items: end; }
button, .button { font: inherit; padding: .35rem .8rem; border-radius: 6px; border: 1px solid #1f6feb; background: #0550ae; color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: #0550ae; }
label { display: block; font-weight: 600; margin: .5rem 0 .2rem; }
input[type=text], input[type=password], input[type=number], textarea, select { font: inherit; padding: .35rem .5rem; border: 1px solid #6e7781; border-radius: 6px; width: 100%; max-width: 36rem; }
input[type=number] { width: 6rem; }
.muted { color: var(--muted); }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 1rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
.card.current { border-color: var(--accent); box-shadow: 0 0 0 1px var(--accent); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
ul.learned-words { display: flex; flex-wrap: wrap; gap: .3rem 1rem; list-style: none; margin: 0; padding: 0; }
ins { background: #dafbe1; color: #0a3d1a; text-decoration: none; } del { background: #ffebe9; color: #6e0b17; }
progress { width: 12rem; height: 1rem; vertical-align: middle; }
.bar { display: flex; align-items: center; gap: .5rem; }
.graph-wrap { display: grid; grid-template-columns: minmax(0, 1fr) 320px; gap: 1rem; }
.graph-canvas { height: 70vh; overflow: auto; border: 1px solid var(--line); background: #fff; }
.graph-canvas svg { display: block; }
svg .edge { stroke: #57606a; stroke-opacity: .55; fill: none; }
svg .node circle { fill: #ddf4ff; stroke: #0550ae; stroke-width: 1.5; }
svg .node.broken circle { fill: #ffebe9; stroke: var(--bad); stroke-width: 2.5; }
svg .node.special circle { fill: #0d1117; }
svg .node.selected circle { stroke: #bf5700; stroke-width: 4; }
svg .node text { font: 12px system-ui, sans-serif; fill: var(--fg); pointer-events: none; }
.hljs-keyword, .hljs-built_in { color: #8250df; } .hljs-string { color: #0a3069; } .hljs-number, .hljs-literal { color: #0550ae; }
.hljs-comment { color: #57606a; font-style: italic; } .hljs-title, .hljs-title.function_ { color: #6639ba; } .hljs-attr, .hljs-property { color: #953800; }
.trace td { font-size: .92em; }
.log { max-height: 16rem; }
@media (max-width: 800px) { .graph-wrap { grid-template-columns: 1fr; } }
`;
