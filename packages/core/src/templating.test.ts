import { fillTemplate, fillTemplates, placeholderNames } from './templating';

describe('templating', () => {
  it('fills params and tolerates spacing', () => {
    expect(fillTemplate('q={{params.query}}&n={{ params.n }}', { query: 'red shoes', n: 3 })).toBe('q=red shoes&n=3');
    expect(placeholderNames('{{params.a}} {{params.b}}')).toEqual(['a', 'b']);
  });

  it('leaves other text alone and blanks missing params', () => {
    expect(fillTemplate('{{other.x}} {{params.missing}}!', {})).toBe('{{other.x}} !');
    expect(fillTemplate('{{params.toString}}', {})).toBe('');
  });

  it('fills nested structures', () => {
    expect(fillTemplates({ a: ['{{params.x}}', 1], b: { c: '{{params.x}}' } }, { x: 'y' })).toEqual({
      a: ['y', 1],
      b: { c: 'y' },
    });
  });
});
