import { describe, expect, it } from 'vitest';
import { undocumentedAnswer } from './documented-answers.ts';

const answers = {
  200: ['application/json'],
  204: [],
  206: ['*/*'],
  404: ['text/html'],
  415: ['image/*'],
};

describe('undocumentedAnswer', () => {
  it('passes a declared status in a declared media type, parameters and case aside', () => {
    expect(undocumentedAnswer(answers, 200, 'application/json; charset=utf-8')).toBeNull();
    expect(undocumentedAnswer(answers, 404, 'Text/HTML; charset=utf-8')).toBeNull();
    expect(undocumentedAnswer(answers, 206, 'application/pdf')).toBeNull();
    expect(undocumentedAnswer(answers, 415, 'image/png')).toBeNull();
    expect(undocumentedAnswer(answers, 204, undefined)).toBeNull();
  });

  it('names a status the document does not declare', () => {
    expect(undocumentedAnswer(answers, 410, 'application/json')).toBe('status 410 is not in the document');
  });

  it('names a media type not declared for the status, and a body where none is declared', () => {
    expect(undocumentedAnswer(answers, 200, 'text/plain')).toBe(
      'status 200 answered text/plain, documented as application/json',
    );
    expect(undocumentedAnswer(answers, 415, 'text/plain')).toBe(
      'status 415 answered text/plain, documented as image/*',
    );
    expect(undocumentedAnswer(answers, 204, 'application/json')).toBe(
      'status 204 is documented without a body, but answered application/json',
    );
  });
});
