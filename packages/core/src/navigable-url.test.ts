import {
  isAllowedDocumentUrl,
  judgeNavigableUrl,
  navigableUrl,
  NavigableUrlSchema,
  urlTemplateProblems,
  writableUrlProblem,
} from './navigable-url';
import { importRecording } from './recordings';
import { AppError } from './errors';

const REFUSED = [
  'file:///etc/passwd',
  'FILE:///etc/passwd',
  '  file:///etc/passwd',
  'file:/etc/passwd',
  'chrome://version',
  'view-source:https://a.example/',
  'data:text/html,<p>x</p>',
  'javascript:alert(1)',
  'jav\tascript:alert(1)',
  'blob:https://a.example/3f1c2b6e',
  'devtools://devtools/bundled/inspector.html',
  'chrome-extension://abc/page.html',
  'ftp://files.example/',
  'about:srcdoc',
  'about:config',
];

describe('judgeNavigableUrl (run time)', () => {
  it.each(REFUSED)('refuses %j, naming its scheme', (url) => {
    const verdict = judgeNavigableUrl(url, { base: 'https://a.example/', allowAboutBlank: true });
    expect(verdict).toEqual({ allowed: false, reason: expect.stringMatching(/^[a-z-]+: URLs cannot be opened/) });
    expect(() => navigableUrl(url, { allowAboutBlank: true })).toThrow(/^url_not_allowed: /);
  });

  it('allows web URLs, about:blank where asked, and relative URLs against a web page', () => {
    expect(navigableUrl('https://a.example')).toBe('https://a.example/');
    expect(navigableUrl('/next', { base: 'http://a.example/x/y' })).toBe('http://a.example/next');
    expect(navigableUrl('//b.example/p', { base: 'https://a.example/' })).toBe('https://b.example/p');
    expect(navigableUrl('about:blank', { allowAboutBlank: true })).toBe('about:blank');
    expect(() => navigableUrl('about:blank')).toThrow(/^url_not_allowed: about: URLs/);
    // Relative to about:blank there is nothing to resolve against.
    expect(() => navigableUrl('/next', { base: 'about:blank' })).toThrow(/^url_not_allowed: '\/next' is not a valid/);
  });

  it('cuts long URLs in its reason', () => {
    const verdict = judgeNavigableUrl(`data:text/plain,${'x'.repeat(5000)}`);
    expect(verdict.allowed === false && verdict.reason.length).toBeLessThan(300);
  });
});

describe('writableUrlProblem (write time)', () => {
  it.each(REFUSED)('refuses %j', (url) => expect(writableUrlProblem(url)).toEqual(expect.any(String)));

  it.each([
    'https://a.example/',
    'about:blank',
    '/relative?x=1',
    'relative/path',
    '{{params.url}}',
    'https://{{params.host}}/x',
    '{{params.scheme}}://a.example/',
  ])('accepts %j (templates whose scheme is a placeholder wait for the trigger)', (url) => {
    expect(writableUrlProblem(url)).toBeNull();
  });

  it('refuses a template whose literal part already has another scheme', () => {
    expect(writableUrlProblem('file:///{{params.path}}')).toMatch(/^file: URLs/);
    expect(writableUrlProblem('javascript:{{params.code}}')).toMatch(/^javascript: URLs/);
  });

  it('is what the step schema says, with the code', () => {
    const result = NavigableUrlSchema.safeParse('file:///etc/passwd');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/^url_not_allowed: file: URLs cannot be opened/);
  });
});

describe('urlTemplateProblems (trigger time)', () => {
  it('names each param of a URL its values make unsafe', () => {
    expect(urlTemplateProblems(['{{params.url}}'], { url: 'file:///etc/passwd' })).toEqual([
      { path: 'params.url', message: expect.stringContaining('url_not_allowed: file: URLs') },
    ]);
    expect(
      urlTemplateProblems(['{{params.scheme}}:{{params.rest}}'], { scheme: 'javascript', rest: 'alert(1)' }).map(
        (p) => p.path,
      ),
    ).toEqual(['params.scheme', 'params.rest']);
  });

  it('accepts web URLs, relative results and templates without placeholders', () => {
    expect(urlTemplateProblems(['{{params.url}}'], { url: 'https://a.example/' })).toEqual([]);
    expect(urlTemplateProblems(['{{params.url}}'], { url: '/etc/passwd' })).toEqual([]);
    expect(urlTemplateProblems(['https://a.example/{{params.p}}'], { p: 'file:///x' })).toEqual([]);
    expect(urlTemplateProblems(['file:///fixed'], {})).toEqual([]);
  });
});

describe('isAllowedDocumentUrl (what a frame may show)', () => {
  it.each([
    'https://a.example/',
    'http://127.0.0.1:8080/x',
    'about:blank',
    'about:srcdoc',
    '',
    'chrome-error://chromewebdata/',
  ])('allows %j', (url) => expect(isAllowedDocumentUrl(url)).toBe(true));
  it.each(REFUSED.filter((u) => u !== 'about:srcdoc'))('stops %j', (url) =>
    expect(isAllowedDocumentUrl(url)).toBe(false),
  );
});

describe('recording imports', () => {
  it('refuse a navigate to another scheme as invalid_recording naming the step', () => {
    const recording = {
      title: 't',
      steps: [
        { type: 'navigate', url: 'https://a.example/' },
        { type: 'navigate', url: 'view-source:https://a.example/' },
      ],
    };
    let thrown: unknown;
    try {
      importRecording(recording);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      code: 'invalid_recording',
      details: [{ path: 'steps.1', message: expect.stringMatching(/^url_not_allowed: view-source: URLs/) }],
    });
  });
});
