import { describeSelector } from './selector-text';

/*
 * How a selector is named in step descriptions, failure messages and the console's step lines:
 * the first alternative quoted alone, the count of the others outside the quotes.
 */

describe('describeSelector', () => {
  it('quotes a single selector', () => {
    expect(describeSelector('#go')).toBe('"#go"');
    expect(describeSelector(['aria/Show more'])).toBe('"aria/Show more"');
  });

  it('counts the other alternatives after the quotes, one or many', () => {
    expect(describeSelector(['aria/Show more', '#more'])).toBe('"aria/Show more" (+1 alternative)');
    expect(describeSelector(['aria/Show more', '#more', '.more', 'text/Show more'])).toBe(
      '"aria/Show more" (+3 alternatives)',
    );
  });

  it('joins a chained alternative as one selector', () => {
    expect(describeSelector([['#host', 'a']])).toBe('"#host >> a"');
    expect(describeSelector([['aria/Buy'], 'button.buy', ['#host', 'a']])).toBe('"aria/Buy" (+2 alternatives)');
    expect(describeSelector([['iframe#pay', '#card'], '#card'])).toBe('"iframe#pay >> #card" (+1 alternative)');
  });
});
