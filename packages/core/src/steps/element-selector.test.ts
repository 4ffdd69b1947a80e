import { framePrefix, toPlaywrightSelector, unknownSelectorPrefix } from './element-selector';
import { LOCATE_ELEMENT_HELPER, PLAYWRIGHT_SELECTOR_HELPER } from './locate-element';

// The generated script's copy of the translation, evaluated as the script would define it.
const scriptTranslation = new Function(`${PLAYWRIGHT_SELECTOR_HELPER.source}\nreturn playwrightSelector;`)() as (
  selector: string,
) => string;

const SELECTORS = [
  '#go',
  'div:nth-of-type(2) > div:nth-of-type(2) a > div',
  '#FI_federated\\.00w687c1maup7s1dd4wh40d7d2b6\\,none\\:Address',
  'xpath//html/body/main/div/div/div[2]/div[2]/div/a/div',
  'xpath///*[@id="tableau_base_widget"]/div',
  'text/5/9/2023',
  'text/Say "hi" >> there',
  'pierce/div > div > div.py-3 button',
  'aria/ADD TO CART',
  'aria/Sign in[role="button"]',
  'aria/[role="dialog"]',
  'aria/a.b*c/d\\e`f\'g"h >> i',
  'aria/  spaced   out  ',
  '{{params.q}}',
];

describe('Recorder selectors as Playwright selectors', () => {
  it.each(SELECTORS)('translates %s the same in TypeScript and in the generated script', (selector) => {
    expect(scriptTranslation(selector)).toBe(toPlaywrightSelector(selector));
  });

  it('maps each prefix to a Playwright engine', () => {
    expect(toPlaywrightSelector('#go')).toBe('#go');
    expect(toPlaywrightSelector('xpath//html/body')).toBe('xpath=/html/body');
    expect(toPlaywrightSelector('pierce/.item')).toBe('css=.item');
    expect(toPlaywrightSelector('text/Sign in')).toBe('internal:text="Sign in"i');
    expect(toPlaywrightSelector('aria/Sign  in[role="button"]')).toBe(
      'internal:role=button[name=/^\\s*Sign\\s+in\\s*$/i]',
    );
    const roleless = toPlaywrightSelector('aria/Sign in');
    expect(
      roleless.startsWith('internal:role=button[name=/^\\s*Sign\\s+in\\s*$/i] >> internal:or="internal:role=link'),
    ).toBe(true);
  });

  it('enters child frames by index', () => {
    expect(framePrefix(undefined)).toBe('');
    expect(framePrefix([1, 0])).toBe(
      'botfleet_child_frame=1 >> internal:control=enter-frame >> botfleet_child_frame=0 >> internal:control=enter-frame >> ',
    );
  });

  it('knows an unknown prefix from CSS', () => {
    expect(['aria/x', 'xpath//a', 'text/a/b', 'pierce/a', '#a', 'a > b', 'div/'].map(unknownSelectorPrefix)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      'div',
    ]);
    expect(unknownSelectorPrefix('shadow/x')).toBe('shadow');
  });

  it('gives the script a helper that parses', () => {
    expect(() => new Function(`${LOCATE_ELEMENT_HELPER.source}\nreturn locateElement;`)).not.toThrow();
  });
});
