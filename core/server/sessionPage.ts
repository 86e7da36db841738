// The small page the browser-mode server shows instead of the app when a page load is refused: a bare
// http://127.0.0.1:PORT/ in a browser that has no session yet, a bookmark or link from an earlier run (each run has
// a new token), or the right port under another host name. It says how to open the app and carries nothing secret:
// no token, no vault, and no script (the CSP allows none inline).
import type { RefusalKind } from './requestGuard.js';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:38rem;margin:4rem auto;padding:0 1.25rem;color:#27374d;background:#f7f8fa}
h1{font-size:1.35rem;margin:0 0 1rem}code{font:0.92em ui-monospace,monospace;background:#e6eaef;padding:0.1em 0.3em;border-radius:4px;white-space:nowrap}
@media (prefers-color-scheme:dark){body{color:#dde3ea;background:#1b2129}code{background:#2c3540}}`;

export function sessionPage(kind: RefusalKind, port: number): string {
  const here = `http://127.0.0.1:${port}/`;
  const open = `Open the link that <code>cairn serve</code> (or <code>npm start</code>) printed in its terminal: it looks like <code>${here}?token=…</code> and carries this run's access key.`;
  const after = `After that, reloads and <code>${here}</code> (a bookmark, a new tab) work in this browser until Cairn stops.`;
  const paragraphs =
    kind === 'wrong-token'
      ? ['This link is from an earlier run of Cairn: each run has a new access key, so old links and bookmarks stop working when Cairn restarts.', open, after]
      : kind === 'host' || kind === 'origin'
        ? [`Open Cairn as <code>${here}</code> (or <code>http://localhost:${port}/</code>): it answers only under those names, so that other web pages cannot reach it.`, open]
        : ["Cairn's browser mode answers only pages that carry this run's access key, so that other programs and web pages cannot read your notes.", open, after];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>Cairn: open the link from the terminal</title>
<style>${STYLE}</style>
</head>
<body>
<main data-testid="session-page" data-kind="${kind}">
<h1>Cairn is running, but this page needs its access link</h1>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</main>
</body>
</html>
`;
}
