// The only way note HTML reaches the page: markdown-it output through DOMPurify, returned as a DOM fragment (never
// re-serialised and re-parsed). Notes may hold hostile HTML (<script>, on* handlers, javascript: links): all of it is
// dropped. Links that may leave the app (web, restricted mailto:, obsidian://open: the desktop app's own allow-list)
// open outside it; other schemes lose their link; images other than data: URLs are not fetched (no remote content).
import DOMPurify from 'dompurify';
import { isAllowedExternalUrl } from '../../../electron/externalLinks.ts';

const purifier = DOMPurify(window);

const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node instanceof HTMLAnchorElement) {
    const href = node.getAttribute('href') ?? '';
    if (isAllowedExternalUrl(href)) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
      node.classList.add('external-link');
    } else if (ANY_SCHEME.test(href)) {
      // tel:, file:, mailto:…?attach=, obsidian://advanced-uri…: keep the text, drop the link.
      node.removeAttribute('href');
    } else if (href && !href.startsWith('#') && !node.hasAttribute('data-wikilink')) {
      node.setAttribute('data-vault-link', href);
    }
  }
  // Audio and video from elsewhere are not loaded either (the CSP would refuse them, noisily): a placeholder below.
  if (node instanceof HTMLMediaElement || node instanceof HTMLSourceElement || node instanceof HTMLTrackElement) {
    const src = node.getAttribute('src') ?? '';
    if (src && !/^data:(audio|video)\//i.test(src)) {
      node.removeAttribute('src');
      node.setAttribute('data-blocked-src', src);
    }
    node.removeAttribute('poster');
  }
  if (node instanceof HTMLImageElement) {
    const src = node.getAttribute('src') ?? '';
    if (!/^data:image\//i.test(src)) {
      node.removeAttribute('src');
      node.removeAttribute('srcset');
      node.setAttribute('data-blocked-src', src);
    }
  }
});

const CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'button', 'textarea', 'select', 'option', 'iframe', 'frame', 'object', 'embed', 'link', 'meta', 'base'],
  FORBID_ATTR: ['style', 'id', 'name', 'srcset'],
  ADD_ATTR: ['target'],
  RETURN_DOM_FRAGMENT: true as const,
};

export function sanitizeToFragment(html: string): DocumentFragment {
  const fragment = purifier.sanitize(html, CONFIG);
  // The one input a note may show: a task list's checkbox, read-only (no form can hold it: forms are dropped).
  for (const input of fragment.querySelectorAll('input')) {
    if (input.type !== 'checkbox') input.remove();
    else {
      input.disabled = true;
      input.tabIndex = -1;
    }
  }
  // Images that would load from elsewhere show as their description instead.
  for (const img of fragment.querySelectorAll('img[data-blocked-src]')) {
    const placeholder = document.createElement('span');
    placeholder.className = 'image-placeholder';
    placeholder.textContent = `[image: ${img.getAttribute('alt') || img.getAttribute('data-blocked-src') || 'not shown'}]`;
    placeholder.title = 'Images from outside the note are not loaded';
    img.replaceWith(placeholder);
  }
  for (const media of fragment.querySelectorAll('audio, video')) {
    const blocked = media.getAttribute('data-blocked-src') ?? media.querySelector('[data-blocked-src]')?.getAttribute('data-blocked-src');
    if (!blocked) continue;
    const placeholder = document.createElement('span');
    placeholder.className = 'image-placeholder';
    placeholder.textContent = `[${media.tagName.toLowerCase()}: ${blocked}]`;
    placeholder.title = 'Media from outside the note are not loaded';
    media.replaceWith(placeholder);
  }
  return fragment;
}
