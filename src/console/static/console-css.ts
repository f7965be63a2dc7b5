/**
 * The console's style sheet, served as the static file `/static/console.css` (the Content-Security-Policy
 * allows styles from the console's own origin only, never inline). It lives in a module so the compiled
 * build (`npm run build`, which copies no other files) serves it as well.
 */
export const CONSOLE_CSS = `
:root { --bg: #f6f7f9; --card: #fff; --ink: #1d2330; --muted: #5b6475; --line: #dde1e8; --brand: #4752c4; --ok: #1f7a3d; --off: #a4262c; --ask: #8a5a00; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: var(--bg); }
header.top { background: #1e2233; color: #fff; padding: .6rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
header.top a { color: #fff; text-decoration: none; }
header.top .brand { font-weight: 700; letter-spacing: .02em; }
header.top .who { margin-left: auto; display: flex; gap: .6rem; align-items: center; }
header.top form { margin: 0; }
nav.sections { background: #fff; border-bottom: 1px solid var(--line); padding: 0 1rem; display: flex; flex-wrap: wrap; gap: .2rem; }
nav.sections a { padding: .55rem .7rem; color: var(--muted); text-decoration: none; border-bottom: 3px solid transparent; }
nav.sections a[aria-current="page"] { color: var(--ink); border-bottom-color: var(--brand); font-weight: 600; }
main { max-width: 1100px; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.45rem; margin: .3rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 .6rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin-bottom: 1rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: .8rem; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: .8rem 1rem; }
.stat b { display: block; font-size: 1.5rem; }
.stat span { color: var(--muted); font-size: .85rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { border-bottom: 1px solid var(--line); padding: .45rem .55rem; text-align: left; vertical-align: top; }
thead th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); white-space: nowrap; }
tbody th { font-weight: 600; white-space: nowrap; }
td.mode { white-space: nowrap; font-weight: 600; }
.on { color: var(--ok); } .off { color: var(--off); } .ask { color: var(--ask); }
code { font: .9em ui-monospace, "DejaVu Sans Mono", monospace; background: #eef0f4; padding: .05rem .3rem; border-radius: 4px; overflow-wrap: anywhere; }
.mention { color: var(--brand); background: #eceefd; border-radius: 4px; padding: 0 .2rem; }
form.inline { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; }
label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); gap: .2rem; }
input, select, textarea, button { font: inherit; }
input, select, textarea { padding: .4rem .5rem; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); min-width: 9rem; }
textarea { width: 100%; min-height: 4rem; }
button, .button { background: var(--brand); color: #fff; border: 0; border-radius: 6px; padding: .45rem .9rem; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #e7e9ef; color: var(--ink); }
button.danger { background: var(--off); }
.notice { border-left: 4px solid var(--brand); background: #eef0fd; padding: .6rem .8rem; border-radius: 6px; margin-bottom: 1rem; }
.notice.problem { border-color: var(--off); background: #fdeeee; }
.muted { color: var(--muted); }
.chart { width: 100%; height: auto; display: block; }
.chart .bar { fill: var(--brand); } .chart .axis { stroke: var(--line); } .chart text { fill: var(--muted); font-size: 10px; }
.pager { display: flex; gap: .6rem; margin-top: .8rem; }
.diff { white-space: pre-wrap; font: .85em ui-monospace, "DejaVu Sans Mono", monospace; background: #f3f4f7; padding: .6rem; border-radius: 6px; overflow-x: auto; }
ul.servers { list-style: none; padding: 0; display: grid; gap: .6rem; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); }
ul.servers a { display: block; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: .9rem 1rem; color: var(--ink); text-decoration: none; font-weight: 600; }
@media (max-width: 600px) { main { padding: .6rem; } th, td { padding: .35rem; } header.top .who { margin-left: 0; } }
`;
