// The allow-list of links that leave the app (electron/externalLinks.ts): what the desktop app hands to the OS
// and what the note view makes clickable.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAllowedExternalUrl } from '../electron/externalLinks.js';

function assertAllowed(urls: string[]) {
  for (const url of urls) assert.ok(isAllowedExternalUrl(url), `should be allowed: ${url}`);
}

function assertRefused(urls: string[]) {
  for (const url of urls) assert.ok(!isAllowedExternalUrl(url), `should be refused: ${url}`);
}

describe('external links allow-list', () => {
  test('web links with a host', () => {
    assertAllowed(['https://example.com/a?b=c#d', 'http://localhost:3000/', 'HTTPS://Example.com']);
    assertRefused(['http://', 'https://', 'not a url', '', 'Folder/Note.md', '#Heading', '//cdn.example.com/x']);
  });

  test('mailto: an address and only subject, body, cc, bcc', () => {
    assertAllowed([
      'mailto:me@example.com',
      'mailto:me@example.com,you@example.org',
      'mailto:me@example.com?subject=Hello%20there&body=See%20you',
      'mailto:me@example.com?Subject=Hi&CC=a@b.org&bcc=c@d.org,e@f.org',
    ]);
    assertRefused([
      'mailto:',
      'mailto:?to=me@example.com',
      'mailto:?subject=no%20address',
      'mailto:not-an-address',
      'mailto:me@example.com?attach=/etc/passwd',
      'mailto:me@example.com?attachment=C:%5CUsers%5Cme%5Csecret.txt',
      'mailto:me@example.com?file=/home/me/.ssh/id_rsa',
      'mailto:me@example.com?subject=x&x-unknown=1',
      'mailto:me@example.com?to=other@example.com',
      'mailto:me@example.com?cc=not%20an%20address',
      'mailto:me@example.com?bcc=',
      'mailto:me@example.com#fragment',
      'mailto:%E0%A4%A',
      'mailto:Me <me@example.com>',
    ]);
  });

  test('obsidian://open with only vault, file and path, each with a value', () => {
    assertAllowed([
      'obsidian://open?vault=Notes&file=Welcome',
      'obsidian://open?vault=My%20Vault&file=Folder%2FNote',
      'obsidian://open?path=%2Fhome%2Fme%2Fvault%2FNote.md',
      'obsidian://open/?vault=Notes',
    ]);
    assertRefused([
      'obsidian://open',
      'obsidian://open?vault=',
      'obsidian://open?vault=Notes&file=',
      'obsidian://open?vault=Notes&command=delete',
      'obsidian://open?vault=Notes&file=Welcome&x=1',
      'obsidian://open/extra?vault=Notes',
      'obsidian://open?vault=Notes#frag',
      'obsidian://user:pw@open?vault=Notes',
      'obsidian://open:99?vault=Notes',
      'obsidian://advanced-uri?vault=Notes&eval=1',
      'obsidian://new?vault=Notes&file=x&content=y',
      'obsidian://search?vault=Notes&query=x',
    ]);
  });

  test('every other scheme is refused', () => {
    assertRefused([
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,<script>1</script>',
      'smb://server/share',
      'cairn://app/index.html',
      'tel:+123456',
      'ftp://example.com/x',
      'vbscript:msgbox(1)',
      'ms-settings:privacy',
    ]);
  });
});
