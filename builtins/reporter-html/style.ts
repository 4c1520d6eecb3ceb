// The page's one stylesheet, inline. Colours meet WCAG AA contrast on their backgrounds (text at least 4.5:1); the
// layout is one column that reflows from a phone (~390 px) to a wide screen, and only tables and figures scroll.
export const STYLE = `
:root{--fg:#1b1f24;--muted:#4a5360;--bg:#ffffff;--panel:#f4f6f8;--line:#c9d1d9;--ok:#116329;--bad:#a40e26;--warn:#7d4e00;--info:#0550ae;--idle:#57606a}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:break-word}
header,main,nav{max-width:1200px;margin:0 auto;padding:0 16px}
header{padding-top:16px}
h1{font-size:1.5rem;margin:.2em 0}
h2{font-size:1.2rem;margin:1.6em 0 .5em;border-bottom:1px solid var(--line);padding-bottom:.2em}
h3{font-size:1rem;margin:1em 0 .3em}
.sub,.note,.size,.cut,.meta{color:var(--muted)}
.none{color:var(--muted);font-style:italic}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875em}
pre{background:var(--panel);border:1px solid var(--line);padding:8px;overflow:auto;max-height:28em;white-space:pre-wrap;overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:.5em 0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 14px;padding:8px 0;margin:0;border-bottom:1px solid var(--line)}
a{color:var(--info)}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.9rem}
caption{text-align:left;font-weight:600;padding:4px 0;position:absolute;left:-9999px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:normal}
thead th{white-space:nowrap}
td{min-width:4ch}
thead th{background:var(--panel)}
tbody th{font-weight:normal}
.badge{display:inline-block;padding:0 6px;border-radius:10px;border:1px solid currentColor;font-size:.85em;white-space:nowrap}
.s-succeeded,.s-approved,.s-applied{color:var(--ok)}
.s-failed,.s-rejected,.s-cancelled,.s-uncertain{color:var(--bad)}
.s-paused,.s-pending,.s-waiting_for_approval,.s-running,.s-started,.s-requested{color:var(--warn)}
.s-skipped{color:var(--idle)}
.error-text{color:var(--bad)}
.help{background:var(--panel);padding:4px 8px;border-left:3px solid var(--info)}
ul.errors{padding-left:1.2em}
.digest,.nowrap{white-space:nowrap}
details{margin:.25em 0}
summary{cursor:pointer}
article.effect{border:1px solid var(--line);border-radius:6px;padding:4px 10px;margin:8px 0}
.meter{display:inline-block;width:80px;height:10px;border:1px solid var(--muted);vertical-align:middle}
.meter span{display:block;height:100%;background:var(--info)}
.meter span.full{background:var(--bad)}
figure{margin:0}
figcaption{color:var(--muted);margin-bottom:6px}
.tl{list-style:none;margin:0;padding:0}
.tl li{display:grid;grid-template-columns:minmax(80px,180px) 1fr;gap:8px;align-items:center;border-bottom:1px dotted var(--line);padding:2px 0}
.tl-label{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tl-attempts{color:var(--warn)}
.tl-track{position:relative;height:26px;background:var(--panel)}
.tl-track span{position:absolute}
.tl-task{top:2px;height:12px;background:currentColor;border-radius:2px}
.tl-effect{top:17px;height:6px;background:currentColor}
.tl-wait{top:2px;height:12px;background:repeating-linear-gradient(45deg,#7d4e00 0 3px,#ffffff 3px 6px);border:1px solid #7d4e00}
.tl-paused{top:0;bottom:0;background:rgba(125,78,0,.12)}
.tl-axis{display:grid;grid-template-columns:1fr auto 1fr;margin-left:calc(min(180px,30%) + 8px);font-size:.8em;color:var(--muted)}
.tl-axis span:last-child{text-align:right}
.graph svg{display:block;max-width:none}
.graph .edge{fill:none;stroke:#57606a;stroke-width:1.2}
.graph .arrow{fill:#57606a}
.graph rect{fill:#ffffff;stroke:currentColor;stroke-width:1.5}
.graph text{fill:#1b1f24;font:12px ui-monospace,Menlo,Consolas,monospace}
.graph .node{color:var(--idle)}
.graph .node.s-succeeded{color:var(--ok)}
.graph .node.s-failed{color:var(--bad)}
.totals{display:flex;flex-wrap:wrap;gap:4px 16px;padding:0;list-style:none}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{max-width:1200px;margin:2em auto;padding:0 16px;color:var(--muted);font-size:.85em}
@media (max-width:600px){body{font-size:14px}.tl li{grid-template-columns:90px 1fr}.tl-axis{margin-left:98px}}
`;
