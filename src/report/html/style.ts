/** The report's stylesheet, inlined in every page. */
export const REPORT_CSS = `
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#ffffff; --panel:#f6f8fa;
  --stale:#cf222e; --victim:#d4660a; --related:#8250df; --coord:#5b3cc4; --broker:#0969da; --producer:#1a7f37; --consumer:#9a6700; --processor:#0f6e6e; --group:#bf3989; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header.top { padding:18px 28px 10px; border-bottom:1px solid var(--line); }
header.top h1 { margin:0 0 4px; font-size:22px; }
main { padding:12px 28px 40px; }
h2 { font-size:18px; margin:28px 0 8px; border-bottom:1px solid var(--line); padding-bottom:4px; }
h3 { font-size:15px; margin:18px 0 6px; }
.muted { color:var(--muted); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:12.5px; }
pre { background:var(--panel); padding:10px 12px; border-radius:6px; overflow:auto; }
table { border-collapse:collapse; margin:6px 0 12px; }
th, td { border:1px solid var(--line); padding:4px 9px; text-align:left; vertical-align:top; }
th { background:var(--panel); font-weight:600; }
td.num { text-align:right; font-variant-numeric: tabular-nums; }
.pill { display:inline-block; padding:1px 9px; border-radius:10px; font-weight:600; font-size:12px; }
.pill.ok { background:#dafbe1; color:#116329; } .pill.bad { background:#ffebe9; color:#a40e26; } .pill.info { background:#ddf4ff; color:#0550ae; }
.cards { display:flex; flex-wrap:wrap; gap:10px; margin:10px 0; }
.card { border:1px solid var(--line); border-radius:8px; padding:8px 14px; min-width:140px; background:var(--panel); }
.card b { display:block; font-size:20px; }
.chain { margin:6px 0; padding-left:0; list-style:none; }
.chain li { font-family: ui-monospace, Menlo, Consolas, monospace; font-size:12.5px; white-space:pre-wrap; padding:1px 4px; border-radius:4px; }
.chain li[data-at-ms] { cursor:pointer; } .chain li[data-at-ms]:hover { background:#fff8c5; }
.diagram { border:1px solid var(--line); border-radius:8px; margin:12px 0 22px; }
.diagram:focus { outline:2px solid #0969da55; }
.controls { position:sticky; top:0; z-index:2; background:var(--panel); border-bottom:1px solid var(--line); padding:8px 12px; display:flex; flex-wrap:wrap; gap:8px; align-items:center; border-radius:8px 8px 0 0; }
.controls input.step { flex:1 1 320px; }
.controls button { font:inherit; padding:2px 10px; border:1px solid var(--line); background:#fff; border-radius:6px; cursor:pointer; }
.controls button.warn { border-color:var(--stale); color:var(--stale); font-weight:600; }
.controls label { font-size:12.5px; color:var(--muted); }
.step-readout { font-size:12.5px; color:var(--muted); min-width:250px; }
.details { padding:6px 12px; min-height:2.2em; background:#fff; border-bottom:1px solid var(--line); font-family: ui-monospace, Menlo, Consolas, monospace; font-size:12px; white-space:pre-wrap; }
.scroll { overflow:auto; max-height:78vh; }
.legend { display:flex; flex-wrap:wrap; gap:14px; padding:6px 12px; font-size:12px; color:var(--muted); border-top:1px solid var(--line); }
.legend i { display:inline-block; width:22px; height:0; border-top:2px solid; vertical-align:middle; margin-right:4px; }
.legend i.box { height:10px; border:none; }
.legend i.dot { width:9px; height:9px; border:none; border-radius:50%; }
.legend b.cross { color:#cf222e; margin-right:4px; }
svg.spacetime { display:block; font-size:11px; }
svg.lanes-head { display:block; position:sticky; top:0; z-index:1; background:#fffffff0; border-bottom:1px solid var(--line); }
svg .lane line { stroke:#c4ccd6; stroke-width:1.2; }
svg .lane-name { text-anchor:middle; font-weight:700; font-size:13px; }
svg .lane-sub { text-anchor:middle; fill:var(--muted); font-size:11px; }
svg .lane-coordinator .lane-name { fill:var(--coord); } svg .lane-broker .lane-name { fill:var(--broker); }
svg .lane-producer .lane-name { fill:var(--producer); } svg .lane-consumer .lane-name { fill:var(--consumer); }
svg .lane-processor .lane-name { fill:var(--processor); }
svg .axis text { text-anchor:end; fill:var(--muted); font-size:10.5px; }
svg .axis .tick { stroke:#eef1f4; }
svg .axis .gap { fill:none; stroke:var(--muted); }
svg .band rect { stroke:none; }
svg .band text { font-size:10.5px; fill:#57606a; }
svg .band-stall rect { fill:#cf222e22; } svg .band-partition rect { fill:#bf870033; } svg .band-pause rect { fill:#8250df22; }
svg .band-quiet rect { fill:#1a7f370d; }
svg .band-slow rect { fill:#bf87001a; stroke:#bf870066; stroke-dasharray:3 3; } svg .band-slow text { fill:#9a6700; }
svg .band-failover line { stroke:#cf222e; stroke-width:1.5; stroke-dasharray:6 4; } svg .band-failover text { fill:#cf222e; font-weight:600; }
svg .band-restart line, svg .band-upgrade line { stroke:#8250df; stroke-width:1.5; stroke-dasharray:3 3; }
svg .msg line { stroke:#aab3bf; stroke-width:0.9; }
svg .msg-response line { stroke:#c8ced6; }
svg .msg.key line { stroke:var(--broker); stroke-width:1.6; }
svg .msg.key.msg-response line { stroke:#54aeff; }
svg .msg.dup line { stroke-dasharray:5 3; }
svg .msg.delayed line { stroke:#bf8700; stroke-width:1.6; }
svg .msg.fate-late line { stroke:#bf8700; stroke-dasharray:2 3; stroke-width:1.4; }
svg .msg.fate-lost line { stroke-dasharray:1 4; }
svg .msg .cross { stroke:#cf222e; stroke-width:2; }
svg .alabel { font-size:10px; fill:#424a53; text-anchor:middle; paint-order:stroke; stroke:#fff; stroke-width:3px; display:none; }
svg .msg.key .alabel, .all-labels svg .alabel { display:inline; }
svg .msg.em-stale line { stroke:var(--stale); stroke-width:3.2; }
svg .msg.em-stale .alabel { display:inline; fill:var(--stale); font-weight:700; font-size:11px; }
svg .msg.em-victim line { stroke:var(--victim); stroke-width:2.4; }
svg .msg.em-victim .alabel { display:inline; fill:var(--victim); font-weight:600; }
svg .msg.em-related line { stroke:var(--related); stroke-width:1.8; }
svg .ev circle { fill:#6e7781; }
svg .cat-marker circle { fill:var(--broker); } svg .cat-produce circle { fill:var(--producer); } svg .cat-txn circle { fill:var(--coord); }
svg .cat-client circle { fill:#1a7f37; } svg .cat-fault circle { fill:#cf222e; } svg .cat-log circle { fill:#afb8c1; }
svg .cat-group circle { fill:var(--group); }
svg .elabel { font-size:10.5px; fill:#24292f; paint-order:stroke; stroke:#fff; stroke-width:3px; display:none; }
svg .cat-marker.labelled .elabel, svg .cat-txn.labelled .elabel, svg .cat-group.labelled .elabel, svg .ev.em-stale .elabel, svg .ev.em-victim .elabel, .all-labels svg .elabel { display:inline; }
svg .ev.em-stale circle { fill:var(--stale); r:7; stroke:#fff; stroke-width:2; }
svg .ev.em-stale .elabel { fill:var(--stale); font-weight:700; font-size:12px; }
svg .ev.em-victim circle { fill:var(--victim); r:6; stroke:#fff; stroke-width:1.5; }
svg .ev.em-victim .elabel { fill:var(--victim); font-weight:700; }
svg .ev.em-related circle { fill:var(--related); r:4.5; }
svg .ev.current circle { stroke:#0969da; stroke-width:3; r:8; }
svg .violation-line line { stroke:var(--stale); stroke-width:1; stroke-dasharray:8 3; }
svg .violation-line text { fill:var(--stale); text-anchor:end; font-weight:700; }
svg .cursor { stroke:#0969da; stroke-width:1; stroke-dasharray:2 2; }
svg .future { opacity:0.06; }
svg .flying line { stroke-dasharray:4 3; stroke-width:2; opacity:1; }
.hide-net svg .msg:not(.key):not(.em-stale):not(.em-victim), .hide-net svg .cat-net, .hide-net svg .cat-log { display:none; }
svg.chart text { font-size:11px; fill:#424a53; }
svg.chart .axisline { stroke:#8c959f; }
svg.chart .grid { stroke:#eef1f4; }
svg.chart .bar { fill:#0969da; } svg.chart .bar.unexpected { fill:#cf222e; }
svg.chart .curve { fill:none; stroke-width:2; }
.chart-with-legend { display:flex; flex-wrap:wrap; gap:8px 18px; align-items:flex-start; }
.chart-legend { list-style:none; margin:8px 0; padding:0; font-size:12.5px; }
.chart-legend li { margin:3px 0; }
.chart-legend i.swatch { display:inline-block; width:18px; height:4px; border-radius:2px; vertical-align:middle; margin-right:6px; }
table.pairs th { font-weight:600; }
ol.story { font-family: ui-monospace, Menlo, Consolas, monospace; font-size:12.5px; padding-left:2.6em; }
ul.states { columns: 2 420px; font-size:12px; }
svg .crowded { display:none !important; }
`;
